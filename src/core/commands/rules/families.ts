/**
 * Which program family a command name belongs to. Rules are written per family, and every spelling that
 * starts the same program must reach the same rule: a path (`/usr/bin/find`), a Windows suffix (`tar.exe`),
 * another case on a case-insensitive file system (`/usr/bin/FIND` on macOS), a GNU/BSD alias (`gtar`,
 * `bsdtar`, `gawk`) or a versioned interpreter (`python3.12`, `perl5.36`).
 */

const WINDOWS_SUFFIX = /\.(exe|com|cmd|bat|ps1)$/i;

/** The last path component, without a Windows executable suffix, in lower case. */
export function baseCommandName(commandName: string): string {
  // Called for every name of every stage by every rule (several times per call): no regex split, no array.
  const cut = Math.max(commandName.lastIndexOf('/'), commandName.lastIndexOf('\\'));
  let base = cut >= 0 ? commandName.slice(cut + 1) : commandName;
  if (base.includes('.')) base = base.replace(WINDOWS_SUFFIX, '');
  return base.toLowerCase();
}

/** Exact aliases: names that are the same program (or a re-implementation with the same dangerous options). */
const ALIASES: Readonly<Record<string, string>> = {
  find: 'find',
  gfind: 'find',
  bfind: 'find',
  awk: 'awk',
  gawk: 'awk',
  mawk: 'awk',
  nawk: 'awk',
  'original-awk': 'awk',
  'onetrue-awk': 'awk',
  bwk: 'awk',
  goawk: 'awk',
  tar: 'tar',
  gtar: 'tar',
  bsdtar: 'tar',
  gnutar: 'tar',
  sort: 'sort',
  gsort: 'sort',
  sed: 'sed',
  gsed: 'sed',
  git: 'git',
  zip: 'zip',
  wget: 'wget',
  wget2: 'wget',
  openssl: 'openssl',
  curl: 'curl',
  rsync: 'rsync',
  openrsync: 'rsync',
};

/**
 * Interpreters that are installed under versioned names. The version part is digits and dots, optionally
 * followed by a build tag (`python3.12m`, `python3.12-dbg`, `ruby3.1`, `node22`, `lua5.4`, `perl5.36.0`).
 */
const VERSIONED = [
  'python',
  'pypy',
  'ipython',
  'jython',
  'perl',
  'ruby',
  'jruby',
  'irb',
  'node',
  'nodejs',
  'php',
  'php-cgi',
  'lua',
  'luajit',
  'tclsh',
  'wish',
  'pwsh',
  'bash',
  'zsh',
  'ksh',
  'mksh',
  'tcsh',
  'fish',
  'deno',
  'bun',
  'rscript',
  'expect',
  'gawk',
  'mawk',
] as const;
const VERSIONED_RE = new RegExp(`^(${VERSIONED.map((n) => n.replace(/[-]/g, '\\-')).join('|')})(-?\\d[\\d.]*([a-z]|-dbg|-debug)?)?$`);

/**
 * The family of a command name, or undefined when the name belongs to no family we know. Families are the
 * rule families (find, awk, tar, sort, sed, git) and the interpreter families judged by name (python, perl …).
 */
/**
 * Compiler drivers: gcc, g++, cc, c++, cpp (the preprocessor driver takes the same -B/-wrapper/-specs), clang,
 * clang++, with versions (gcc-12, clang-17) and target prefixes (x86_64-linux-gnu-gcc-12).
 */
const CC_RE = /^([a-z0-9_]+-)*(gcc|g\+\+|cc|c\+\+|cpp|clang|clang\+\+)(-\d+(\.\d+)*)?$/;
/** The programs the drivers forward to, called directly: linkers (GNU ld, gold, lld, mold) and assemblers. */
const LD_RE = /^([a-z0-9_]+-)*(ld|ld\.bfd|ld\.gold|ld\.lld|ld\.mold|ld64\.lld|lld|gold|mold|collect2)(-\d+(\.\d+)*)?$/;
const AS_RE = /^([a-z0-9_]+-)*(as|gas)(-\d+(\.\d+)*)?$/;
/** binutils' archive and symbol tools, which load BFD plugins (gcc-ar, llvm-nm, x86_64-linux-gnu-ar, nm-2.40 …). */
const BINUTILS_RE = /^([a-z0-9_]+-)*(ar|nm|ranlib)(-\d+(\.\d+)*)?$/;

export function familyOf(commandName: string): string | undefined {
  return memo(familyMemo, commandName, familyOfUncached);
}

function familyOfUncached(commandName: string): string | undefined {
  const base = baseCommandName(commandName);
  if (base === '') return undefined;
  const alias = ALIASES[base];
  if (alias) return alias;
  if (CC_RE.test(base)) return 'cc';
  if (LD_RE.test(base)) return 'ld';
  if (AS_RE.test(base)) return 'as';
  if (BINUTILS_RE.test(base)) return 'binutils';
  const m = VERSIONED_RE.exec(base);
  if (m) {
    const fam = m[1]!;
    return ALIASES[fam] ?? fam;
  }
  return undefined;
}

/**
 * A bounded memo for the name classifications (pure functions of the name and this module's constant tables):
 * every rule asks them again for the same two or three names of a stage, several times per call.
 */
export function memo<T>(table: Map<string, T>, key: string, compute: (key: string) => T): T {
  if (table.has(key)) return table.get(key) as T;
  const value = compute(key);
  if (table.size >= 512) table.clear();
  table.set(key, value);
  return value;
}

const familyMemo = new Map<string, string | undefined>();
