import { baseCommandName, familyOf } from './families';
import { couldMean, longTable, scanOptions, shortTable, type Grammar, type OptionEvent } from './getopt';
import { gitLocation } from './git';
import type { Verdict } from '../../verdict';
import { judgeCommand, namesToJudge, type JudgeOptions } from './judge';

/**
 * Read-only mode's question: is this argv KNOWN to only read? In the style of OpenAI Codex's "known safe
 * commands": a fixed list of programs, each without its writing or executing options; anything unknown is
 * false. An argv the argument rules deny is never read-only. Every name of the program (as called, the path
 * found, its realpath; see judge.ts namesToJudge) must be read-only for these arguments, and options are read
 * with each program's own grammar (clusters, attached values, unique and ambiguous abbreviations), so
 * `date --s=…`, `hostname --fi=…` and `file --comp` are what the program reads them as.
 *
 * Decisions:
 *  - find, sort and sed are read-only exactly when their rules allow them: the rules already deny every
 *    writing/executing form (find -delete/-exec/-fprint…, sort -o/-T/--compress-program, sed -i/w/W/e/r/R),
 *    and sed additionally runs with --sandbox;
 *  - awk, tar and xxd are never read-only here (too many ways to write);
 *  - uniq with at most one operand (its 2nd operand is an OUTPUT file);
 *  - git: the listing/reading subcommands, run with configuration-driven programs switched off (gitHarden.ts),
 *    and never with --ext-diff, --textconv, --filters, --show-signature or a %G format (gpg);
 *  - date with only +FORMAT operands and no -s/--set; hostname with no operand and no -F/--file/-b/--boot;
 *    file without -C/--compile or -p/--preserve-date; tree without -o or -R; rg without --pre/--hostname-bin.
 */

const PLAIN = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'cut', 'tr', 'echo', 'pwd', 'diff', 'cmp', 'comm',
  'stat', 'du', 'df', 'uname', 'whoami', 'id', 'groups', 'seq', 'basename', 'dirname', 'realpath', 'readlink',
  'printf', 'nl', 'tac', 'rev', 'fold', 'expand', 'unexpand', 'od', 'paste', 'join', 'true', 'false', 'which',
  'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'b2sum', 'cksum', 'sum', 'test', 'column', 'numfmt', 'lsblk',
]);

const UNIQ: Grammar = {
  permute: true,
  short: shortTable('cdDf:is:uw:z'),
  long: longTable('count:n repeated:n all-repeated:o skip-fields:r ignore-case:n skip-chars:r unique:n zero-terminated:n check-chars:r group:o help:n version:n'),
};

/** GNU date (coreutils 9); BSD date's -f/-v/-j take values or are flags, and its operand also sets the clock. */
const DATE: Grammar = {
  permute: true,
  short: shortTable('d:f:I::r:Rs:uv:jn'),
  long: longTable('date:r debug:n file:r iso-8601:o resolution:n rfc-email:n rfc-822:n rfc-2822:n rfc-3339:r reference:r set:r universal:n utc:n uct:n help:n version:n'),
};

/** hostname (net-tools, inetutils, BSD): an operand sets the name; -F/--file and -b/--boot set it from a file. */
const HOSTNAME: Grammar = {
  permute: true,
  short: shortTable('aAbdfF:hiIsvVyn'),
  long: longTable('alias:n all-fqdns:n all-ip-addresses:n boot:n domain:n file:r fqdn:n long:n help:n ip-address:n nis:n node:n short:n verbose:n version:n yp:n'),
};

/** file (5.4x): -C/--compile writes a .mgc file; -p/--preserve-date writes access times back. */
const FILE: Grammar = {
  permute: true,
  short: shortTable('bcCdEe:f:F:hiklLm:nNprsSvzZ0P:'),
  long: longTable(`
    apple:n brief:n checking-printout:n compile:n debug:n exclude:r exclude-quiet:r extension:n files-from:r
    separator:r help:n mime:n mime-type:n mime-encoding:n keep-going:n list:n dereference:n magic-file:r
    no-dereference:n no-pad:n no-buffer:n preserve-date:n parameter:r raw:n special-files:n no-sandbox:n
    uncompress:n uncompress-noreport:n version:n print0:n
  `),
};

/** True when an option event is one of the writing options (short letters, long names in any abbreviation). */
function hits(events: readonly OptionEvent[], g: Grammar, shorts: string, longs: readonly string[]): boolean {
  return events.some(
    (e) => (e.kind === 'short' && (shorts.includes(e.letter) || !e.known)) || (e.kind === 'long' && (longs.some((l) => couldMean(e.typed, l, g.long)) || !e.resolved)),
  );
}

const GIT_READ = new Set([
  'status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'annotate', 'shortlog', 'describe',
  'cat-file', 'rev-list', 'show-ref', 'grep', 'merge-base', 'name-rev', 'whatchanged', 'count-objects', 'version',
  'var', 'check-ignore', 'check-attr', 'diff-tree', 'diff-files', 'diff-index', 'for-each-ref', 'cherry',
]);

/** Argument forms that make a reading git subcommand run a program: external diff, textconv, filters, gpg. */
function gitRunsProgram(rest: readonly string[]): boolean {
  return rest.some((t) => {
    if (t === '--') return false;
    // Signature placeholders run gpg.program: %G? in pretty formats, %(signature…) in ref-filter formats.
    if (t.includes('%G') || t.includes('%(signature')) return true;
    if (!t.startsWith('--')) return false;
    const typed = t.slice(2).split('=')[0]!;
    if (typed === '') return false;
    // Any prefix counts (an abbreviation in a git version that accepts one is still that option).
    return ['ext-diff', 'textconv', 'filters', 'show-signature', 'output', 'output-directory', 'help', 'open-files-in-pager'].some((name) => name.startsWith(typed));
  });
}

function gitIsReadOnly(args: readonly string[]): boolean {
  const loc = gitLocation(args);
  if (!loc || loc.sub === undefined) return false;
  const { sub, rest } = loc;
  if (gitRunsProgram(rest)) return false;
  // describe --dirty/--broken refreshes and rewrites the index (git ignores --no-optional-locks there).
  if (sub === 'describe' && rest.some((t) => t.startsWith('--d') || t.startsWith('--b'))) return false;
  if (GIT_READ.has(sub)) return true;
  const listingValues = ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'];
  switch (sub) {
    case 'branch':
    case 'tag': {
      // `tag -v` verifies (runs gpg); for branch it is --verbose.
      const flags = new Set(['-a', '--all', '-r', '--remotes', '--list', '-l', '--color', '--no-color', '--show-current', '--column', '--no-column', '-i', '--ignore-case', ...(sub === 'branch' ? ['-v', '-vv', '--verbose'] : [])]);
      const hasList = rest.includes('--list') || rest.includes('-l');
      for (let k = 0; k < rest.length; k++) {
        const t = rest[k]!;
        const name = t.split('=')[0]!;
        if (flags.has(t) || (sub === 'tag' && /^-n\d*$/.test(t))) continue;
        if (listingValues.includes(name)) {
          if (!t.includes('=')) k++;
          continue;
        }
        if (!t.startsWith('-') && hasList) continue; // patterns of --list
        return false;
      }
      return true;
    }
    case 'remote':
      // `remote show NAME` asks the remote (network, ssh, helpers) unless -n is given.
      return rest.every((t) => t === '-v' || t === '--verbose') || rest[0] === 'get-url' || (rest[0] === 'show' && rest.includes('-n'));
    case 'stash':
      return rest[0] === 'list' || rest[0] === 'show';
    case 'reflog':
      return rest.length === 0 || rest[0] === 'show';
    case 'config':
      return true; // the git rule allows only reading forms of git config
    default:
      return false;
  }
}

/** Is this argv read-only when run by a program with this (base) name? */
function readOnlyAs(base: string, name: string, args: readonly string[]): boolean {
  const family = familyOf(name);
  switch (family) {
    case 'find':
    case 'sort':
    case 'sed':
      return true; // allowed by their rules, which deny every writing/executing form (see above)
    case 'git':
      return gitIsReadOnly(args);
    case 'awk':
    case 'tar':
      return false;
  }
  if (PLAIN.has(base)) return true;
  switch (base) {
    case 'uniq':
      return scanOptions(args, UNIQ).filter((e) => e.kind === 'operand').length <= 1;
    case 'date': {
      const events = scanOptions(args, DATE);
      return !hits(events, DATE, 's', ['set']) && events.every((e) => e.kind !== 'operand' || e.value.startsWith('+'));
    }
    case 'hostname': {
      const events = scanOptions(args, HOSTNAME);
      return !hits(events, HOSTNAME, 'Fb', ['file', 'boot']) && events.every((e) => e.kind !== 'operand');
    }
    case 'file':
      return !hits(scanOptions(args, FILE), FILE, 'Cp', ['compile', 'preserve-date']);
    case 'rg':
      return !args.some((a) => a === '--pre' || a.startsWith('--pre=') || a.startsWith('--hostname-bin'));
    case 'tree':
      // tree reads `-` words letter by letter; -o FILE writes, -R re-runs itself writing 00Tree.html files.
      return !args.some((a) => (/^-[^-]/.test(a) && /[oR]/.test(a)) || a.startsWith('--o'));
    default:
      return false;
  }
}

export function isKnownReadOnly(argv: readonly string[], options: JudgeOptions = {}): boolean {
  if (!Array.isArray(argv) || argv.length === 0) return false;
  return isKnownReadOnlyJudged(argv, options, judgeCommand(argv, options));
}

/**
 * isKnownReadOnly for a stage whose verdict `judgeCommand(argv, options)` the caller already holds (decide.ts
 * judges every stage by all its names once and uses that one verdict for the checks and for this question).
 */
export function isKnownReadOnlyJudged(argv: readonly string[], options: JudgeOptions, judged: Verdict): boolean {
  if (!Array.isArray(argv) || argv.length === 0) return false;
  if (judged.kind !== 'allow') return false;
  const args = argv.slice(1);
  return namesToJudge(argv[0]!, options.aliases).every((name) => {
    const base = baseCommandName(name);
    if (readOnlyAs(base, name, args)) return true;
    // Debian variants (`which.debianutils`) are the program before the dot.
    const dot = base.indexOf('.');
    return dot > 0 && familyOf(name) === undefined && readOnlyAs(base.slice(0, dot), base.slice(0, dot), args);
  });
}
