import { allow, deny } from '../../verdict';
import { couldMean, longTable, scanOptions, shortTable, type Grammar } from './getopt';
import type { FamilyRule } from './types';

/**
 * GNU sort (coreutils 9): options that start a helper program or reach outside the request's redirects:
 * --compress-program (runs a program), -o/--output (writes any path: use the server's `>` redirect, which is
 * confined), --files0-from (reads its file list from a file of its choosing), -T/--temporary-directory (writes
 * temporary files anywhere). Denied in clusters (`-ro FILE`, `-rT DIR`), as unique or ambiguous abbreviations
 * (`--co`, `--o`, `--f`, `--t`), in `=` and separate forms and after operands (GNU sort permutes). Values of
 * `-k -o -S -t -T` are consumed as data (`sort -t o` is a separator), and scanning stops at an unconsumed `--`
 * (`sort -- --output=data` sorts a file with that name).
 */
const GRAMMAR: Grammar = {
  permute: true,
  // `-y` (an ignored legacy option with an optional attached value) is modelled as a plain flag: scanning the
  // rest of its cluster is the conservative reading.
  short: shortTable('bcCdfghik:mMno:rRsS:t:T:uVyz'),
  long: longTable(`
    ignore-leading-blanks:n check:o dictionary-order:n debug:n files0-from:r general-numeric-sort:n
    human-numeric-sort:n ignore-case:n ignore-nonprinting:n key:r merge:n month-sort:n numeric-sort:n output:r
    parallel:r random-sort:n random-source:r reverse:n sort:r stable:n buffer-size:r field-separator:r
    temporary-directory:r unique:n version-sort:n zero-terminated:n compress-program:r batch-size:r help:n
    version:n
  `),
};

const FORBIDDEN: Readonly<Record<string, { short?: string; rule: string; why: string }>> = {
  'compress-program': { rule: 'sort.helper-option', why: 'runs a program of its choosing to compress temporary files' },
  output: { short: 'o', rule: 'sort.output-file', why: 'writes to a path of its choosing' },
  'files0-from': { rule: 'sort.file-list', why: 'reads the list of input files from a file of its choosing' },
  'temporary-directory': { short: 'T', rule: 'sort.temp-dir', why: 'writes temporary files into a directory of its choosing' },
};

export const sortRule: FamilyRule = (args) => {
  for (const ev of scanOptions(args, GRAMMAR)) {
    if (ev.kind === 'short') {
      for (const [name, f] of Object.entries(FORBIDDEN)) {
        if (f.short === ev.letter) return deny('ARGUMENT_FORBIDDEN', f.rule, `sort -${ev.letter} (--${name}) is not allowed: it ${f.why}.`);
      }
    } else if (ev.kind === 'long') {
      for (const [name, f] of Object.entries(FORBIDDEN)) {
        if (couldMean(ev.typed, name, GRAMMAR.long)) {
          const spelled = ev.typed === name ? `--${name}` : `--${ev.typed} (which could mean --${name})`;
          return deny('ARGUMENT_FORBIDDEN', f.rule, `sort ${spelled} is not allowed: it ${f.why}.`);
        }
      }
    }
  }
  return allow('sort.ok');
};
