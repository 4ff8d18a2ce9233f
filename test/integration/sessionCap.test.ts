import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unavailableApprover } from '../../src/core/approval';
import { AuditLog } from '../../src/core/audit';
import { createExecutor } from '../../src/core/exec/executor';
import { NO_ISOLATION } from '../../src/core/isolationState';
import { parsePolicy } from '../../src/core/policy';
import { ServerContext } from '../../src/server/context';
import { createServer } from '../../src/server/createServer';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http/httpServer';
import { httpClient, structured, TOKEN } from '../helpers/serverProcess';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } };

/** One initialize POST, abandoned at once (no DELETE, no GET stream): what a vanished client leaves behind. */
async function abandonedSession(url: string): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INIT),
  });
  await r.text();
  return r.status;
}

const HEADERS = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

async function openSession(url: string): Promise<string> {
  const r = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INIT) });
  await r.text();
  return r.headers.get('mcp-session-id')!;
}

async function ping(url: string, session: string): Promise<number> {
  const r = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-03-26' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
  await r.text();
  return r.status;
}

describe('session flood: the session table is capped, idle sessions are evicted oldest first', () => {
  let http: RunningHttpServer;
  // A fresh server per test: a session table left over by one test is not the next test's business.
  beforeEach(async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-cap-')));
    const ctx = new ServerContext(parsePolicy({ root, allowCommands: ['echo', 'sleep'] }), createExecutor({ concurrency: 8 }), new AuditLog(), NO_ISOLATION, unavailableApprover, 'test');
    http = await startHttpServer(() => createServer(ctx), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http', maxSessions: 5 });
  });
  afterEach(async () => http?.close());

  it('2,000 abandoned sessions never hold more than the cap, and a new client still works', async () => {
    for (let i = 0; i < 2000; i += 50) {
      const statuses = await Promise.all(Array.from({ length: 50 }, () => abandonedSession(http.url)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(http.sessions()).toBeLessThanOrEqual(5);
    }
    const client = await httpClient(http.url);
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'alive'] } })).stdout).toBe('alive\n');
    await client.close();
  }, 120_000);

  it('evicts the idle session seen longest ago (never one with a request or stream open)', async () => {
    // Three live SDK clients (each keeps a GET stream open: busy) and three abandoned sessions, cap 5.
    const live = await Promise.all(Array.from({ length: 3 }, () => httpClient(http.url)));
    const a1 = await openSession(http.url);
    const a2 = await openSession(http.url);
    const a3 = await openSession(http.url);
    expect(http.sessions()).toBe(5);
    expect(await ping(http.url, a1)).toBe(404); // the oldest idle one made room for a3
    expect(await ping(http.url, a2)).toBe(200);
    expect(await ping(http.url, a3)).toBe(200);
    for (const c of live) expect(structured(await c.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'y'] } })).stdout).toBe('y\n');
    await Promise.all(live.map((c) => c.close()));
  });

  it('when every session is busy, a new one gets 503 with a JSON-RPC error; running calls are not cut', async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => httpClient(http.url)));
    const calls = clients.map((c) => c.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '1.5'] } }));
    await new Promise((r) => setTimeout(r, 400));
    const r = await fetch(http.url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INIT),
    });
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/Too many sessions: all 5 are busy/);
    for (const res of await Promise.all(calls)) expect(structured(res).outcome).toBe('ok');
    await Promise.all(clients.map((c) => c.close()));
  }, 30_000);
});
