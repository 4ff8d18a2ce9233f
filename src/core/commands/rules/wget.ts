import { helperOptionRule } from './helperOptions';

/**
 * wget (GNU Wget 1.21, wget2): `--use-askpass=CMD` runs a program to ask for credentials, `-e`/`--execute CMD`
 * runs a .wgetrc command (`-e use_askpass=CMD` is the same helper), and `--config FILE` reads such commands from a
 * file the rule cannot inspect (`--use-a` was seen to run the helper).
 */
export const wgetRule = helperOptionRule(
  'wget',
  'wget.helper-option',
  {
    'use-askpass': 'runs a program of its choosing to ask for credentials',
    execute: 'runs a .wgetrc command, which can name a program (use_askpass)',
    config: 'reads .wgetrc commands, which can name a program, from a file',
  },
  { letter: 'e', why: 'runs a .wgetrc command, which can name a program (use_askpass)' },
);
