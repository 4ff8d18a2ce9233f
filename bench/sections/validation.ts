import * as fs from 'node:fs';
import * as path from 'node:path';
import { decideCommand, type CommandRequest } from '../../src/core/commands/decide';
import { parsePolicy } from '../../src/core/policy';
import type { Row, SectionResult } from '../report';
import { workspace } from '../server';
import { round } from '../stats';

const LONG = 10_000;
const longArgs = Array.from({ length: LONG }, (_, i) => `arg${i}`);

/** One representative request per rule family (and the paths decide() takes), with the verdict expected. */
export const SAMPLES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['echo, 10,000 arguments', ['echo', ...longArgs]],
  ['sort, 10,000 arguments (option scan)', ['sort', ...longArgs]],
  ['git grep, 10,000 arguments (option scan)', ['git', 'grep', '-n', ...longArgs]],
  ['plain: echo hello', ['echo', 'hello']],
  ['find: -name -type', ['find', '.', '-name', '*.ts', '-type', 'f']],
  ['find: -exec (denied)', ['find', '.', '-exec', 'rm', '{}', ';']],
  ['awk: -F program file', ['awk', '-F:', '{print $1}', 'data.txt']],
  ['awk: system( (denied)', ['awk', 'BEGIN{system("id")}']],
  ['tar: -czf', ['tar', '-czf', 'out.tgz', 'src']],
  ['tar: --checkpoint-action (denied)', ['tar', '-cf', 'o.tar', '--checkpoint=1', '--checkpoint-action=exec=sh', 'src']],
  ['sort: -k -t', ['sort', '-k', '2', '-t', ',', 'data.txt']],
  ['sort: -o (denied)', ['sort', '-o', 'x', 'data.txt']],
  ['git: log', ['git', 'log', '--oneline', '-n', '5']],
  ['git: -c core.pager (denied)', ['git', '-c', 'core.pager=sh', 'log']],
  ['sed: s///p', ['sed', '-n', 's/a/b/p', 'data.txt']],
  ['sed: e command (denied)', ['sed', '1e id', 'data.txt']],
  ['wrapper: env (denied)', ['env', 'ls']],
  ['interpreter: python3.12 (denied)', ['python3.12', '-c', 'print(1)']],
  ['pipeline: seq | wc', ['seq', '1', '10', '|', 'wc', '-l']],
  ['redirect: sort < in > out', ['sort', '<', 'data.txt', '>', 'out.txt']],
  ['redirect escape: > ../x (denied)', ['echo', 'x', '>', '../x']],
];

/** Microseconds per decideCommand() call: at least 300 ms or 50 calls, after a warm-up. */
function time(request: CommandRequest, policy: ReturnType<typeof parsePolicy>): { us: number; verdict: string; rule: string; n: number } {
  let d = decideCommand(request, policy);
  for (let i = 0; i < 20; i++) d = decideCommand(request, policy);
  let n = 0;
  const t = performance.now();
  while (n < 50 || performance.now() - t < 300) {
    decideCommand(request, policy);
    n++;
  }
  return { us: ((performance.now() - t) * 1000) / n, verdict: d.verdict.kind, rule: d.verdict.rule, n };
}

export function validation(): SectionResult {
  const root = fs.realpathSync(workspace());
  fs.writeFileSync(path.join(root, 'data.txt'), 'a:b\n');
  fs.mkdirSync(path.join(root, 'src'));
  const programs = [...new Set(SAMPLES.flatMap(([, argv]) => argv.filter((_, i) => i === 0 || argv[i - 1] === '|')))].filter((p) => /^[\w.-]+$/.test(p));
  const policy = parsePolicy({ root, allowCommands: programs, mode: 'auto' });
  const rows: Row[] = [];
  const data: Record<string, unknown> = {};
  for (const [name, argv] of SAMPLES) {
    const r = time({ command: argv }, policy);
    rows.push({ measurement: `decide: ${name}`, result: `${r.us.toFixed(r.us < 100 ? 1 : 0)} µs`, baseline: '', ratio: `${r.verdict} (${r.rule})` });
    data[name] = { microseconds: round(r.us), verdict: r.verdict, rule: r.rule, iterations: r.n };
  }
  return {
    id: 'validation',
    title: 'Validation cost: decideCommand() per request, in process',
    rows,
    data,
    notes: ['Every program in the samples is on the allowlist, so the family rules (not the allowlist) decide. The right column is the verdict and the rule that decided it; decide() also realpaths the working directory and redirect targets on every call.'],
  };
}
