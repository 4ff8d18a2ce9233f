import { allow, deny, type Verdict } from '../../verdict';
import { couldMean, longTable, scanOptions, shortTable, type Grammar } from './getopt';
import { findSedHazard } from './sedScript';
import type { FamilyRule } from './types';

/**
 * sed as a command (useful in pipelines). File edits go through the file tools, which show a diff first (the refusal
 * names the one the policy offers: src/core/advice.ts), so:
 *  - `-i`/`--in-place` (in clusters like `-ni`, with suffixes like `-i.bak`, abbreviated as `--in`) is denied;
 *    so is `--follow-symlinks`, which only matters for in-place edits;
 *  - `-f`/`--file` is denied: a script in a file cannot be inspected here;
 *  - the script (all `-e` values, or else the first operand) is read and the `e r R w W` commands and the `e`/`w`
 *    flags of `s` are denied before anything runs (sedScript.ts);
 *  - `-s`/`--separate` is allowed: it only changes how line numbers and `$` count across input files.
 * Then GNU sed is started with `--sandbox` (see hardenSedArgv), which makes sed itself reject e/r/w as a second
 * layer. (BSD sed has no --sandbox and fails to start: fail closed.)
 */
const GRAMMAR: Grammar = {
  permute: true,
  short: shortTable('bsnrzuEe:f:l:i::V:'),
  long: longTable(`
    quiet:n silent:n debug:n expression:r file:r follow-symlinks:n in-place:o line-length:r null-data:n
    zero-terminated:n posix:n regexp-extended:n separate:n sandbox:n unbuffered:n binary:n help:n version:n
  `),
};

const FORBIDDEN_LONG: Readonly<Record<string, { rule: string; why: string }>> = {
  'in-place': { rule: 'sed.in-place', why: 'edits files in place, with no diff shown first' },
  'follow-symlinks': { rule: 'sed.in-place', why: 'only serves in-place editing, which is not allowed' },
  file: { rule: 'sed.script-file', why: 'reads the script from a file, which cannot be inspected before it runs' },
};
const FORBIDDEN_SHORT: Readonly<Record<string, string>> = { i: 'in-place', f: 'file' };

export const sedRule: FamilyRule = (args) => {
  const scripts: string[] = [];
  const operands: string[] = [];
  for (const ev of scanOptions(args, GRAMMAR)) {
    if (ev.kind === 'short') {
      const long = Object.prototype.hasOwnProperty.call(FORBIDDEN_SHORT, ev.letter) ? FORBIDDEN_SHORT[ev.letter] : undefined;
      if (long) {
        const f = FORBIDDEN_LONG[long]!;
        return deny('ARGUMENT_FORBIDDEN', f.rule, `sed -${ev.letter} (--${long}) is not allowed: it ${f.why}.`);
      }
      if (ev.letter === 'e' && ev.value !== undefined) scripts.push(ev.value);
    } else if (ev.kind === 'long') {
      for (const [name, f] of Object.entries(FORBIDDEN_LONG)) {
        if (couldMean(ev.typed, name, GRAMMAR.long)) {
          const spelled = ev.typed === name ? `--${name}` : `--${ev.typed} (which could mean --${name})`;
          return deny('ARGUMENT_FORBIDDEN', f.rule, `sed ${spelled} is not allowed: it ${f.why}.`);
        }
      }
      if (ev.resolved?.name === 'expression' && ev.value !== undefined) scripts.push(ev.value);
    } else if (ev.kind === 'operand') {
      operands.push(ev.value);
    }
  }
  const script = scripts.length > 0 ? scripts.join('\n') : operands[0];
  if (script === undefined) return allow('sed.ok'); // --version, --help
  return judgeSedScript(script);
};

export function judgeSedScript(script: string): Verdict {
  const hazard = findSedHazard(script);
  if (!hazard) return allow('sed.ok');
  return deny('ARGUMENT_FORBIDDEN', `sed.${hazard.what}`, `The sed script is not allowed: ${hazard.reason}.`);
}

/** The argv (without the program name) to actually run: `--sandbox` first, so no spelling can precede it. */
export function hardenSedArgv(args: readonly string[]): string[] {
  return ['--sandbox', ...args];
}
