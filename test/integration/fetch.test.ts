import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, startServer, structured, TOKEN } from '../helpers/serverProcess';

// fetch through the real CLI and SDK client, against a test server on 127.0.0.1 only.
let local: http.Server;
let base: string;
let root: string;
let hits = 0;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-fetch-it-'));
  local = http.createServer((req, res) => {
    hits++;
    if (req.url === '/to-metadata') return void res.writeHead(302, { location: 'http://[::ffff:169.254.169.254]/latest/' }).end();
    if (req.url === '/slow') return void res.writeHead(200, { 'content-type': 'text/plain' }).write('partial');
    if (req.url === '/huge') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(200_000));
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Hi</h1><p>from <b>local</b></p>');
  });
  await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
});
afterAll(async () => {
  local.closeAllConnections();
  await new Promise((r) => local.close(r));
  fs.rmSync(root, { recursive: true, force: true });
});

async function withServer(flags: string[], fn: (call: (args: Record<string, unknown>) => Promise<{ isError: boolean; text: string; s: Record<string, any> }>, auditLog: string) => Promise<void>) {
  const auditLog = path.join(root, `audit-${Date.now()}.jsonl`);
  const s = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--auditlog', auditLog, ...flags]);
  const c = await httpClient(s.url);
  try {
    await fn(async (args) => {
      const r = await c.callTool({ name: 'fetch', arguments: args });
      return { isError: r.isError === true, text: (r.content as Array<{ text: string }>)[0]!.text, s: structured(r) };
    }, auditLog);
  } finally {
    await c.close();
    await s.stop();
  }
}

describe('fetch through the real server', () => {
  it('denies 127.0.0.1 by default, without sending it a request', async () => {
    await withServer([], async (call, auditLog) => {
      const before = hits;
      const r = await call({ url: `${base}/` });
      expect(r.isError).toBe(true);
      expect(r.s.denial).toMatchObject({ code: 'NETWORK_DENIED', rule: 'fetch.address.loopback' });
      expect(r.text).toMatch(/--fetch-allow-loopback/);
      expect(hits).toBe(before);
      const events = fs.readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(events.find((e) => e.event === 'fetch_audit')).toMatchObject({ tool: 'fetch', result_type: 'rejected', error_code: 'NETWORK_DENIED' });
    });
  });

  it('fetches with --fetch-allow-loopback, prettifies, cuts at the cap, and still refuses a redirect to metadata', async () => {
    await withServer(['--fetch-allow-loopback'], async (call) => {
      let r = await call({ url: `${base}/`, prettify: true });
      expect(r.isError).toBe(false);
      expect(r.s.status).toBe(200);
      expect(r.s.body).toBe('# Hi\n\nfrom local');
      r = await call({ url: `${base}/to-metadata` });
      expect(r.s.denial).toMatchObject({ code: 'NETWORK_DENIED', rule: 'fetch.address.metadata' });
    });
  });

  it('times out on a slow server and cuts a huge body (limits from the config file)', async () => {
    const conf = path.join(root, 'guarded-shell.json');
    fs.writeFileSync(conf, JSON.stringify({ fetch: { timeoutSeconds: 1, maxBytes: 1000 } }));
    await withServer(['--fetch-allow-loopback', '--conf', conf], async (call) => {
      // The server never finishes: an answer at all, with outcome timeout, is the proof.
      let r = await call({ url: `${base}/slow` });
      expect(r.s.outcome).toBe('timeout');
      r = await call({ url: `${base}/huge` });
      expect(r.s).toMatchObject({ outcome: 'ok', truncated: true, bytes: 1000 });
    });
  });
});
