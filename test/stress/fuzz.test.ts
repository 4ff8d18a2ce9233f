import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideCommand, type CommandRequest } from '../../src/core/commands/decide';
import { judgeCommand } from '../../src/core/commands/rules';
import { isInside, resolveInside } from '../../src/core/paths/confine';
import { parsePolicy, type Policy } from '../../src/core/policy';
import { mulberry32 } from '../helpers/prng';
import { recordFigures } from './figures';

/** A failing case is reproducible from the seed printed with it (STRESS_SEED picks another run). */
const SEED = Number(process.env.STRESS_SEED ?? 20261202);

const PROGRAMS = ['echo', 'cat', 'ls', 'head', 'sort', 'find', 'awk', 'tar', 'git', 'sed', 'grep', 'wc', 'seq', 'gfind', 'gawk', 'gtar', 'gsed', '/usr/bin/find', 'bash', 'sh', 'env', 'xargs', 'python3', 'perl5.36', 'node22', 'busybox', 'rm'];
/** On the allowlist, so that the family rules, not the allowlist, must stop their dangerous forms. */
const ALLOWED = ['echo', 'cat', 'ls', 'head', 'sort', 'find', 'awk', 'tar', 'git', 'sed', 'grep', 'wc', 'seq', 'gfind', 'gawk', 'gtar', 'gsed', 'bash', 'sh', 'env', 'xargs', 'python3', 'perl5.36', 'node22', 'busybox'];
const WORDS = [
  'x', 'data.txt', 'sub', 'sub/file', '-n', '-r', '-v', '--', '-', '-k', '2', '-t', ',', '-name', '*.ts', '-type', 'f', '-czf', 'out.tgz', '-xf',
  'log', 'grep', 'status', 's/a/b/', '-E', '{print $1}', '-F:', '-exec', '-delete', '-o', '--output=x', '--compress-program=gzip', '-c', 'core.pager=sh',
  '--checkpoint-action=exec=id', '--to-command=id', '-I', 'BEGIN{system("id")}', '1e id', 's/x/y/w out', '-i', '--exec', '-O', '../x', '/etc/passwd',
  'link-out/x', 'sub/../../x', '', ' ', 'é', '\u202e', 'a\nb', '$(id)', '`id`', ';', '&&',
];
const OPERATORS = ['|', '<', '>', '>>'];
const TARGETS = ['out.txt', 'sub/out.txt', '../out.txt', '/tmp/out.txt', 'link-out/out.txt', 'link-in/out.txt', 'sub/../../out.txt', 'data.txt', 'link-out', '.', 'sub'];
const DIRECTORIES = [undefined, '.', 'sub', '..', '/', '/tmp', 'link-out', 'link-in', 'sub/..', 'sub/../..', 'missing', 'data.txt'];

/** Forms that MUST be denied whatever surrounds them (an independent oracle: written from issue 3, not from the rules). */
const DENIED_FORMS: ReadonlyArray<readonly string[]> = [
  ['find', '.', '-exec', 'id', ';'],
  ['find', '.', '-delete'],
  ['gfind', '.', '-execdir', 'id', '{}', '+'],
  ['find', '.', '-fprint', 'out'],
  ['awk', 'BEGIN{system("id")}'],
  ['gawk', '-f', 'prog.awk'],
  ['awk', '{print | "sh"}'],
  ['tar', '-cf', 'a.tar', '--checkpoint=1', '--checkpoint-action=exec=id', 'sub'],
  ['tar', '--to-command=id', '-xf', 'a.tar'],
  ['gtar', '-I', 'id', '-cf', 'a.tar', 'sub'],
  ['tar', '--use-compress-program=id', '-cf', 'a.tar', 'sub'],
  ['sort', '-o', 'x', 'data.txt'],
  ['sort', '--output=x', 'data.txt'],
  ['sort', 'data.txt', '--compress-program=id'],
  ['git', '-c', 'core.pager=id', 'log'],
  ['git', 'grep', '-O', 'x'],
  ['git', 'rebase', '--exec', 'id', 'main'],
  ['sed', '1e id', 'data.txt'],
  ['sed', '-i', 's/a/b/', 'data.txt'],
  ['gsed', 's/a/b/w out', 'data.txt'],
  ['bash', '-c', 'id'],
  ['sh', 'x'],
  ['env', 'id'],
  ['xargs', 'id'],
  ['python3', '-c', 'print(1)'],
  ['perl5.36', '-e', '1'],
  ['node22', '-e', '1'],
  ['busybox', 'sh'],
];

describe('fuzz: the validation pipeline under thousands of generated requests', () => {
  let root: string;
  let outside: string;
  let policy: Policy;

  beforeAll(() => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-fuzz-')));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(root, 'sub'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(root, 'data.txt'), 'b\na\n');
    fs.writeFileSync(path.join(outside, 'secret'), 'secret\n');
    for (const f of ['find', 'sub/echo', '../outside/cat']) fs.writeFileSync(path.join(root, f), '#!/bin/sh\nid\n', { mode: 0o755 });
    fs.symlinkSync(outside, path.join(root, 'link-out'));
    fs.symlinkSync(path.join(root, 'sub'), path.join(root, 'link-in'));
    policy = parsePolicy({ root, allowCommands: ALLOWED, mode: 'auto' });
  });

  afterAll(() => {
    fs.rmSync(path.dirname(root), { recursive: true, force: true });
  });

  const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

  function generate(r: () => number): CommandRequest {
    // Sometimes the program is a path inside the workspace (a script the agent wrote, named like an allowed one).
    const argv: string[] = [r() < 0.05 ? path.join(root, pick(r, ['find', 'sub/echo', 'link-out/cat'])) : pick(r, PROGRAMS)];
    const n = Math.floor(r() * 8);
    for (let i = 0; i < n; i++) {
      const roll = r();
      if (roll < 0.12) {
        const op = pick(r, OPERATORS);
        argv.push(op, op === '|' ? pick(r, PROGRAMS) : pick(r, TARGETS));
      } else if (roll < 0.15) argv.push(pick(r, WORDS) + '\u0000');
      else argv.push(pick(r, WORDS));
    }
    const dir = pick(r, DIRECTORIES);
    const t = r();
    return {
      command: argv,
      ...(dir !== undefined && { directory: dir }),
      ...(r() < 0.1 && { literal: true }),
      ...(t < 0.05 && { timeoutSeconds: pick(r, [NaN, -1, 0, 1e12, 0.001]) }),
    };
  }

  /** The properties every verdict must have. Returns a description of the first broken one, or undefined. */
  function check(req: CommandRequest): string | undefined {
    let d;
    try {
      d = decideCommand(req, policy);
    } catch (e) {
      return `threw ${(e as Error).message}`;
    }
    if (d.verdict.kind !== 'allow') return undefined;
    const plan = d.plan;
    if (!plan) return 'allowed without a plan';
    if (!isInside(root, plan.cwd.real)) return `allowed a working directory outside the root: ${plan.cwd.real}`;
    if (plan.stdinFile && !isInside(root, plan.stdinFile.real)) return `allowed an input redirect outside the root: ${plan.stdinFile.real}`;
    if (plan.stdoutFile && !isInside(root, plan.stdoutFile.target.real)) return `allowed an output redirect outside the root: ${plan.stdoutFile.target.real}`;
    for (const stage of plan.parsed.stages) {
      // The documented allowlist rule: a listed name, or an absolute path whose basename is listed and which is
      // not inside the workspace (a file the agent could have written).
      const program = stage[0]!;
      const listed = ALLOWED.includes(program) || (path.isAbsolute(program) && ALLOWED.includes(path.basename(program)) && !isInside(root, program));
      if (!listed) return `allowed a program that is not on the allowlist: ${program}`;
      const j = judgeCommand(stage);
      if (j.kind === 'deny') return `allowed a stage its family rule denies (${j.rule})`;
    }
    return undefined;
  }

  it('never throws, never allows a path outside the root or a program off the allowlist (8,000 random requests)', () => {
    const r = mulberry32(SEED);
    const broken: string[] = [];
    const verdicts: Record<string, number> = {};
    for (let i = 0; i < 8000; i++) {
      const req = generate(r);
      const problem = check(req);
      if (problem) broken.push(`#${i} ${JSON.stringify(req)}: ${problem}`);
      const kind = decideCommand(req, policy).verdict.kind;
      verdicts[kind] = (verdicts[kind] ?? 0) + 1;
    }
    recordFigures('fuzz: random requests', { seed: SEED, requests: 8000, broken: broken.length, ...verdicts });
    expect(broken.slice(0, 5)).toEqual([]);
    // The generator must reach both sides, or the properties above were never exercised.
    expect(verdicts.allow ?? 0).toBeGreaterThan(100);
    expect(verdicts.deny ?? 0).toBeGreaterThan(100);
  });

  it('never allows a denied family form, wherever it sits among harmless arguments and pipeline stages (4,000 requests)', () => {
    const r = mulberry32(SEED + 1);
    const allowedWrongly: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const form = pick(r, DENIED_FORMS);
      // Harmless data appended after the form (operands) and, sometimes, a harmless stage around it.
      const tail = Array.from({ length: Math.floor(r() * 3) }, () => pick(r, ['data.txt', 'sub', 'x']));
      let argv = [...form, ...tail];
      const where = r();
      if (where < 0.25) argv = ['echo', 'hi', '|', ...argv];
      else if (where < 0.5) argv = [...argv, '|', 'wc', '-l'];
      else if (where < 0.6) argv = [...argv, '>', 'out.txt'];
      const req: CommandRequest = { command: argv, ...(r() < 0.3 && { directory: 'sub' }) };
      let kind: string;
      try {
        kind = decideCommand(req, policy).verdict.kind;
      } catch (e) {
        kind = `threw ${(e as Error).message}`;
      }
      if (kind !== 'deny') allowedWrongly.push(`${JSON.stringify(argv)} -> ${kind}`);
    }
    recordFigures('fuzz: denied family forms', { seed: SEED + 1, requests: 4000, allowedWrongly: allowedWrongly.length });
    expect(allowedWrongly.slice(0, 5)).toEqual([]);
  });

  it('confines every path the file tools resolve: resolveInside never returns a path outside the root (5,000 paths)', () => {
    const r = mulberry32(SEED + 2);
    const parts = ['..', '.', 'sub', 'link-out', 'link-in', 'data.txt', 'new', '', '/', 'é', '\u0000', root, outside, '/etc', 'x'.repeat(300)];
    const escapes: string[] = [];
    let refused = 0;
    for (let i = 0; i < 5000; i++) {
      const p = Array.from({ length: 1 + Math.floor(r() * 5) }, () => pick(r, parts)).join(r() < 0.5 ? '/' : path.sep);
      try {
        const resolved = resolveInside(root, p);
        if (!isInside(root, resolved.real)) escapes.push(`${JSON.stringify(p)} -> ${resolved.real}`);
      } catch (e) {
        if (!(e instanceof Error)) escapes.push(`${JSON.stringify(p)} threw a non-Error`);
        refused++;
      }
    }
    recordFigures('fuzz: path confinement', { seed: SEED + 2, paths: 5000, refused, escapes: escapes.length });
    expect(escapes.slice(0, 5)).toEqual([]);
    expect(refused).toBeGreaterThan(100);
  });
});
