import { describe, expect, it } from 'vitest';
import { judgeCallEnv } from '../../../src/core/commands/callEnv';
import { FORBIDDEN_CATEGORIES, isKnownReadOnly, judgeCommand } from '../../../src/core/commands/rules';
import { mulberry32 } from '../../helpers/prng';

/**
 * Property tests for issue 13's classes (deterministic, seeded): generated spellings — clusters, attached and
 * `=` values, unique and ambiguous abbreviations, positions after operands, aliases — are always denied, and
 * harmless generated argv of the same shape are allowed (so the rule is not simply "deny everything").
 */

const RUNS = 1500;
interface Gen {
  readonly rnd: () => number;
  pick<T>(xs: readonly T[]): T;
  int(n: number): number;
}
function gen(seed: number): Gen {
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  return { rnd, int, pick: <T,>(xs: readonly T[]): T => xs[int(xs.length)]! };
}
const prefixOf = (g: Gen, name: string, min: number) => name.slice(0, min + g.int(name.length - min + 1));
const cluster = (g: Gen, flags: readonly string[], n = 3) => Array.from({ length: g.int(n) }, () => g.pick(flags)).join('');
function insertAt<T>(g: Gen, xs: readonly T[][], x: T[]): T[] {
  const at = g.int(xs.length + 1);
  return [...xs.slice(0, at), x, ...xs.slice(at)].flat();
}

/** Runs `make` RUNS times; every bad argv must be denied (with `rule` when given), and most harmless ones allowed. */
function property(make: (g: Gen) => { argv: string[]; bad: boolean }, seed: number, rule?: RegExp): void {
  const g = gen(seed);
  let bad = 0;
  let good = 0;
  let goodAllowed = 0;
  for (let n = 0; n < RUNS; n++) {
    const { argv, bad: isBad } = make(g);
    const v = judgeCommand(argv);
    if (isBad) {
      bad++;
      if (v.kind !== 'deny' || (rule && !rule.test(v.rule))) throw new Error(`not denied as expected: ${JSON.stringify(argv)} -> ${v.rule}`);
    } else {
      good++;
      if (v.kind === 'allow') goodAllowed++;
    }
  }
  expect(bad).toBeGreaterThan(RUNS / 3);
  expect(goodAllowed).toBe(good);
}

describe('generated spellings of the bypass classes are always denied', () => {
  it('tar side files: --index-file, -g/--listed-incremental, --volno-file in every spelling and position', () => {
    const harmless = [['-v'], ['-z'], ['-f', 'a.tar'], ['-fa.tar'], ['-C', 'dir'], ['--file=x.tar'], ['src'], ['--exclude', '*.o'], ['--numeric-owner']];
    const longs: [string, number][] = [['index-file', 3], ['listed-incremental', 5], ['volno-file', 3]];
    property((g) => {
      const units = [['-c'], ...Array.from({ length: g.int(5) }, () => g.pick(harmless))];
      const bad = g.rnd() < 0.7;
      if (!bad) return { argv: ['tar', ...units.flat()], bad };
      const kind = g.int(4);
      let unit: string[];
      if (kind === 0) {
        const [name, min] = g.pick(longs);
        const typed = prefixOf(g, name, min);
        unit = g.rnd() < 0.5 ? [`--${typed}=side`] : [`--${typed}`, 'side'];
      } else if (kind === 1) {
        const pre = cluster(g, ['c', 'v', 'z', 'j', 'p']);
        unit = g.rnd() < 0.5 ? [`-${pre}g`, 'side'] : [`-${pre}gside`];
      } else if (kind === 2) {
        return { argv: ['tar', `${g.pick(['c', 'x', 't'])}${cluster(g, ['v', 'z'])}g`, 'side', ...units.slice(1).filter((u) => !u[0]!.startsWith('-')).flat()], bad };
      } else {
        unit = ['-W', `${prefixOf(g, 'index-file', 2)}=side`];
        return { argv: ['bsdtar', ...insertAt(g, units, unit)], bad };
      }
      return { argv: ['tar', ...insertAt(g, units, unit)], bad };
    }, 1301, /^tar\.side-file$/);
  });

  it('zip: T anywhere in a short cluster, --test/--unzip-command prefixes', () => {
    const harmless = [['-r'], ['-q'], ['-9'], ['-x', '*.o'], ['-b', 'tmp'], ['out.zip'], ['dir'], ['--recurse-paths']];
    property((g) => {
      const units = Array.from({ length: 1 + g.int(4) }, () => g.pick(harmless));
      const bad = g.rnd() < 0.7;
      if (!bad) return { argv: ['zip', ...units.flat()], bad };
      const unit = g.pick([
        [`-${cluster(g, ['q', 'r', 'v', '9'])}T${cluster(g, ['q', 'r'])}`],
        [`-${cluster(g, ['q', 'r'])}TT`, 'cmd'],
        [`-TT=${g.pick(['cmd', 'sh -c x'])}`],
        [`--${prefixOf(g, 'unzip-command', 1)}`, 'cmd'],
        [`--${prefixOf(g, 'unzip-command', 1)}=cmd`],
        [`--${prefixOf(g, 'test', 2)}`],
      ]);
      return { argv: ['zip', ...insertAt(g, units, unit)], bad };
    }, 1302, /^zip\.test-command$/);
  });

  it('git: dashed programs and git-core paths carry the git rules; remote helpers, templates, side outputs', () => {
    const gitCore = ['/usr/lib/git-core', '/usr/libexec/git-core', '/opt/homebrew/opt/git/libexec/git-core'];
    property((g) => {
      const bad = g.rnd() < 0.7;
      const via = g.int(3); // 0: git SUB, 1: git-SUB, 2: /…/git-core/git-SUB
      const run = (sub: string, args: string[]) => (via === 0 ? ['git', sub, ...args] : via === 1 ? [`git-${sub}`, ...args] : [`${g.pick(gitCore)}/git-${sub}`, ...args]);
      if (!bad) return { argv: run(g.pick(['log', 'status', 'diff', 'show']), g.pick([['--oneline'], ['-p', '-1'], ['--stat'], []])), bad };
      switch (g.int(7)) {
        case 0:
          return { argv: run('grep', [`-${cluster(g, ['n', 'i', '1'])}O${g.pick(['', 'P'])}`, 'x']), bad };
        case 1:
          return { argv: run('rebase', [`-${cluster(g, ['q', 'v'])}x`, 'sh', 'main']), bad };
        case 2:
          return { argv: run(`remote-${g.pick(['ext', 'fd', 'http', 'x'])}`, ['origin', 'sh -c id']), bad };
        case 3:
          return { argv: run(g.pick(['init', 'clone']), [g.rnd() < 0.5 ? `--${prefixOf(g, 'template', 1)}=t` : `--${prefixOf(g, 'separate-git-dir', 2)}=d`, 'u', 'd']), bad };
        case 4:
          return { argv: run(g.pick(['archive', 'format-patch']), [`-${cluster(g, ['v', 'k', 'q'])}o${g.pick(['', 'x'])}`, 'HEAD']), bad };
        case 5:
          return { argv: run(g.pick(['log', 'diff', 'show', 'format-patch']), [`--${prefixOf(g, g.pick(['output', 'output-directory']), 2)}=x`]), bad };
        default:
          return { argv: run(g.pick(['fetch', 'clone', 'push', 'ls-remote', 'pull']), [`${g.pick(['ext', 'fd', 'foo', 'x-y'])}::${g.pick(['sh -c id', '3', 'addr'])}`]), bad };
      }
    }, 1303);
  });

  it('never-runnable programs under their aliases: dotted variants, loader names, /proc and /dev paths', () => {
    const forbidden = [...FORBIDDEN_CATEGORIES.shell.filter((n) => /^[a-z]/.test(n)), 'vim', 'vi', 'nano', 'emacs', 'python3', 'perl', 'node', 'editor'];
    property((g) => {
      const bad = g.rnd() < 0.7;
      if (!bad) return { argv: [g.pick(['ls', 'cat', '/usr/bin/wc', 'mkfs.ext4', 'which.debianutils', 'x-y.z']), '-a'], bad };
      switch (g.int(4)) {
        case 0:
          return { argv: [`${g.pick(['', '/usr/bin/', '/bin/'])}${g.pick(forbidden)}.${g.pick(['basic', 'tiny', 'nox', 'gtk3', 'distrib', 'real'])}`], bad };
        case 1:
          return { argv: [`${g.pick(['/lib64/', '/lib/', '/usr/lib/x86_64-linux-gnu/', ''])}${g.pick(['ld-linux-x86-64.so.2', 'ld-linux.so.2', 'ld-linux-aarch64.so.1', 'ld-musl-x86_64.so.1', 'ld.so', 'ld-2.31.so', 'ld64.so.2', 'ld.so.1'])}`, '/bin/sh'], bad };
        case 2:
          return { argv: [`${g.pick(['/', '//', '/./', '/../'])}proc/${g.pick(['self', 'thread-self', String(1 + g.int(99999))])}/${g.pick(['exe', 'fd/3', 'root/bin/ls', 'cwd/x'])}`], bad };
        default:
          return { argv: [`/dev/${g.pick(['fd/3', 'stdin', 'shm/x'])}`], bad };
      }
    }, 1304, /^forbidden\./);
  });

  it('awk: a hidden pipe or system after a word where some awk reads a regex and another a division', () => {
    // After these words at least one awk reads a regex (see awkProgram.ts); after NF or a variable none does.
    const words = ['case', 'length', 'x++', 'y--', 'exit', 'return'];
    const hazards = ['"id" | getline z', 'print | "sh"', 'print > "/tmp/x"', 'getline w < "/etc/passwd"', 'printf("x") >> "f"'];
    property((g) => {
      const bad = g.rnd() < 0.7;
      const w = g.pick(words);
      if (!bad) return { argv: ['awk', g.rnd() < 0.5 ? `{ if (0) ${g.pick(['NF', 'n', '$1', '(x)'])} / "/ ; print > \"/tmp/x\" ; #"\n }` : `{ x = ${g.pick(['NF', 'n'])} / 2; print ${g.pick(['$1', 'NR', 'length', '"a/b"'])} }`], bad };
      const ws = ' '.repeat(g.int(3));
      return { argv: [g.pick(['awk', 'mawk', 'gawk', 'nawk', 'original-awk']), `function f(a) { if (0) ${w}${ws}/${ws}"/ ; ${g.pick(hazards)} ; #"\n ; return 1 } { f(1) }`], bad };
    }, 1305, /^awk\./);
  });
});

describe('generated abbreviations of the read-only table', () => {
  it('date --set, hostname --file/--boot, file --compile/--preserve-date are never read-only in any spelling', () => {
    const g = gen(1306);
    for (let n = 0; n < RUNS; n++) {
      const [prog, name, min, short] = g.pick<[string, string, number, string]>([['date', 'set', 1, 's'], ['hostname', 'file', 2, 'F'], ['hostname', 'boot', 1, 'b'], ['file', 'compile', 3, 'C'], ['file', 'preserve-date', 2, 'p']]);
      const harmless = prog === 'date' ? ['-u', '+%s'] : prog === 'hostname' ? ['-f'] : ['-b', 'x'];
      const bad = g.pick([[`--${prefixOf(g, name, min)}=v`], [`--${prefixOf(g, name, min)}`, 'v'], [`-${cluster(g, prog === 'date' ? ['u', 'R'] : ['s', 'v'])}${short}`, 'v']]);
      const argv = [prog, ...(g.rnd() < 0.5 ? [...harmless, ...bad] : [...bad, ...harmless])];
      if (isKnownReadOnly(argv)) throw new Error(`treated as read-only: ${JSON.stringify(argv)}`);
    }
  });
});

describe('per-call TAR_OPTIONS is judged like argv', () => {
  it('every helper or side-file spelling in TAR_OPTIONS is refused', () => {
    const g = gen(1307);
    for (let n = 0; n < RUNS; n++) {
      const words = g.pick([
        [`--${prefixOf(g, 'to-command', 4)}=x`], [`--${prefixOf(g, 'use-compress-program', 2)}=x`], [`-${cluster(g, ['v', 'z'])}I`, 'x'],
        [`--${prefixOf(g, 'index-file', 3)}=x`], [`-${cluster(g, ['v'])}g`, 'x'], [`--${prefixOf(g, 'checkpoint-action', 11)}=exec=x`],
      ]);
      const value = [...(g.rnd() < 0.5 ? ['-v'] : []), ...words, ...(g.rnd() < 0.5 ? ['--numeric-owner'] : [])].join(' ');
      expect(judgeCallEnv({ TAR_OPTIONS: value }, '/ws')?.kind).toBe('deny');
    }
  });
});
