import { baseCommandName, familyOf } from './families';
import { judgeCommand } from './judge';
import { scanOptions, shortTable, longTable, type Grammar } from './getopt';

/**
 * Read-only mode's question: is this argv KNOWN to only read? In the style of OpenAI Codex's "known safe
 * commands": a fixed list of programs, each without its writing or executing flags; anything unknown is
 * false. An argv the argument rules deny is never read-only.
 *
 * Decisions:
 *  - find, sort and sed are read-only exactly when their rules allow them: the rules already deny every
 *    writing/executing form (find -delete/-exec/-fprint…, sort -o/-T/--compress-program, sed -i/w/W/e/r/R),
 *    and sed additionally runs with --sandbox;
 *  - awk, tar and xxd are never read-only here (too many ways to write);
 *  - uniq with at most one operand (its 2nd operand is an OUTPUT file);
 *  - git: status, log, diff, show, rev-parse, ls-files, ls-tree, blame, shortlog, describe, cat-file,
 *    rev-list, show-ref, grep, reflog (show), and branch/tag/remote/stash only in their listing forms;
 *  - date without -s/--set, hostname without operands, file without -C/--compile, rg without --pre.
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

const GIT_READ = new Set([
  'status', 'log', 'diff', 'show', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'annotate', 'shortlog', 'describe',
  'cat-file', 'rev-list', 'show-ref', 'grep', 'merge-base', 'name-rev', 'whatchanged', 'count-objects', 'version',
  'var', 'check-ignore', 'check-attr', 'diff-tree', 'diff-files', 'diff-index', 'for-each-ref', 'cherry',
]);

function gitIsReadOnly(args: readonly string[]): boolean {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    const t = args[i]!;
    i += t === '-C' || t === '--git-dir' || t === '--work-tree' || t === '--namespace' ? 2 : 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return false;
  if (rest.some((t) => t === '--ext-diff' || t.startsWith('--output'))) return false;
  if (GIT_READ.has(sub)) return true;
  const listingFlags = new Set(['-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '--list', '-l', '--color', '--no-color', '--show-current', '--column', '--no-column', '-i', '--ignore-case']);
  const listingValues = ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format'];
  switch (sub) {
    case 'branch':
    case 'tag': {
      const hasList = rest.includes('--list') || rest.includes('-l');
      for (let k = 0; k < rest.length; k++) {
        const t = rest[k]!;
        const name = t.split('=')[0]!;
        if (listingFlags.has(t)) continue;
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
      return rest.every((t) => t === '-v' || t === '--verbose') || (rest[0] === 'show' || rest[0] === 'get-url');
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

export function isKnownReadOnly(argv: readonly string[]): boolean {
  if (!Array.isArray(argv) || argv.length === 0) return false;
  if (judgeCommand(argv).kind !== 'allow') return false;
  const base = baseCommandName(argv[0]!);
  const family = familyOf(argv[0]!);
  const args = argv.slice(1);
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
    case 'uniq': {
      const operands = scanOptions(args, UNIQ).filter((e) => e.kind === 'operand');
      return operands.length <= 1;
    }
    case 'date':
      return !args.some((a) => a === '-s' || a.startsWith('--set') || (/^-[^-]/.test(a) && a.includes('s')));
    case 'hostname':
      return args.every((a) => a.startsWith('-') && !/^-(F|b|-file|-boot)/.test(a));
    case 'file':
      return !args.some((a) => a === '-C' || a.startsWith('--compile') || (/^-[^-]/.test(a) && a.includes('C')));
    case 'rg':
      return !args.some((a) => a === '--pre' || a.startsWith('--pre='));
    case 'tree':
      return !args.some((a) => a === '-o' || (/^-[^-]/.test(a) && a.includes('o')));
    default:
      return false;
  }
}
