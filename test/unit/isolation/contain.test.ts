import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { containStage, probeContainment, probeContainmentAsync, workingLaunchers } from '../../../src/core/isolation/contain';
import { killAll, pidsWithCmdline, sleep, uniqueSeconds } from '../../helpers/procs';
import { FIXTURE_BIN } from '../../helpers/serverProcess';
import { stage, tagged } from '../exec/helpers';

// Every PID-namespace launcher that works on this machine (not only the one the server picks): a grandchild
// that calls setsid, closes every inherited descriptor and drops its environment dies with its call.
const ESCAPE = path.join(FIXTURE_BIN, 'escape-all');
const launchers = workingLaunchers().filter((l) => l.kind === 'pid-namespace');

describe.each(launchers.map((l) => [l.zygote ? 'zygote' : path.basename(l.prefix.find((a) => /bwrap|unshare/.test(a))!), l] as const))('containment launcher %s', (_name, launcher) => {
  it('leaves no process of the call behind, even one that escaped every other way', async () => {
    const ex = createExecutor({ concurrency: 1, killGraceMs: 200 });
    const secs = uniqueSeconds();
    const r = await ex.run(tagged([containStage(stage(ESCAPE, secs), launcher)]).spec);
    expect(r.outcome).toBe('ok');
    await sleep(200);
    const survivors = pidsWithCmdline(['sleep', secs]);
    killAll(survivors);
    expect(survivors).toEqual([]);
  });

  it('passes the exit status through and stops a running tree on timeout', async () => {
    const ex = createExecutor({ concurrency: 1, killGraceMs: 200 });
    expect((await ex.run(tagged([containStage(stage('sh', '-c', 'exit 7'), launcher)]).spec)).exitCode).toBe(7);
    const secs = uniqueSeconds();
    const r = await ex.run(tagged([containStage(stage(ESCAPE, secs, 'wait'), launcher)], { timeoutMs: 500 }).spec);
    expect(r.outcome).toBe('timeout');
    await sleep(200);
    const survivors = pidsWithCmdline(['sleep', secs]);
    killAll(survivors);
    expect(survivors).toEqual([]);
  });
});

it('finds at least one PID-namespace launcher on Linux CI (zygote, bwrap or unshare)', () => {
  if (process.platform === 'linux') expect(launchers.length).toBeGreaterThan(0);
});

it('the start-up probe (async, beside the sandbox probe) picks the launcher the blocking probe would, and caches it', async () => {
  const picked = await probeContainmentAsync();
  const strongest = workingLaunchers()[0];
  if (strongest) expect(picked).toEqual(strongest);
  else expect(picked.kind).toBe('none');
  expect(probeContainment()).toBe(picked); // the pipeline's synchronous lookup gets the same answer, no second trial
});
