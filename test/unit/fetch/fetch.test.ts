import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest, Approver } from '../../../src/core/approval';
import { unavailableApprover } from '../../../src/core/approval';
import { AuditLog, memorySink } from '../../../src/core/audit';
import { guardedGet } from '../../../src/core/fetch/client';
import { htmlToText } from '../../../src/core/fetch/prettify';
import type { LookupAll } from '../../../src/core/fetch/resolve';
import { runFetch } from '../../../src/core/fetch/run';
import { parsePolicy, type PolicyInput } from '../../../src/core/policy';

// Every request in this file goes to a server on 127.0.0.1; any other name is answered by a stub resolver.
let server: http.Server;
let base: string;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url!);
    const u = new URL(req.url!, 'http://x');
    switch (u.pathname) {
      case '/hello':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello from 127.0.0.1');
        return;
      case '/html':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>T</title><script>evil()</script></head><body><h1>Title</h1><p>One &amp; <a href="/x">two</a></p><ul><li>a</li><li>b</li></ul></body></html>');
        return;
      case '/huge': {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        const pump = () => {
          while (sent < 50 * 1024 * 1024) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (sent = Infinity));
        pump();
        return;
      }
      case '/gzip-bomb':
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a')));
        return;
      case '/slow':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('start');
        setTimeout(() => res.end('late'), 20_000).unref();
        return;
      case '/redirect':
        res.writeHead(302, { location: u.searchParams.get('to')! }).end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' }).end();
        return;
      case '/missing':
        res.writeHead(404, { 'content-type': 'text/plain' }).end('nope');
        return;
      default:
        res.writeHead(500).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function setup(fetchPolicy: PolicyInput['fetch'] = {}, mode: PolicyInput['mode'] = 'auto', approver: Approver = unavailableApprover) {
  const sink = memorySink();
  const policy = parsePolicy({ root: '/tmp', mode, fetch: { ...fetchPolicy } });
  return { sink, deps: { policy: () => policy, approver: () => approver, audit: new AuditLog([sink]) } };
}

/** A stub resolver: names map to fixed answers, and every call is recorded. */
function stubLookup(table: Record<string, string[] | (() => string[])>): LookupAll & { calls: string[] } {
  const calls: string[] = [];
  const fn = (async (host: string) => {
    calls.push(host);
    const entry = table[host];
    if (!entry) throw new Error(`ENOTFOUND ${host}`);
    const list = typeof entry === 'function' ? entry() : entry;
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as unknown as LookupAll & { calls: string[] };
  fn.calls = calls;
  return fn;
}

describe('fetch against a local server on 127.0.0.1', () => {
  it('stops a request to loopback by default, before any packet is sent', async () => {
    const { deps, sink } = setup();
    const before = hits.length;
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/hello` });
    expect(r.outcome).toBe('denied');
    expect(r.denial?.code).toBe('NETWORK_DENIED');
    expect(r.denial?.rule).toBe('fetch.address.loopback');
    expect(hits.length).toBe(before);
    expect(sink.records.at(-1)).toMatchObject({ event: 'fetch_audit', result_type: 'rejected', error_code: 'NETWORK_DENIED' });
  });

  it('stops loopback spelled 0x7f.1 and 2130706433', async () => {
    const { deps } = setup();
    for (const host of ['0x7f.1', '2130706433', '[::ffff:127.0.0.1]']) {
      const r = await runFetch(deps, { tool: 'fetch' }, { url: `http://${host}:${port}/hello` });
      expect(r.denial?.code, host).toBe('NETWORK_DENIED');
    }
  });

  it('fetches when loopback is explicitly allowed, with the status and the audit', async () => {
    const { deps, sink } = setup({ allowLoopback: true });
    const r = await runFetch(deps, { tool: 'fetch', requestId: 'r1' }, { url: `${base}/hello` });
    expect(r.outcome).toBe('ok');
    expect(r.status).toBe(200);
    expect(r.body).toBe('hello from 127.0.0.1');
    const rec = sink.records.at(-1)!;
    expect(rec).toMatchObject({ event: 'fetch_audit', tool: 'fetch', request_id: 'r1', result_type: 'success', status: 200, bytes: 20 });
    expect(JSON.stringify(rec)).not.toContain('hello from');
  });

  it('returns an HTTP error status as a result', async () => {
    const { deps } = setup({ allowLoopback: true });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/missing` });
    expect(r.outcome).toBe('ok');
    expect(r.status).toBe(404);
    expect(r.body).toBe('nope');
  });

  it('times out on a server that never finishes', async () => {
    const { deps, sink } = setup({ allowLoopback: true, timeoutSeconds: 1 });
    // The server never finishes: an answer at all, with outcome timeout, is the proof.
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/slow` });
    expect(r.outcome).toBe('timeout');
    expect(r.error?.message).toMatch(/timed out after 1 s/);
    expect(sink.records.at(-1)).toMatchObject({ result_type: 'timeout' });
  });

  it('cuts a huge body at the size cap and stops reading', async () => {
    const { deps } = setup({ allowLoopback: true, maxBytes: 100_000 });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/huge` });
    expect(r.outcome).toBe('ok');
    expect(r.truncated).toBe(true);
    expect(r.bytes).toBe(100_000);
    expect(r.body!.length).toBe(100_000);
  });

  it('cuts a gzip bomb at the cap after decompression', async () => {
    const { deps } = setup({ allowLoopback: true, maxBytes: 50_000 });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/gzip-bomb` });
    expect(r.truncated).toBe(true);
    expect(r.bytes).toBe(50_000);
    expect(r.body).toBe('a'.repeat(50_000));
  });

  it('refuses a redirect to the metadata address even with loopback allowed', async () => {
    const { deps } = setup({ allowLoopback: true });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}` });
    expect(r.outcome).toBe('denied');
    expect(r.denial?.rule).toBe('fetch.address.metadata');
  });

  it('refuses a redirect to a name that resolves to a private address (stub resolver)', async () => {
    const { deps } = setup({ allowLoopback: true });
    const lookup = stubLookup({ 'internal.test': ['10.0.0.5'] });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/redirect?to=${encodeURIComponent('http://internal.test/admin')}` }, lookup);
    expect(r.denial?.rule).toBe('fetch.address.private');
    expect(r.denial?.message).toContain('10.0.0.5');
    expect(lookup.calls).toEqual(['internal.test']);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const { deps } = setup({ allowLoopback: true });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}` });
    expect(r.denial?.rule).toBe('fetch.scheme');
  });

  it('stops an endless redirect loop at maxRedirects', async () => {
    const { deps } = setup({ allowLoopback: true, maxRedirects: 3 });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/loop` });
    expect(r.outcome).toBe('failed');
    expect(r.error?.message).toMatch(/after 3 redirects/);
  });

  it('follows an allowed redirect and reports the chain', async () => {
    const { deps } = setup({ allowLoopback: true });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/redirect?to=/hello` });
    expect(r.status).toBe(200);
    expect(r.finalUrl).toBe(`${base}/hello`);
    expect(r.redirects).toEqual([`${base}/hello`]);
  });

  it('stops a host that answers one public and one private address', async () => {
    const { deps } = setup();
    const lookup = stubLookup({ 'mixed.test': ['93.184.216.34', '192.168.1.1'] });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: 'http://mixed.test/' }, lookup);
    expect(r.denial?.rule).toBe('fetch.address.private');
  });

  it('stops DNS rebinding: the second answer (metadata) is judged again before connecting', async () => {
    const { deps } = setup({ allowLoopback: true });
    let n = 0;
    const lookup = stubLookup({ 'rebind.test': () => (n++ === 0 ? ['127.0.0.1'] : ['169.254.169.254']) });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `http://rebind.test:${port}/hello` }, lookup);
    expect(r.denial?.rule).toBe('fetch.address.metadata');
  });

  it('connects to the judged address, not to a later DNS answer (pinned lookup)', async () => {
    const policy = parsePolicy({ root: '/tmp', fetch: { allowLoopback: true } }).fetch;
    let n = 0;
    const lookup = stubLookup({ 'pinned.test': () => (n++ === 0 ? ['127.0.0.1'] : ['10.9.9.9']) });
    const res = await guardedGet(`http://pinned.test:${port}/hello`, { policy, lookup });
    expect(res.status).toBe(200);
    expect(res.address).toBe('127.0.0.1');
    expect(lookup.calls).toEqual(['pinned.test']); // the socket never asked the resolver itself
  });

  it('refuses schemes other than http and https', async () => {
    const { deps } = setup();
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'gopher://127.0.0.1/']) {
      const r = await runFetch(deps, { tool: 'fetch' }, { url });
      expect(r.denial?.rule, url).toBe('fetch.scheme');
    }
  });

  it('asks in confirm mode and does not fetch when the person says no', async () => {
    const seen: ApprovalRequest[] = [];
    const approver: Approver = { kind: 'fake', approve: async (req) => (seen.push(req), { approved: false, by: 'user', reason: 'no' }) };
    const { deps } = setup({ allowLoopback: true }, 'confirm', approver);
    const before = hits.length;
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/hello` });
    expect(r.denial?.code).toBe('APPROVAL_DENIED');
    expect(seen[0]?.fetch?.url).toBe(`${base}/hello`);
    expect(hits.length).toBe(before);
  });

  it('prettifies HTML into readable text', async () => {
    const { deps } = setup({ allowLoopback: true });
    const r = await runFetch(deps, { tool: 'fetch' }, { url: `${base}/html`, prettify: true });
    expect(r.prettified).toBe(true);
    expect(r.body).not.toContain('evil');
    expect(r.body).toContain('# Title');
    expect(r.body).toContain('One & two (/x)');
    expect(r.body).toContain('- a\n- b');
  });
});

describe('fetch obeys the domain list (network: domains), the same verdict as the egress proxy', () => {
  function domains(mode: PolicyInput['mode'], approver: Approver = unavailableApprover) {
    const policy = parsePolicy({ root: '/tmp', mode, network: 'domains', allowedDomains: ['listed.test'], deniedDomains: ['no.listed.test'], fetch: { allowLoopback: true } });
    return { policy: () => policy, approver: () => approver, audit: new AuditLog() };
  }
  const names = () => stubLookup({ 'listed.test': ['127.0.0.1'], 'unlisted.test': ['127.0.0.1'], 'no.listed.test': ['127.0.0.1'] });

  it('fetches a listed host', async () => {
    const r = await runFetch(domains('auto'), { tool: 'fetch' }, { url: `http://listed.test:${port}/hello` }, names());
    expect(r.outcome).toBe('ok');
    expect(r.body).toBe('hello from 127.0.0.1');
  });

  it('refuses an unlisted host in auto without resolving it, naming the setting', async () => {
    const lookup = names();
    const before = hits.length;
    const r = await runFetch(domains('auto'), { tool: 'fetch' }, { url: `http://unlisted.test:${port}/hello` }, lookup);
    expect(r.denial).toMatchObject({ code: 'NETWORK_DENIED', rule: 'network.domain.unlisted' });
    expect(r.denial!.message).toMatch(/--allow-domain unlisted\.test/);
    expect(lookup.calls).toEqual([]);
    expect(hits.length).toBe(before);
  });

  it('refuses a denied host even under an allowed entry', async () => {
    const r = await runFetch(domains('auto'), { tool: 'fetch' }, { url: `http://no.listed.test:${port}/hello` }, names());
    expect(r.denial).toMatchObject({ rule: 'network.domain.denied' });
  });

  it('asks about an unlisted host in confirm (the card names the host) and fetches it once allowed', async () => {
    const seen: ApprovalRequest[] = [];
    const approver: Approver = { kind: 'fake', approve: async (req) => (seen.push(req), { approved: true, by: 'user' }) };
    const r = await runFetch(domains('confirm', approver), { tool: 'fetch' }, { url: `http://unlisted.test:${port}/hello` }, names());
    expect(r.outcome).toBe('ok');
    expect(seen[0]).toMatchObject({ rule: 'network.domain.unlisted', network: { host: 'unlisted.test', port, method: 'GET' } });
  });

  it('refuses a redirect from a listed host to an unlisted one, without resolving it', async () => {
    const lookup = names();
    const r = await runFetch(domains('auto'), { tool: 'fetch' }, { url: `http://listed.test:${port}/redirect?to=${encodeURIComponent(`http://unlisted.test:${port}/hello`)}` }, lookup);
    expect(r.denial).toMatchObject({ code: 'NETWORK_DENIED', rule: 'network.domain.unlisted' });
    expect(r.denial!.message).toMatch(/^fetch refused: unlisted\.test is not on the allowed domains/);
    expect(lookup.calls).toEqual(['listed.test', 'listed.test']);
  });
});

describe('htmlToText', () => {
  it('decodes entities and keeps preformatted line breaks', () => {
    expect(htmlToText('<p>a&lt;b &#x41;&#66;</p><pre>x\n  y</pre>')).toBe('a<b AB\n\nx\n  y');
  });
});
