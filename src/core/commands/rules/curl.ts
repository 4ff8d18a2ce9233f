import { helperOptionRule } from './helperOptions';

/**
 * curl: `--engine PATH` makes OpenSSL load a shared object (the real curl was seen to run its constructor, also
 * as the abbreviation `--eng`), and `-K`/`--config FILE` reads options — `engine` included — from a file the rule
 * cannot inspect. Denied (`curl.load-module`): any long name that is a prefix of `engine` or `config`, and any
 * single-dash word containing `K`. Per-call `CURL_HOME`/`HOME` (where .curlrc is read) are refused by the
 * environment rules.
 */
export const curlRule = helperOptionRule(
  'curl',
  'curl.load-module',
  { engine: 'loads a shared object into curl', config: 'reads options (engine included) from a file' },
  { letter: 'K', why: 'reads options (engine included) from a file the rule cannot inspect' },
);
