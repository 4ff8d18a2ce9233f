import { bareEcho, spawnCapture } from '../baseline';
import type { Row, SectionResult } from '../report';
import { httpClient, shell, startHttp } from '../server';
import { ms, ratio, round, summarize, timeSequential } from '../stats';

/**
 * The latency line again with `--isolation required`. When the server cannot start that way, or denies the
 * call because no sandbox works here, the section is skipped and says why (never silently).
 */
export async function isolation(calls: number, unsandboxedP50: number): Promise<SectionResult> {
  const skipped = (reason: string): SectionResult => ({
    id: 'isolation',
    title: 'Isolation overhead (--isolation required)',
    rows: [{ measurement: 'isolation overhead', result: 'SKIPPED', baseline: '', ratio: '' }],
    data: { skipped: reason },
    notes: [`skipped: ${reason}`],
  });
  let server;
  try {
    server = await startHttp([], 'required');
  } catch (e) {
    return skipped(`the server did not start with --isolation required: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    const client = await httpClient(server.url);
    const first = await shell(client, ['echo', 'hello']);
    if (first.outcome !== 'ok' || first.stdout !== 'hello\n') {
      await client.close();
      return skipped(`echo hello under --isolation required gave outcome "${first.outcome}": ${String(first.denial?.message ?? first.error ?? first.stderr ?? first.text ?? '').slice(0, 300)}`);
    }
    for (let i = 0; i < Math.min(30, calls); i++) await shell(client, ['echo', 'hello']);
    const exec: number[] = [];
    const sandboxed = summarize(
      await timeSequential(calls, async () => {
        const s = await shell(client, ['echo', 'hello']);
        if (s.stdout !== 'hello\n') throw new Error(`sandboxed echo gave ${JSON.stringify(s).slice(0, 200)}`);
        exec.push(Number(s.durationMs));
      }),
    );
    await client.close();
    const spawn = summarize(await timeSequential(calls, bareEcho));
    // The sandbox's own price, outside the server: bubblewrap with a minimal read-only root around the echo.
    let bwrapP50 = NaN;
    try {
      const bw = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', 'echo', 'hello'];
      const probe = await spawnCapture('bwrap', bw);
      if (probe.stdout === 'hello\n') bwrapP50 = summarize(await timeSequential(Math.min(calls, 100), async () => void (await spawnCapture('bwrap', bw)))).p50;
    } catch {
      /* no bwrap on PATH: leave n/a */
    }
    const rows: Row[] = [
      { measurement: 'isolation required: echo hello p50', result: ms(sandboxed.p50), baseline: `spawn ${ms(spawn.p50)}`, ratio: ratio(sandboxed.p50, spawn.p50) },
      { measurement: 'isolation required vs none (p50)', result: ms(sandboxed.p50), baseline: `none ${ms(unsandboxedP50)}`, ratio: ratio(sandboxed.p50, unsandboxedP50) },
      { measurement: 'isolation required: p95 / p99', result: `${ms(sandboxed.p95)} / ${ms(sandboxed.p99)}`, baseline: '', ratio: '' },
      { measurement: 'isolation required: server-side exec p50', result: ms(summarize(exec).p50), baseline: `bare bwrap echo ${ms(bwrapP50)}`, ratio: ratio(summarize(exec).p50, bwrapP50) },
    ];
    return {
      id: 'isolation',
      title: 'Isolation overhead (--isolation required)',
      rows,
      data: { calls, sandboxed, spawn, unsandboxedP50: round(unsandboxedP50), serverExec: summarize(exec), bareBwrapP50: round(bwrapP50) },
      notes: ['"bare bwrap echo" = bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent echo hello, spawned directly (the sandbox\'s own cost).'],
    };
  } finally {
    await server.stop();
  }
}
