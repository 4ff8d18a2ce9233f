import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpClient, startServer, type RunningServer } from '../helpers/serverProcess';
import { commOf, rssKb, sleep } from '../helpers/procs';
import { recordFigures } from './figures';
import { baseArgs, fdCount, killAll, processesIn, shell, tempWorkspace, waitFor } from './helpers';
import { descendantsOf, readProcStat } from '../../src/core/exec/processes';

/** The launcher's fork server under the server: its parent is unshare (its stage processes, its children, share its name). */
const forkServerOf = (server: number): number | undefined =>
  descendantsOf([server]).find((p) => commOf(p) === 'guarded-shell-l' && commOf(readProcStat(p)?.ppid ?? 0) === 'unshare');

const CALLS = 2000;
const CLIENTS = 16;
const CONCURRENCY = 4;
/** V8 keeps some of what it grew to; "near start" is generous on purpose, and the figure is printed. */
const RSS_SLACK_KB = 96 * 1024;
/**
 * What the second 1,000 calls may add on top of the first: a per-call leak would add as much as the first did
 * (46 MB here). RSS also follows V8's heap sizing, which grows with the allocation rate: with a launcher that
 * forks nothing in the server (the fork server, src/core/exec/launch) it answers ~250 calls/s instead of ~145,
 * and the second round was seen to add 23–28 MB (10 MB before) with the heap after a full GC flat.
 */
const SECOND_ROUND_SLACK_KB = 36 * 1024;

/** One call of three kinds, each with an answer only a correct run gives; returns a failure text or undefined. */
async function oneCall(client: Client, lane: number, i: number): Promise<string | undefined> {
  const token = `c${lane}-n${i}-${Math.random().toString(36).slice(2)}`;
  let got: Record<string, any> = {};
  let ok = false;
  try {
    if (i % 10 === 3) {
      const n = 1000 + i;
      got = await shell(client, ['seq', '1', String(n), '|', 'wc', '-l']);
      ok = got.outcome === 'ok' && String(got.stdout).trim() === String(n);
    } else if (i % 10 === 7) {
      got = await shell(client, ['cat'], { stdin: `${token}\n`.repeat(50) });
      ok = got.outcome === 'ok' && got.stdout === `${token}\n`.repeat(50);
    } else {
      got = await shell(client, ['echo', token]);
      ok = got.outcome === 'ok' && got.stdout === `${token}\n` && got.exitCode === 0;
    }
  } catch (e) {
    got = { error: String(e) };
  }
  return ok ? undefined : `call ${i}: ${JSON.stringify(got).slice(0, 300)}`;
}

/** A count sampled every 100 ms until five samples in a row agree (at most 5 s). */
async function settledCount(read: () => number): Promise<number> {
  let last = read();
  for (let same = 1, i = 0; same < 5 && i < 50; i++) {
    await sleep(100);
    const now = read();
    same = now === last ? same + 1 : 1;
    last = now;
  }
  return last;
}

describe('load: 2,000 calls from 16 concurrent clients, concurrency 4', () => {
  let root: string;
  let server: RunningServer;
  let fdStart: number;
  /** The fork server's own descriptors and memory, where it runs (a leak of its C code per call would show here). */
  let forkServer: { pid: number; fds: number; rssKb: number } | undefined;

  beforeAll(async () => {
    root = tempWorkspace();
    server = await startServer(baseArgs(root, ['echo', 'seq', 'wc', 'cat'], ['--concurrency', String(CONCURRENCY)]));
    // The starting count: the idle server before any client connected (its launcher's fork server started at the
    // probe, whose three pipe ends the server holds from then on).
    fdStart = await settledCount(() => fdCount(server.proc.pid!));
  });

  afterAll(async () => {
    await server?.stop();
    killAll(processesIn(root));
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('answers every call correctly, leaks no process, and returns to its starting descriptors and memory', async () => {
    const pid = server.proc.pid!;
    // Warm the server up (JIT, first session) with a client that is then closed, so "start" is a steady state.
    const warm = await httpClient(server.url);
    for (let i = 0; i < 20; i++) expect((await shell(warm, ['echo', 'warm'])).stdout).toBe('warm\n');
    await warm.close();
    await sleep(500);
    const rssStart = rssKb(pid);
    const fs0 = forkServerOf(pid);
    if (fs0) forkServer = { pid: fs0, fds: await settledCount(() => fdCount(fs0)), rssKb: rssKb(fs0) };

    // Two rounds of 1,000 calls, each with 16 fresh clients: a leak per call or per session grows in BOTH rounds,
    // while V8 sizing its heap to the load is a one-time step in the first.
    const failures: string[] = [];
    let peakFds = fdStart;
    let peakRss = rssStart;
    const rssAfterRound: number[] = [];
    const started = performance.now();
    for (let round = 0; round < 2; round++) {
      const clients: Client[] = [];
      for (let i = 0; i < CLIENTS; i++) clients.push(await httpClient(server.url));
      let next = round * (CALLS / 2);
      const last = (round + 1) * (CALLS / 2);
      await Promise.all(
        clients.map(async (client, lane) => {
          while (next < last) {
            const i = next++;
            const r = await oneCall(client, lane, i);
            if (r) failures.push(r);
            if (i % 100 === 0) {
              peakFds = Math.max(peakFds, fdCount(pid));
              peakRss = Math.max(peakRss, rssKb(pid));
            }
          }
        }),
      );
      // Sessions end the way a polite client ends them (DELETE), then the client closes.
      for (const c of clients) {
        await (c.transport as { terminateSession?: () => Promise<void> }).terminateSession?.().catch(() => undefined);
        await c.close();
      }
      await sleep(1000);
      rssAfterRound.push(rssKb(pid));
    }
    const seconds = (performance.now() - started) / 1000;
    const leaked = await waitFor(() => processesIn(root), (p) => p.length === 0, 5_000);
    // Keep-alive sockets close after the server's keep-alive timeout (5 s): wait for them, not longer than 20 s.
    const fdEnd = await waitFor(() => fdCount(pid), (n) => n <= fdStart, 20_000, 250);
    const rssEnd = rssKb(pid);
    const forkServerEnd = forkServer && { fds: await waitFor(() => fdCount(forkServer!.pid), (n) => n <= forkServer!.fds, 5_000, 100), rssKb: rssKb(forkServer.pid) };
    const secondRoundGrowth = rssAfterRound[1]! - rssAfterRound[0]!;
    recordFigures('load', {
      calls: CALLS,
      clients: CLIENTS,
      concurrency: CONCURRENCY,
      failures: failures.length,
      callsPerSecond: Math.round(CALLS / seconds),
      leakedProcesses: leaked.length,
      fdStart,
      fdPeak: peakFds,
      fdEnd,
      fdDelta: fdEnd - fdStart,
      rssStartMB: +(rssStart / 1024).toFixed(1),
      rssPeakMB: +(peakRss / 1024).toFixed(1),
      rssAfter1000MB: +(rssAfterRound[0]! / 1024).toFixed(1),
      rssAfter2000MB: +(rssAfterRound[1]! / 1024).toFixed(1),
      rssEndMB: +(rssEnd / 1024).toFixed(1),
      rssDeltaMB: +((rssEnd - rssStart) / 1024).toFixed(1),
      ...(forkServer && forkServerEnd && { forkServerFdStart: forkServer.fds, forkServerFdEnd: forkServerEnd.fds, forkServerRssStartKB: forkServer.rssKb, forkServerRssEndKB: forkServerEnd.rssKb }),
    });
    expect(failures.slice(0, 5)).toEqual([]);
    expect(leaked).toEqual([]);
    expect(fdEnd).toBeLessThanOrEqual(fdStart);
    expect(rssEnd - rssStart).toBeLessThan(RSS_SLACK_KB);
    expect(secondRoundGrowth).toBeLessThan(SECOND_ROUND_SLACK_KB);
    if (forkServer && forkServerEnd) {
      // The same process served all 2,000 calls, and is back to its descriptors and within 512 KB of its memory
      // (its frame buffer grows once to the largest order).
      expect(forkServerOf(pid)).toBe(forkServer.pid);
      expect(forkServerEnd.fds).toBeLessThanOrEqual(forkServer.fds);
      expect(forkServerEnd.rssKb - forkServer.rssKb).toBeLessThan(512);
    }
    // Still serving after the load.
    const after = await httpClient(server.url);
    expect((await shell(after, ['echo', 'still here'])).stdout).toBe('still here\n');
    await after.close();
  });
});
