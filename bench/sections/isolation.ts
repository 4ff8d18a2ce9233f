import { bareEcho, spawnCapture } from '../baseline';
import type { Row, SectionResult } from '../report';
import { httpClient, shell, startHttp } from '../server';
import { ms, ratio, round, summarize, timeSequential } from '../stats';

/** echo hello through a second sandboxed server with these flags: the call's and the server-side exec's p50. */
async function sandboxedEcho(calls: number, flags: readonly string[]): Promise<{ call: ReturnType<typeof summarize>; exec: ReturnType<typeof summarize> }> {
  const server = await startHttp(flags, 'required');
  try {
    const client = await httpClient(server.url);
    for (let i = 0; i < Math.min(30, calls); i++) await shell(client, ['echo', 'hello']);
    const exec: number[] = [];
    const call = summarize(
      await timeSequential(calls, async () => {
        const s = await shell(client, ['echo', 'hello']);
        if (s.stdout !== 'hello\n') throw new Error(`sandboxed echo (${flags.join(' ')}) gave ${JSON.stringify(s).slice(0, 200)}`);
        exec.push(Number(s.durationMs));
      }),
    );
    await client.close();
    return { call, exec: summarize(exec) };
  } finally {
    await server.stop();
  }
}

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
    // The egress proxy's price (network fetch, the default: a proxy session per call and the bridge in front of the
    // command), against the same sandbox without it (network allow: the host's network, no proxy), same run.
    const direct = await sandboxedEcho(calls, ['--network', 'allow']);
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
      { measurement: 'egress proxy + bridge (network fetch) vs none (network allow), p50', result: ms(sandboxed.p50), baseline: `allow ${ms(direct.call.p50)}`, ratio: ratio(sandboxed.p50, direct.call.p50) },
      { measurement: 'egress proxy + bridge: server-side exec p50', result: ms(summarize(exec).p50), baseline: `allow ${ms(direct.exec.p50)}`, ratio: ratio(summarize(exec).p50, direct.exec.p50) },
    ];
    return {
      id: 'isolation',
      title: 'Isolation overhead (--isolation required)',
      rows,
      data: { calls, sandboxed, spawn, unsandboxedP50: round(unsandboxedP50), serverExec: summarize(exec), bareBwrapP50: round(bwrapP50), networkAllow: direct },
      notes: [
        '"bare bwrap echo" = bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent echo hello, spawned directly (the sandbox\'s own cost).',
        'With the default network fetch (and with domains, deny) every sandboxed call opens an egress proxy session (a Unix socket listener in the server) and starts the bridge (perl, no module) in front of the command; network allow shares the host\'s network and needs neither.',
      ],
    };
  } finally {
    await server.stop();
  }
}
