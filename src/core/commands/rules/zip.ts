import { allow, deny } from '../../verdict';
import type { FamilyRule } from './types';

/**
 * zip (Info-ZIP 3.0): `-T`/`--test` tests the new archive by running `unzip`, and `-TT CMD`/`--unzip-command
 * CMD` replaces that program by any command (run through a shell). zip's own option scanner takes short options
 * of one OR two letters (`-TT`), clusters (`-qT`), attached and `=` values (`-TTcmd`, `-TT=cmd`) and unique
 * long abbreviations (`--unz`, seen to run the command). So: any single-dash word containing `T`, and any long
 * name that is a non-empty prefix of `test` or `unzip-command` (ambiguous ones like `--te` included), is denied
 * — after `--` too, since zip reads options after operands. A value containing "T" attached to another option
 * is a false denial at worst.
 */
export const zipRule: FamilyRule = (args) => {
  for (const tok of args) {
    if (tok.startsWith('--')) {
      const typed = tok.slice(2).split('=')[0]!;
      if (typed === '') continue;
      for (const name of ['test', 'unzip-command']) {
        if (name.startsWith(typed)) {
          return deny('ARGUMENT_FORBIDDEN', 'zip.test-command', `zip ${tok} is not allowed: it could mean --${name}; zip then runs unzip or a command of its choosing to test the archive.`);
        }
      }
    } else if (tok.startsWith('-') && tok.includes('T')) {
      return deny('ARGUMENT_FORBIDDEN', 'zip.test-command', `zip ${tok} is not allowed: -T tests the archive by running unzip, and -TT CMD runs a command of its choosing instead.`);
    }
  }
  return allow('zip.ok');
};
