import { spawn } from 'node:child_process';
import type { Row, SectionResult } from '../report';
import { ESCAPE_SETSID, IGNORE_TERM, httpClient, shell, SPAWN_TREE, startHttp } from '../server';
import { pidsWithCmdline, sleep, uniqueSeconds } from '../../test/helpers/procs';
import { ms, round } from '../stats';

/** Every live process of one fixture run: the script's shell and its sleeps (all carry the unique seconds). */
function alive(script: string, secs: string): number[] {
  return [...pidsWithCmdline(['/bin/sh', script, secs]), ...pidsWithCmdline(['sleep', secs])];
}

function reap(pids: readonly number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Waits until the fixture's processes exist, so a run that never started cannot pass as "0 alive". */
async function waitStarted(script: string, secs: string, atLeast: number): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const n = alive(script, secs).length;
    if (n >= atLeast) return n;
    await sleep(20);
  }
  return alive(script, secs).length;
}

/**
 * A command that backgrounds grandchildren, with a 1 s timeout: how long after the deadline the answer comes,
 * and how many of its processes live 0 s and 2 s after it. Baseline: `spawn(…, { timeout: 1000 })`, which is what
 * a naive server does (kill the direct child only).
 */
export async function kill(): Promise<SectionResult> {
  const rows: Row[] = [];
  const data: Record<string, unknown> = {};

  // Baseline first: what the naive approach leaves behind.
  const bSecs = uniqueSeconds();
  const bStart = performance.now();
  const child = spawn(SPAWN_TREE, [bSecs], { stdio: 'ignore', timeout: 1000 });
  const started = await waitStarted(SPAWN_TREE, bSecs, 4);
  await new Promise((r) => child.once('exit', r));
  const bMs = performance.now() - bStart - 1000;
  const b0 = alive(SPAWN_TREE, bSecs).length;
  await sleep(2000);
  const bLeft = alive(SPAWN_TREE, bSecs);
  reap(bLeft);
  data.baseline = { processesStarted: started, afterDeadlineMs: round(bMs), alive0s: b0, alive2s: bLeft.length };

  const server = await startHttp();
  try {
    const client = await httpClient(server.url);
    for (const [name, script, expected] of [
      ['spawn-tree (2 background sleeps)', SPAWN_TREE, 4],
      ['escape-setsid (grandchild in a new session)', ESCAPE_SETSID, 3],
      ['ignore-term (traps SIGTERM: SIGKILL after the grace)', IGNORE_TERM, 2],
    ] as const) {
      const secs = uniqueSeconds();
      const t = performance.now();
      const pending = shell(client, [script, secs], { timeout: 1 });
      const seen = await waitStarted(script, secs, expected);
      const s = await pending;
      const afterDeadline = performance.now() - t - 1000;
      const at0 = alive(script, secs);
      await sleep(2000);
      const at2 = alive(script, secs);
      reap(at2);
      rows.push({
        measurement: `kill ${name}: after deadline`,
        result: `${ms(afterDeadline)} (outcome ${s.outcome})`,
        baseline: script === SPAWN_TREE ? `spawn timeout: ${ms(bMs)}` : '',
        ratio: '',
      });
      rows.push({
        measurement: `kill ${name}: alive 0 s / 2 s after`,
        result: `${at0.length} / ${at2.length} (of ${seen} seen)`,
        baseline: script === SPAWN_TREE ? `${b0} / ${bLeft.length} (of ${started})` : '',
        ratio: at0.length === 0 && at2.length === 0 ? 'must be 0: MET' : 'must be 0: MISSED',
      });
      data[script.split('/').pop()!] = { outcome: s.outcome, durationMs: s.durationMs, afterDeadlineMs: round(afterDeadline), processesSeen: seen, alive0s: at0.length, alive2s: at2.length };
    }
    await client.close();
  } finally {
    await server.stop();
  }
  return {
    id: 'kill',
    title: 'Kill: 1 s timeout on a process tree',
    rows,
    data,
    notes: ['"after deadline" = response time minus the 1 s timeout, as the client sees it. Processes are found by their exact command line in /proc (unique sleep seconds per run); survivors are killed by the harness afterwards.'],
  };
}
