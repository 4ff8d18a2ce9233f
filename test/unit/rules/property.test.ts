import { describe, expect, it } from 'vitest';
import { FAMILY_RULES, judgeCommand } from '../../../src/core/commands/rules';
import { mulberry32 } from '../../helpers/prng';

/**
 * Property-style tests: thousands of generated argv per family (deterministic, seeded). Every argv is built
 * from "units" — an option together with the value it consumes, or an operand — so a forbidden option
 * inserted BETWEEN units is, by construction, read as an option by the program. Checked:
 *  1. the rule never throws, whatever the argv (also for random junk);
 *  2. every argv with a forbidden option in a form the program accepts is denied.
 */

type Unit = readonly string[];
interface Gen {
  readonly rnd: () => number;
  pick<T>(xs: readonly T[]): T;
  int(n: number): number;
  units(pool: readonly Unit[], max: number): string[][];
}
function gen(seed: number): Gen {
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T,>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { rnd, int, pick, units: (pool, max) => Array.from({ length: int(max + 1) }, () => [...pick(pool)]) };
}

/** A non-empty prefix of `name` at least `min` long (unique in the program's table when min is chosen so). */
const prefixOf = (g: Gen, name: string, min: number) => name.slice(0, min + g.int(name.length - min + 1));

/** Inserts a forbidden unit at a random unit boundary (from `from` on) and flattens. */
function insertAt(g: Gen, units: string[][], bad: Unit, from = 0): string[] {
  const at = from + g.int(units.length - from + 1);
  return [...units.slice(0, at), [...bad], ...units.slice(at)].flat();
}

const RUNS = 2500;
const JUNK = ['-', '--', '-x', '--x', '=', '-=', '--=', 'a', '-I', '-O', '-o', '-c', '-e', '-f', '-W', '--to', '--exec', '(', ')', ';', '+', '-1', '--smtp-server', '--sendmail-cmd', 's/a/b/e', '{system("x")}', 'ext::x', '\\', '"', "'", '@', '|', '>'];

describe('every family rule is total', () => {
  for (const [family, rule] of Object.entries(FAMILY_RULES)) {
    it(`${family}: never throws on ${RUNS} random junk argv`, () => {
      const g = gen(family.length * 7919);
      for (let n = 0; n < RUNS; n++) {
        const argv = Array.from({ length: g.int(9) }, () => (g.rnd() < 0.7 ? g.pick(JUNK) : g.pick(JUNK) + g.pick(JUNK)));
        expect(() => rule(argv, family)).not.toThrow();
        expect(() => judgeCommand([family, ...argv])).not.toThrow();
      }
    });
  }
});

function checkDenied(name: string, make: (g: Gen) => { argv: string[]; bad: boolean }, seed: number): void {
  const g = gen(seed);
  let positives = 0;
  for (let n = 0; n < RUNS; n++) {
    const { argv, bad } = make(g);
    const v = judgeCommand([name, ...argv]);
    if (bad) {
      positives++;
      if (v.kind !== 'deny') throw new Error(`not denied: ${JSON.stringify([name, ...argv])}`);
      expect(v.code).toBe('ARGUMENT_FORBIDDEN');
    }
  }
  expect(positives).toBeGreaterThan(RUNS / 3);
}

describe('generated forbidden spellings are always denied', () => {
  it('tar: helper options in every accepted spelling, position and grammar', () => {
    const harmless: Unit[] = [['-c'], ['-v'], ['-z'], ['-xj'], ['-f', 'a.tar'], ['-fa.tar'], ['-C', 'dir'], ['--checkpoint=5'], ['--file=x.tar'], ['--directory', 'd'], ['--to-stdout'], ['src'], ['b.txt'], ['--exclude', '*.o'], ['-T', 'list']];
    const clusterFlags = ['c', 't', 'x', 'v', 'z', 'j', 'J', 'k', 'm', 'O', 'p', 'U', 'w', 'P'];
    const longs: [string, number][] = [['checkpoint-action', 11], ['use-compress-program', 2], ['to-command', 4], ['rsh-command', 2], ['rmt-command', 2], ['info-script', 3], ['new-volume-script', 4]];
    checkDenied('tar', (g) => {
      // The first word starts with a dash: a first word without one is an old-style option cluster (kind 2).
      const units = [['-c'], ...g.units(harmless, 5)];
      const bad = g.rnd() < 0.75;
      if (!bad) return { argv: units.flat(), bad };
      const kind = g.int(4);
      if (kind === 0) {
        const [name, min] = g.pick(longs);
        const typed = prefixOf(g, name, min);
        return { argv: insertAt(g, units, g.rnd() < 0.5 ? [`--${typed}=prog`] : [`--${typed}`, 'prog']), bad };
      }
      if (kind === 1) {
        const letter = g.pick(['I', 'F']);
        const pre = Array.from({ length: g.int(3) }, () => g.pick(clusterFlags)).join('');
        return { argv: insertAt(g, units, g.rnd() < 0.5 ? [`-${pre}${letter}`, 'prog'] : [`-${pre}${letter}prog`]), bad };
      }
      if (kind === 2) {
        // old-style first word: letters, values appended in order (f takes the archive)
        const letters = [g.pick(['c', 'x', 't']), ...(g.rnd() < 0.5 ? ['v'] : []), g.pick(['I', 'F'])];
        if (g.rnd() < 0.5) letters.push('f');
        const shuffled = letters.sort(() => g.rnd() - 0.5);
        const values = shuffled.filter((l) => l === 'I' || l === 'F' || l === 'f').map((l) => (l === 'f' ? 'a.tar' : 'prog'));
        return { argv: [shuffled.join(''), ...values, ...units.filter((u) => u.length === 1 && !u[0]!.startsWith('-')).flat()], bad };
      }
      return { argv: insertAt(g, units, g.rnd() < 0.5 ? ['-W', `${prefixOf(g, 'use-compress-program', 1)}=prog`] : [`-W${prefixOf(g, 'use-compress-program', 1)}=prog`]), bad };
    }, 101);
  });

  it('sort: -o/-T/--output/--compress-program/--files0-from/--temporary-directory', () => {
    const harmless: Unit[] = [['-r'], ['-n'], ['-k', '2'], ['-k2,2'], ['-t', ','], ['-t,'], ['-S', '10M'], ['--reverse'], ['--key=1'], ['--key', '1'], ['a.txt'], ['-rn'], ['-u'], ['--stable']];
    const flags = ['b', 'd', 'f', 'g', 'i', 'M', 'n', 'r', 'R', 's', 'u', 'V', 'z'];
    const longs: [string, number][] = [['output', 1], ['compress-program', 2], ['files0-from', 3], ['temporary-directory', 1]];
    checkDenied('sort', (g) => {
      const units = g.units(harmless, 5);
      const bad = g.rnd() < 0.75;
      if (!bad) return { argv: units.flat(), bad };
      if (g.rnd() < 0.5) {
        const [name, min] = g.pick(longs);
        const typed = prefixOf(g, name, min);
        return { argv: insertAt(g, units, g.rnd() < 0.5 ? [`--${typed}=x`] : [`--${typed}`, 'x']), bad };
      }
      const pre = Array.from({ length: g.int(3) }, () => g.pick(flags)).join('');
      const letter = g.pick(['o', 'T']);
      return { argv: insertAt(g, units, g.rnd() < 0.5 ? [`-${pre}${letter}`, 'x'] : [`-${pre}${letter}x`]), bad };
    }, 202);
  });

  it('sed: -i/-f/--in-place/--file/--follow-symlinks and e/r/R/w/W in scripts', () => {
    const harmless: Unit[] = [['-n'], ['-E'], ['-s'], ['-e', 'p'], ['--posix'], ['-l', '5'], ['f.txt'], ['-u'], ['--expression=s/a/b/g']];
    const flags = ['n', 'E', 'r', 's', 'u', 'z'];
    const hazards = ['e id', '1e', 's/a/b/e', 's/a/b/gw out', 'w out', 'W out', 'r /etc/passwd', 'R x', '/x/!e', '$ {p;e\n}', 'p;w x', 'y/a/b/;e'];
    checkDenied('sed', (g) => {
      const units = g.units(harmless, 4);
      const bad = g.rnd() < 0.75;
      if (!bad) return { argv: units.flat(), bad };
      const kind = g.int(4);
      if (kind === 0) return { argv: insertAt(g, units, ['-e', g.pick(hazards)]), bad };
      if (kind === 1) {
        const pre = Array.from({ length: g.int(3) }, () => g.pick(flags)).join('');
        return { argv: insertAt(g, units, g.pick([[`-${pre}i`], [`-${pre}i.bak`], [`-${pre}f`, 'x.sed'], [`-${pre}fx.sed`]])), bad };
      }
      const [name, min] = g.pick<[string, number]>([['in-place', 1], ['file', 3], ['follow-symlinks', 2]]);
      const typed = prefixOf(g, name, min);
      return { argv: insertAt(g, units, name === 'file' && g.rnd() < 0.5 ? [`--${typed}`, 'x.sed'] : [`--${typed}${name === 'file' ? '=x.sed' : ''}`]), bad };
    }, 303);
  });

  it('awk: forbidden options before the program and hazards inside it', () => {
    const harmless: Unit[] = [['-F', ','], ['-F:'], ['-v', 'x=1'], ['-vx=2'], ['--assign=y=3'], ['--field-separator', ';'], ['-b'], ['-n']];
    const flags = ['b', 'c', 'n', 'r', 's', 't', 'P', 'M'];
    const programs = ['BEGIN{system("id")}', '{print | "sh"}', '{print > "out"}', '{printf("%s", $0) >> "out"}', 'BEGIN{"id" | getline x}', '@include "x"', 'BEGIN{@f()}'];
    checkDenied('awk', (g) => {
      const units = g.units(harmless, 4);
      const bad = g.rnd() < 0.75;
      if (!bad) return { argv: [...units.flat(), '{print $1}', 'data'], bad };
      if (g.rnd() < 0.4) return { argv: [...units.flat(), g.pick(programs), 'data'], bad };
      const pre = Array.from({ length: g.int(3) }, () => g.pick(flags)).join('');
      const short = g.pick(['f', 'e', 'E', 'i', 'l', 'W']);
      const [name, min] = g.pick<[string, number]>([['file', 3], ['source', 2], ['exec', 2], ['include', 2], ['load', 2]]);
      const bad1 = g.rnd() < 0.5 ? [`-${pre}${short}`, 'x'] : g.rnd() < 0.5 ? [`--${prefixOf(g, name, min)}=x`] : [`--${prefixOf(g, name, min)}`, 'x'];
      return { argv: [...insertAt(g, units, bad1), '{print}', 'data'], bad };
    }, 404);
  });

  it('find: every forbidden primary between expression units', () => {
    const harmless: Unit[] = [['-name', '*.ts'], ['-type', 'f'], ['-maxdepth', '2'], ['-print'], ['!'], ['-o'], ['-newermt', '2020-01-01'], ['-path', '-exec'], ['-iname', '-delete'], ['-size', '+1k']];
    const bads: Unit[] = [['-exec', 'id', ';'], ['-execdir', 'id', '+'], ['-ok', 'id', ';'], ['-okdir', 'id', ';'], ['-delete'], ['-fprint', 'x'], ['-fprint0', 'x'], ['-fprintf', 'x', '%p'], ['-fls', 'x']];
    checkDenied('find', (g) => {
      const units = [['.'], ...g.units(harmless, 5)];
      const bad = g.rnd() < 0.75;
      return { argv: bad ? insertAt(g, units, g.pick(bads), 1) : units.flat(), bad };
    }, 505);
  });

  it('git: -c overrides, grep -O, rebase -x, push --exec and send-email selectors', () => {
    const globals: Unit[] = [['-C', 'dir'], ['--git-dir=x'], ['--git-dir', '-c'], ['-p'], ['--no-pager'], ['--bare'], ['--work-tree', 'w']];
    const grepOpts: Unit[] = [['-n'], ['-i'], ['-e', '-O'], ['-epat'], ['-C', '2'], ['--max-depth', '1'], ['-A1'], ['-w'], ['--and'], ['-f', 'pats']];
    const rebaseUnits: Unit[] = [['--onto', '--exec'], ['-i'], ['-s', 'ours'], ['-X', 'theirs'], ['main'], ['--autosquash'], ['-q'], ['-C', '3']];
    const seUnits: Unit[] = [['--subject', '--sendmail-cmd=x'], ['--to=a@example.invalid'], ['--dry-run'], ['--identity', 'work'], ['a.patch'], ['--smtp-server=smtp.example.invalid'], ['--cc', 'b@example.invalid']];
    const caseMix = (g: Gen, s: string) => [...s].map((c) => (g.rnd() < 0.3 ? c.toUpperCase() : c)).join('');
    checkDenied('git', (g) => {
      const gl = g.units(globals, 2);
      const bad = g.rnd() < 0.75;
      const kind = g.int(5);
      if (kind === 0) {
        const c: Unit = g.rnd() < 0.5 ? ['-c', 'core.pager=sh'] : ['-ccore.pager=sh'];
        return { argv: bad ? [...insertAt(g, gl, c), 'status'] : [...gl.flat(), 'status'], bad };
      }
      if (kind === 1) {
        const units = g.units(grepOpts, 4);
        const flags = Array.from({ length: g.int(3) }, () => g.pick(['n', 'i', 'w', 'l', '1', '2'])).join('');
        const pager: Unit = g.pick<Unit>([[`-${flags}O`], [`-${flags}OP`], [`--${prefixOf(g, 'open-files-in-pager', 2)}`], [`--${prefixOf(g, 'open-files-in-pager', 2)}=P`]]);
        return { argv: [...gl.flat(), 'grep', ...(bad ? insertAt(g, units, pager) : units.flat()), 'pattern'], bad };
      }
      if (kind === 2) {
        const units = g.units(rebaseUnits, 4);
        const flags = Array.from({ length: g.int(3) }, () => g.pick(['q', 'v', 'i', 'f', 'm'])).join('');
        const x: Unit = g.pick<Unit>([[`-${flags}x`, 'sh'], [`-${flags}xsh`], [`--${prefixOf(g, 'exec', 1)}=sh`], [`--${prefixOf(g, 'exec', 1)}`, 'sh']]);
        return { argv: [...gl.flat(), 'rebase', ...(bad ? insertAt(g, units, x) : units.flat())], bad };
      }
      if (kind === 3) {
        const x: Unit = g.pick<Unit>([[`--${prefixOf(g, 'exec', 1)}=P`], [`--${prefixOf(g, 'upload-pack', 3)}=P`], [`--${prefixOf(g, 'receive-pack', 3)}`, 'P']]);
        const sub = g.pick(['push', 'fetch', 'ls-remote', 'pull', 'archive']);
        return { argv: [...gl.flat(), sub, ...(bad ? insertAt(g, [['origin'], ['main']], x) : ['origin'])], bad };
      }
      const units = g.units(seUnits, 4);
      const [name, min] = g.pick<[string, number]>([['sendmail-cmd', 5], ['to-cmd', 5], ['cc-cmd', 5], ['header-cmd', 2]]);
      const typed = caseMix(g, prefixOf(g, name, min));
      const prefix = g.pick(['--', '-', '+']);
      const sel: Unit = g.rnd() < 0.5 ? [`${prefix}${typed}=prog`] : [`${prefix}${typed}`, 'prog'];
      return { argv: [...gl.flat(), 'send-email', ...(bad ? insertAt(g, units, sel) : units.flat())], bad };
    }, 606);
  });
});
