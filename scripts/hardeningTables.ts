import { HARMLESS_CALL_ENV, REFUSED_CALL_ENV } from '../src/core/commands/callEnv';
import { CC_FORWARDING, CC_PROGRAM_OPTIONS } from '../src/core/commands/rules/cc';
import { HARMLESS_GIT_KEYS, NEUTRALISED_GIT_CONFIG, NEUTRALISED_PER_DRIVER } from '../src/core/commands/rules/gitConfigKeys';
import { RSYNC_PROGRAM_OPTIONS } from '../src/core/commands/rules/rsync';
import { TAR_PROGRAM_OPTIONS } from '../src/core/commands/rules/tar';
import { LINKER_CODE_LOADERS_FOR_DOCS } from '../src/core/commands/rules/toolchain';
import { BINUTILS_CODE_LOADER_FOR_DOCS } from '../src/core/commands/rules/binutils';
import type { ProgramOption } from '../src/core/commands/rules/types';

/**
 * The reviewed lists of issue 28 as docs tables (docs/hardening.md): the git keys a repository may set in a
 * read-only call, the settings read-only git runs with, the per-call environment allowlist and refused families,
 * the compiler drivers' forwarding channels, and each family's table of options that name a program.
 */

const code = (v: string) => `\`${v}\``;
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n+/g, ' ');
const table = (head: string[], rows: string[][]) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');
/** A regular expression as readable text: the alternatives of a name pattern. */
const pattern = (re: RegExp) => code(re.source);

const programOptions = (family: string, options: readonly ProgramOption[]) => options.map((o) => [family, code(o.option), `${o.why}${o.only ? ` (${o.only} names only)` : ''}`]);

/** Harmless names with the same value shape and reason, on one row (the LC_* family). */
function groupHarmless(): [string[], string, string][] {
  const rows = new Map<string, [string[], string, string]>();
  for (const h of HARMLESS_CALL_ENV) {
    const key = `${h.value.source}\0${h.why}`;
    const row = rows.get(key) ?? [[], h.value.source, h.why];
    row[0].push(h.name);
    rows.set(key, row);
  }
  return [...rows.values()];
}

export function hardeningTables(): Record<string, string> {
  return {
    'git-harmless-keys': table(['Family', 'Keys', 'Why harmless'], HARMLESS_GIT_KEYS.map((f) => [f.family, f.keys.map(code).join(' '), `${f.why}${f.refuseValue ? ' (the value is checked)' : ''}`])),
    'git-neutralised': table(['`git -c`', 'Why'], [
      ...NEUTRALISED_GIT_CONFIG.map((n) => [code(n.setting), n.why]),
      [NEUTRALISED_PER_DRIVER.map(code).join(' '), 'for every filter driver named in any configuration file the call reads'],
      [code('pager.SUB=false'), 'for the subcommand being run (pager.SUB outranks core.pager)'],
    ]),
    'env-harmless': table(['Names', 'Value', 'Why harmless'], groupHarmless().map(([names, value, why]) => [names.map(code).join(' '), code(value), why])),
    'env-refused': table(['Family', 'Names (upper case, pattern)', 'Why refused'], REFUSED_CALL_ENV.map((f) => [f.family, pattern(f.pattern), f.why])),
    'cc-forwarding': table(['Channel', 'Judged by', 'Why'], CC_FORWARDING.map((c) => [code(c.spelled), c.to === 'driver' ? 'the compiler rule again' : c.to === 'refused' ? 'refused' : `the ${c.to} allowlist`, c.why])),
    'program-options': table(['Family', 'Option', 'What it does'], [
      ...programOptions('cc', CC_PROGRAM_OPTIONS),
      ['ld (also forwarded)', LINKER_CODE_LOADERS_FOR_DOCS.map((n) => code(`-${n}`)).join(' '), 'load code into the linker or name a program it runs, in every spelling (one or two dashes, abbreviations)'],
      ['ar, nm, ranlib (binutils)', code(BINUTILS_CODE_LOADER_FOR_DOCS), 'loads a BFD plugin, a shared object of the caller\'s choosing, in every spelling (`=`, abbreviations, after operands); a response file `@FILE`, which could hold it, is refused too'],
      ...programOptions('rsync', RSYNC_PROGRAM_OPTIONS),
      ...programOptions('tar', TAR_PROGRAM_OPTIONS),
    ]),
  };
}
