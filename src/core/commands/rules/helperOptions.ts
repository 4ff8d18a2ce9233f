import { allow, deny } from '../../verdict';
import type { FamilyRule } from './types';

/**
 * A rule for a program whose dangerous options are a few long names and one short letter: a long name is denied
 * in any prefix (getopt_long's unique abbreviations, and ambiguous ones too), the letter in any single-dash word
 * (a short cluster; an attached value containing the letter is a false denial at worst). Options after operands
 * count (getopt permutes); an unconsumed `--` ends them.
 */
export function helperOptionRule(program: string, rule: string, longs: Readonly<Record<string, string>>, short: { letter: string; why: string }): FamilyRule {
  return (args) => {
    for (const tok of args) {
      if (tok === '--') break;
      if (tok.startsWith('--')) {
        const typed = tok.slice(2).split('=')[0]!;
        const name = typed === '' ? undefined : Object.keys(longs).find((n) => n.startsWith(typed));
        if (name) return deny('ARGUMENT_FORBIDDEN', rule, `${program} ${tok} is not allowed: it could mean --${name}, which ${longs[name]}.`);
      } else if (tok.startsWith('-') && tok.includes(short.letter)) {
        return deny('ARGUMENT_FORBIDDEN', rule, `${program} ${tok} is not allowed: -${short.letter} ${short.why}.`);
      }
    }
    return allow(`${program}.ok`);
  };
}
