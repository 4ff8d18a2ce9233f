import { allow, deny, type Verdict } from '../../verdict';
import { findAwkHazard } from './awkProgram';
import { couldMean, longTable, resolveLong } from './getopt';
import type { FamilyRule } from './types';

/**
 * awk (gawk 5, mawk, BWK awk, busybox awk). Options end at the first operand, which is the program text; the
 * program is then read for system(), pipes, print redirections and gawk @ syntax (see awkProgram.ts).
 *
 * Denied options: every way to load program text we do not see or code awk did not write (`-f/--file`,
 * `-e/--source`, `-E/--exec`, `-i/--include`, `-l/--load`), mawk/gawk `-W` (mawk's `-W exec`, gawk's `-W
 * file=…`: a second option language), and gawk's options that write files (`-d/--dump-variables`,
 * `-o/--pretty-print`, `-p/--profile`) or read debugger commands (`-D/--debug`) — in clusters, with attached
 * values and as unique or ambiguous abbreviations. `-F` and `-v` take a value, which is data.
 * Unknown options are denied: an option we do not know might take a value and shift which operand is the
 * program.
 */

type ShortKind = 'flag' | 'value' | 'optional-value';
const SAFE_SHORT: Readonly<Record<string, ShortKind>> = {
  F: 'value', v: 'value', b: 'flag', c: 'flag', C: 'flag', g: 'flag', h: 'flag', I: 'flag', M: 'flag', n: 'flag',
  N: 'flag', O: 'flag', P: 'flag', r: 'flag', s: 'flag', S: 'flag', t: 'flag', V: 'flag', L: 'optional-value',
};
const FORBIDDEN_SHORT: Readonly<Record<string, string>> = {
  f: 'reads the program from a file the rule cannot inspect',
  e: 'gives program text through an option (give it as the first operand instead)',
  E: 'reads the program from a file the rule cannot inspect',
  i: 'includes a source file the rule cannot inspect',
  l: 'loads a compiled extension',
  W: 'selects options through -W (mawk -W exec, gawk -W file=…)',
  d: 'writes a variable dump to a file',
  D: 'runs the debugger, which reads commands from a file',
  o: 'writes a pretty-printed program to a file',
  p: 'writes a profile to a file',
};

const LONG = longTable(`
  assign:r field-separator:r file:r characters-as-bytes:n traditional:n copyright:n dump-variables:o debug:o
  source:r exec:r gen-pot:n help:n include:r trace:n load:r lint:o bignum:n use-lc-numeric:n non-decimal-data:n
  pretty-print:o optimize:n profile:o posix:n re-interval:n no-optimize:n sandbox:n lint-old:n version:n csv:n
  usage:n compat:n
`);
const FORBIDDEN_LONG: Readonly<Record<string, string>> = {
  file: FORBIDDEN_SHORT.f!,
  source: FORBIDDEN_SHORT.e!,
  exec: FORBIDDEN_SHORT.E!,
  include: FORBIDDEN_SHORT.i!,
  load: FORBIDDEN_SHORT.l!,
  'dump-variables': FORBIDDEN_SHORT.d!,
  debug: FORBIDDEN_SHORT.D!,
  'pretty-print': FORBIDDEN_SHORT.o!,
  profile: FORBIDDEN_SHORT.p!,
};

const optionDenied = (spelling: string, why: string): Verdict =>
  deny('ARGUMENT_FORBIDDEN', 'awk.forbidden-option', `awk ${spelling} is not allowed: it ${why}.`);

/** Judges one option token; returns a verdict to stop with, or how many following tokens it consumes. */
function judgeOptionToken(tok: string): Verdict | { consumes: number } {
  if (tok.startsWith('--')) {
    const eq = tok.indexOf('=');
    const typed = eq >= 0 ? tok.slice(2, eq) : tok.slice(2);
    for (const [name, why] of Object.entries(FORBIDDEN_LONG)) {
      if (couldMean(typed, name, LONG)) return optionDenied(`--${typed}`, `could mean --${name}, which ${why}`);
    }
    const { resolved } = resolveLong(typed, LONG);
    if (!resolved) return deny('ARGUMENT_FORBIDDEN', 'awk.unknown-option', `awk option --${typed} is not known to this rule (unknown or ambiguous), so it is denied.`);
    return { consumes: resolved.arg === 'required' && eq < 0 ? 1 : 0 };
  }
  for (let j = 1; j < tok.length; j++) {
    const letter = tok[j]!;
    const forbidden = Object.prototype.hasOwnProperty.call(FORBIDDEN_SHORT, letter) ? FORBIDDEN_SHORT[letter] : undefined;
    if (forbidden) return optionDenied(`-${letter}${j > 1 ? ` (inside ${tok})` : ''}`, forbidden);
    const kind = Object.prototype.hasOwnProperty.call(SAFE_SHORT, letter) ? SAFE_SHORT[letter] : undefined;
    if (!kind) return deny('ARGUMENT_FORBIDDEN', 'awk.unknown-option', `awk option -${letter} is not known to this rule, so it is denied.`);
    if (kind === 'value') return { consumes: j === tok.length - 1 ? 1 : 0 };
    if (kind === 'optional-value') return { consumes: 0 };
  }
  return { consumes: 0 };
}

export const awkRule: FamilyRule = (args) => {
  let i = 0;
  for (; i < args.length; i++) {
    const tok = args[i]!;
    if (tok === '--') {
      i++;
      break;
    }
    if (!tok.startsWith('-') || tok === '-') break;
    const r = judgeOptionToken(tok);
    if ('kind' in r) return r;
    i += r.consumes;
  }
  const program = args[i];
  if (program === undefined) return allow('awk.ok'); // --version, --help: nothing to run
  const hazard = findAwkHazard(program);
  if (hazard) {
    return deny('ARGUMENT_FORBIDDEN', `awk.${hazard.what}`, `The awk program is not allowed: ${hazard.reason}.`);
  }
  // No awk we know reads options after the program, but some getopt builds permute: treat an operand that
  // would be a forbidden option as one (an operand that merely starts with "-" is otherwise data).
  for (const tok of args.slice(i + 1)) {
    if (!tok.startsWith('-') || tok === '-' || tok === '--') continue;
    const r = judgeOptionToken(tok);
    if ('kind' in r && r.rule === 'awk.forbidden-option') return r;
  }
  return allow('awk.ok');
};
