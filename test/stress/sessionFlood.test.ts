import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HTTP_SESSIONS } from '../../src/core/limits';
import { rssKb, sleep } from '../helpers/procs';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { recordFigures } from './figures';

// Issue 12: 2,000 idle sessions took the server from 92 MB to 492 MB. The real server process, 2,000
// initialize requests abandoned at once (no DELETE, no stream): the table stays at the cap, memory bounded.
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } };
const HEADERS = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

// A 160 MB heap ceiling: V8 collects lazily, so RSS alone shows garbage too; with the ceiling a leak would end
// in an out-of-memory crash (the uncapped table did, at 2,000 sessions), while garbage is simply collected.
const HEAP_FLAG = '--max-old-space-size=160';

let server: RunningServer;
let root: string;
beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-flood-')));
  server = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'auto'], {}, { nodeFlags: [HEAP_FLAG] });
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('session flood against the real server', () => {
  it('2,000 abandoned sessions: RSS growth bounded, the server still answers', async () => {
    const pid = server.proc.pid!;
    const warm = await httpClient(server.url);
    await warm.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'warm'] } });
    await warm.close();
    const before = rssKb(pid);
    const started = performance.now();
    let peak = before;
    for (let i = 0; i < 2000; i += 50) {
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const r = await fetch(server.url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INIT) });
          await r.text();
          return r.status;
        }),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);
      peak = Math.max(peak, rssKb(pid));
    }
    const seconds = (performance.now() - started) / 1000;
    await sleep(500);
    const after = rssKb(pid);
    const client = await httpClient(server.url);
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'alive'] } })).stdout).toBe('alive\n');
    await client.close();
    recordFigures('session flood (2,000 abandoned)', {
      cap: MAX_HTTP_SESSIONS,
      heap_limit: HEAP_FLAG,
      rss_before_mb: Math.round(before / 1024),
      rss_peak_mb: Math.round(peak / 1024),
      rss_after_mb: Math.round(after / 1024),
      seconds: Math.round(seconds * 10) / 10,
    });
    // 100 sessions of ~0.3 MB each plus garbage not yet collected: far below the 400 MB the flood used to add.
    expect(peak - before).toBeLessThan(150 * 1024);
  });
});
