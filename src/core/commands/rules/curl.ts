import { allow, deny } from '../../verdict';
import type { FamilyRule } from './types';

/**
 * curl: `--engine PATH` makes OpenSSL load a shared object (the real curl was seen to run its constructor, also
 * as the abbreviation `--eng`), and `-K`/`--config FILE` reads options — `engine` included — from a file the rule
 * cannot inspect. Denied (`curl.load-module`): any long name that is a prefix of `engine` or `config`, and any
 * single-dash word containing `K` (short clusters such as `-sK`; an attached value containing "K" is a false
 * denial at worst). Per-call `CURL_HOME`/`HOME` (where .curlrc is read) are refused by the environment rules.
 */
export const curlRule: FamilyRule = (args) => {
  for (const tok of args) {
    if (tok === '--') break;
    if (tok.startsWith('--')) {
      const typed = tok.slice(2).split('=')[0]!;
      if (typed === '') continue;
      for (const name of ['engine', 'config']) {
        if (name.startsWith(typed)) {
          return deny('ARGUMENT_FORBIDDEN', 'curl.load-module', `curl ${tok} is not allowed: it could mean --${name}, which ${name === 'engine' ? 'loads a shared object into curl' : 'reads options (engine included) from a file'}.`);
        }
      }
    } else if (tok.startsWith('-') && tok.includes('K')) {
      return deny('ARGUMENT_FORBIDDEN', 'curl.load-module', `curl ${tok} is not allowed: -K reads options (engine included) from a file the rule cannot inspect.`);
    }
  }
  return allow('curl.ok');
};
