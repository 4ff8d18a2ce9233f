import { allow, deny } from '../../verdict';
import type { FamilyRule } from './types';

/**
 * wget (GNU Wget 1.21, wget2): `--use-askpass=CMD` runs a program to ask for credentials, `-e`/`--execute CMD`
 * runs a .wgetrc command (`-e use_askpass=CMD` is the same helper), and `--config FILE` reads such commands from a
 * file the rule cannot inspect. getopt_long accepts unique abbreviations (`--use-a` was seen to run the helper),
 * so any long name that is a prefix of one of them is denied, and any single-dash word containing `e` (a short
 * cluster; an attached value containing "e" is a false denial at worst). Options after operands count (getopt
 * permutes); an unconsumed `--` ends them.
 */
const HELPERS: Readonly<Record<string, string>> = {
  'use-askpass': 'runs a program of its choosing to ask for credentials',
  execute: 'runs a .wgetrc command, which can name a program (use_askpass)',
  config: 'reads .wgetrc commands, which can name a program, from a file',
};

export const wgetRule: FamilyRule = (args) => {
  for (const tok of args) {
    if (tok === '--') break;
    if (tok.startsWith('--')) {
      const typed = tok.slice(2).split('=')[0]!;
      if (typed === '') continue;
      for (const [name, why] of Object.entries(HELPERS)) {
        if (name.startsWith(typed)) return deny('ARGUMENT_FORBIDDEN', 'wget.helper-option', `wget ${tok} is not allowed: it could mean --${name}, which ${why}.`);
      }
    } else if (tok.startsWith('-') && tok.includes('e')) {
      return deny('ARGUMENT_FORBIDDEN', 'wget.helper-option', `wget ${tok} is not allowed: -e runs a .wgetrc command, which can name a program (use_askpass).`);
    }
  }
  return allow('wget.ok');
};
