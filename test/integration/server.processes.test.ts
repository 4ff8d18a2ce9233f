import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURE_BIN, httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { pidsWithCmdline, rssKb, sleep, uniqueSeconds } from '../helpers/procs';

/**
 * The standalone server's process handling through the real CLI (split from server.test.ts, part of npm run
 * test:long): timeouts, cancellation and SIGTERM end whole process trees, --concurrency queues, a 50 MB output runs
 * to its end with flat memory, progress about once a second. Seconds of real processes per case.
 */
const ALLOW = ['yes', 'echo', 'cat', 'seq', 'wc', 'ls', 'head', 'sleep', 'sort', 'touch', `${FIXTURE_BIN}/spawn-tree`, `${FIXTURE_BIN}/ignore-term`, `${FIXTURE_BIN}/escape-setsid`];

function tmpWorkspace(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-int-')));
}

async function call(client: Client, command: string[], extra: Record<string, unknown> = {}) {
  const result = await client.callTool({ name: 'shell_execute', arguments: { command, ...extra } });
  return { result, s: structured(result) };
}

describe('standalone server over Streamable HTTP: process handling', () => {
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await startServer(['--cwd', tmpWorkspace(), '--auth', TOKEN, '--quiet', '--isolation', 'none', '--allow', ...ALLOW, '--output-limit', '1048576']);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('reports progress about once a second when the client sends a progress token', async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '2.6'] } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(structured(result).outcome).toBe('ok');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.message).toMatch(/s elapsed, \d+ bytes of output/);
  });

  it('kills a command that backgrounds grandchildren at its timeout, leaving no process behind', async () => {
    const secs = uniqueSeconds();
    // Outcome timeout (not a normal end after the tree's sleep) is the proof it was killed at the timeout.
    const { s } = await call(client, [`${FIXTURE_BIN}/spawn-tree`, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
    await sleep(500);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('kills a command that ignores SIGTERM with SIGKILL after the grace', async () => {
    const secs = uniqueSeconds();
    const { s } = await call(client, [`${FIXTURE_BIN}/ignore-term`, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('kills a grandchild that escaped the process group with setsid', async () => {
    const secs = uniqueSeconds();
    const { s } = await call(client, [`${FIXTURE_BIN}/escape-setsid`, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    await sleep(200);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('kills the process tree when the client cancels the call', async () => {
    const secs = uniqueSeconds();
    const ac = new AbortController();
    const pending = client.callTool({ name: 'shell_execute', arguments: { command: [`${FIXTURE_BIN}/spawn-tree`, secs] } }, undefined, { signal: ac.signal });
    for (let i = 0; i < 50 && pidsWithCmdline(['sleep', secs]).length < 3; i++) await sleep(100);
    expect(pidsWithCmdline(['sleep', secs]).length).toBe(3);
    ac.abort();
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 50 && pidsWithCmdline(['sleep', secs]).length > 0; i++) await sleep(100);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('runs a 50 MB output to its end, keeps its first and last bytes, says how much was left out, and its memory stays flat', async () => {
    await call(client, ['echo', 'warm-up']);
    const before = rssKb(server.proc.pid!);
    const { s } = await call(client, ['yes', 'fifty megabytes of output', '|', 'head', '-c', '50000000']);
    const after = rssKb(server.proc.pid!);
    expect(s.outcome).toBe('ok');
    expect(s.stdoutTruncated).toBe(true);
    expect(s.stdoutBytes).toBe(50_000_000);
    // The answer shows head and tail within the output budget; the kept megabyte (with the executor's gap of
    // 48,951,424 bytes) is read with readOutput; the 50 MB is never held. 50e6 = 1923076 × 26 + 24.
    expect(s.stdout).toMatch(/^fifty megabytes of output\n[^]*\n\[… [\d,]+ bytes not shown; readOutput \{"id":"o\d+","offset":\d+\} reads on …\]\n[^]*fifty megabytes of output\nfifty megabytes of outpu$/);
    console.log(`server RSS growth for a 50 MB output: ${after - before} kB`);
    // The whole 50 MB crosses into the server now (it is drained, not cut): what grows is the stream's short-lived
    // chunks before a GC, not the kept text (test/unit/exec/capture.test.ts shows 500 MB grows no more than 50 MB).
    expect(after - before).toBeLessThan(64 * 1024);
  });

  it('runs at most --concurrency commands at once and queues the rest (limit 2, 6 calls)', async () => {
    const ws2 = tmpWorkspace();
    const s2 = await startServer(['--cwd', ws2, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--allow', 'sleep', '--concurrency', '2']);
    const c2 = await httpClient(s2.url);
    try {
      // ~1.2 s, spelt uniquely: the sampler counts only this test's sleeps, not other runs' on a shared machine.
      const secs = (1.2 + Math.random() / 1000).toFixed(7);
      let maxSeen = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          maxSeen = Math.max(maxSeen, pidsWithCmdline(['sleep', secs]).length);
          await sleep(50);
        }
      })();
      const results = await Promise.all(Array.from({ length: 6 }, () => call(c2, ['sleep', secs])));
      sampling = false;
      await sampler;
      expect(results.map((r) => r.s.outcome)).toEqual(Array(6).fill('ok'));
      expect(maxSeen).toBeLessThanOrEqual(2);
      expect(maxSeen).toBeGreaterThan(0);
      const queued = results.map((r) => r.s.queueMs as number).filter((q) => q > 500);
      expect(queued.length).toBeGreaterThanOrEqual(3);
    } finally {
      await c2.close();
      await s2.stop();
    }
  });

  it('stops every command tree when the server receives SIGTERM mid-command', async () => {
    const ws3 = tmpWorkspace();
    const s3 = await startServer(['--cwd', ws3, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--allow', `${FIXTURE_BIN}/spawn-tree`]);
    const c3 = await httpClient(s3.url);
    const secs = uniqueSeconds();
    // The server dies mid-call: the client's promise settles by its own timeout at the latest.
    const pending = c3.callTool({ name: 'shell_execute', arguments: { command: [`${FIXTURE_BIN}/spawn-tree`, secs] } }, undefined, { timeout: 5_000 }).catch(() => undefined);
    for (let i = 0; i < 50 && pidsWithCmdline(['sleep', secs]).length < 3; i++) await sleep(100);
    expect(pidsWithCmdline(['sleep', secs]).length).toBe(3);
    const code = await s3.stop('SIGTERM');
    expect(code).toBe(0);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
    await pending;
    await c3.close().catch(() => {});
  });
});
