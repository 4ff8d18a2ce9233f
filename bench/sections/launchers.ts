import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createExecutor } from '../../src/core/exec/executor';
import type { Launcher } from '../../src/core/exec/launch/contract';
import { findForkServer } from '../../src/core/exec/launch/forkServer';
import { plainLinuxLauncher } from '../../src/core/exec/launch';
import { createLinuxLauncher, forkServerWorks, namespacesWork } from '../../src/core/exec/launch/linux';
import { findLinuxTools } from '../../src/core/exec/launch/linuxChains';
import { probeIsolation } from '../../src/core/isolation/probe';
import { sandboxFromProbe } from '../../src/core/isolation/select';
import type { SandboxContext } from '../../src/core/isolation/types';
import { bareEcho } from '../baseline';
import type { Row, SectionResult } from '../report';
import { ms, ratio, summarize } from '../stats';
import { interleaved } from './latency';

/**
 * What each way of the platform's launcher costs per command, in this process (no server, no MCP): the executor
 * runs `echo hello` through each, interleaved round by round with a bare spawn and with the contained baseline the
 * minimal server uses (`unshare --pid --fork --kill-child`, spawned directly). A way that cannot run here is listed
 * as such.
 */
export async function launchers(calls: number): Promise<SectionResult> {
  const ex = createExecutor({ concurrency: 1 });
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-bench-launchers-')));
  const ctx: SandboxContext = { root: base, cwd: base, mode: 'auto', network: 'deny', home: path.join(base, 'home') };
  const ways: Array<{ name: string; launcher: Launcher; sandbox?: SandboxContext; why?: string }> = [];
  const tools = findLinuxTools();
  const binary = findForkServer();
  ways.push({ name: 'plain (not contained)', launcher: plainLinuxLauncher() });
  if (binary && forkServerWorks(binary)) ways.push({ name: 'fork server', launcher: createLinuxLauncher({ containment: { kind: 'fork-server', binary } }) });
  if (tools && namespacesWork(tools)) ways.push({ name: 'exec chain', launcher: createLinuxLauncher({ containment: { kind: 'namespaces', tools } }) });
  const sandbox = process.platform === 'linux' ? sandboxFromProbe(await probeIsolation('linux')) : null;
  if (sandbox && tools) ways.push({ name: 'bubblewrap sandbox', launcher: createLinuxLauncher({ containment: { kind: 'namespaces', tools }, sandbox }), sandbox: ctx });
  const unshare = tools?.unshare;
  const contained = async () => {
    if (!unshare) return;
    const r = await ex.run({ stages: [{ file: unshare, args: ['--pid', '--fork', '--kill-child', '--', '/bin/echo', 'hello'], launcher: 'plain' }], launcher: plainLinuxLauncher(), cwd: base, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000, outputLimitBytes: 1 << 20 });
    if (r.stdout !== 'hello\n') throw new Error(`unshare echo gave ${JSON.stringify(r).slice(0, 200)}`);
  };
  const through = (w: (typeof ways)[number]) => async () => {
    const r = await ex.run({ stages: [w.launcher.prepare({ file: '/bin/echo', args: ['hello'] }, w.sandbox)], launcher: w.launcher, cwd: base, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000, outputLimitBytes: 1 << 20 });
    if (r.stdout !== 'hello\n') throw new Error(`${w.name}: echo gave ${JSON.stringify(r).slice(0, 200)}`);
  };
  try {
    const subjects = [bareEcho, contained, ...ways.map(through)];
    await interleaved(Math.min(20, calls), subjects);
    const [spawnT, containedT, ...wayT] = await interleaved(calls, subjects);
    const spawn = summarize(spawnT!);
    const baseline = summarize(containedT!);
    const rows: Row[] = [
      { measurement: 'bare spawn of echo hello (p50)', result: ms(spawn.p50), baseline: '', ratio: '' },
      ...(unshare ? [{ measurement: 'executor, unshare --pid --fork --kill-child echo hello spawned as is (the minimal server\'s containment) (p50)', result: ms(baseline.p50), baseline: `spawn ${ms(spawn.p50)}`, ratio: ratio(baseline.p50, spawn.p50) }] : []),
      ...ways.map((w, i): Row => {
        const s = summarize(wayT[i]!);
        return { measurement: `executor through the launcher, ${w.name} (p50 / p95)`, result: `${ms(s.p50)} / ${ms(s.p95)}`, baseline: unshare ? `unshare ${ms(baseline.p50)}` : `spawn ${ms(spawn.p50)}`, ratio: ratio(s.p50, unshare ? baseline.p50 : spawn.p50) };
      }),
    ];
    return {
      id: 'launchers',
      title: 'Launcher cost per way (in process, echo hello)',
      rows,
      data: { calls, spawn, contained: baseline, ways: Object.fromEntries(ways.map((w, i) => [w.name, summarize(wayT[i]!)])) },
      notes: [
        `${calls} rounds after ${Math.min(20, calls)} warm-up rounds, in rotating order; the executor's own supervision is in every row but the bare spawn. The fork server (C, built into dist/) is what the server uses without a sandbox where the build made it; the exec chain where it did not; bubblewrap with the sandbox (src/core/exec/launch, docs/isolation.md).`,
        `Load average ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')} at the end.`,
      ],
    };
  } finally {
    await ex.shutdown();
    fs.rmSync(base, { recursive: true, force: true });
  }
}
