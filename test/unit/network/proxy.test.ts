import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/core/audit';
import { hostDecider } from '../../../src/core/commands/hostApproval';
import type { LookupAll } from '../../../src/core/fetch/resolve';
import { startProxy, type ProxySession } from '../../../src/core/network/proxy';
import { parsePolicy } from '../../../src/core/policy';

/**
 * The egress proxy on its own (no sandbox): real sockets, two local HTTP servers on 127.0.0.1 under test names
 * that only the INJECTED resolver knows, and the raw bytes an attacker would send. Each test is named after the
 * attack it stops; "nothing leaves" is checked on the servers themselves (they count every connection).
 */

interface Origin {
  server: http.Server;
  port: number;
  connections: number;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
}

async function origin(name: string): Promise<Origin> {
  const o: Origin = { server: undefined as never, port: 0, connections: 0, requests: [] };
  o.server = http.createServer((req, res) => {
    o.requests.push({ method: req.method!, url: req.url!, headers: req.headers });
    req.resume();
    req.on('end', () => res.end(`${name}:${req.url}`));
  });
  // A CONNECT that arrives INSIDE a tunnel lands here, at the host: recorded, answered, never forwarded.
  o.server.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
    o.requests.push({ method: 'CONNECT', url: req.url!, headers: req.headers });
    socket.end(`HTTP/1.1 405 Not A Proxy\r\ncontent-length: 0\r\n\r\n`);
  });
  o.server.on('connection', () => o.connections++);
  await new Promise<void>((r) => o.server.listen(0, '127.0.0.1', r));
  o.port = (o.server.address() as net.AddressInfo).port;
  return o;
}

/** A raw client of the proxy's socket: what it received so far, and waits for a pattern or the end. */
class Raw {
  data = '';
  ended = false;
  private readonly socket: net.Socket;
  private readonly waiters: Array<() => void> = [];
  constructor(socketPath: string) {
    this.socket = net.connect(socketPath);
    this.socket.on('data', (d) => {
      this.data += d.toString('latin1');
      this.wake();
    });
    this.socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    this.socket.on('error', () => undefined);
  }
  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
  send(text: string): this {
    this.socket.write(text);
    return this;
  }
  async until(test: RegExp | 'end', ms = 5000): Promise<string> {
    const deadline = Date.now() + ms;
    while (!(test === 'end' ? this.ended : test.test(this.data))) {
      if (this.ended || Date.now() > deadline) throw new Error(`waited for ${String(test)}; got ${JSON.stringify(this.data)}${this.ended ? ' (closed)' : ''}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.data;
  }
  destroy(): void {
    this.socket.destroy();
  }
}

let dir: string;
let a: Origin; // allowed.test
let b: Origin; // other.test: never listed
let session: ProxySession;
const looked: string[] = [];

const NAMES: Record<string, string[]> = {
  'allowed.test': ['127.0.0.1'],
  'other.test': ['127.0.0.1'],
  'private.test': ['10.0.0.5'],
  'metadata.test': ['169.254.169.254'],
  'rebind.test': ['127.0.0.1', '10.1.2.3'],
};
const lookup: LookupAll = async (host) => {
  looked.push(host);
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: 4 }));
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-proxy-'));
  a = await origin('A');
  b = await origin('B');
});
afterAll(async () => {
  for (const o of [a, b]) {
    o.server.closeAllConnections();
    await new Promise((r) => o.server.close(r));
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

let n = 0;
beforeEach(async () => {
  looked.length = 0;
  for (const o of [a, b]) {
    o.connections = 0;
    o.requests.length = 0;
  }
  const policy = parsePolicy({
    root: dir, mode: 'auto', network: 'domains',
    allowedDomains: ['allowed.test', 'private.test', 'metadata.test', 'rebind.test', '*.gone.test', '127.0.0.1'],
    fetch: { allowLoopback: true },
  });
  const decide = hostDecider(policy, { approver: () => ({ kind: 'none', approve: async () => ({ approved: false, by: 'none' }) }), audit: new AuditLog() }, {
    tool: 'shell_execute', command: 'test', signal: new AbortController().signal,
  });
  session = await startProxy({ socketPath: path.join(dir, `${++n}.sock`), decide, addressPolicy: policy.fetch, lookup, connectTimeoutMs: 5000 });
});
afterEach(async () => {
  await session.close();
});

const attempts = () => session.record().attempts;

describe('the egress proxy lets the listed hosts through', () => {
  it('tunnels a CONNECT to a listed name, end to end, and records its bytes each way', async () => {
    const c = new Raw(session.socketPath).send(`CONNECT allowed.test:${a.port} HTTP/1.1\r\nHost: allowed.test:${a.port}\r\n\r\n`);
    await c.until(/^HTTP\/1\.1 200 /);
    c.send('GET /through HTTP/1.1\r\nHost: allowed.test\r\nConnection: close\r\n\r\n');
    expect(await c.until('end')).toMatch(/A:\/through$/);
    expect(a.requests).toEqual([expect.objectContaining({ method: 'GET', url: '/through' })]);
    await session.close();
    expect(attempts()).toEqual([
      expect.objectContaining({ host: 'allowed.test', port: a.port, allowed: true, methods: ['CONNECT'], requests: 1, rule: 'network.domain.listed' }),
    ]);
    expect(attempts()[0]!.bytesSent).toBeGreaterThan(40);
    expect(attempts()[0]!.bytesReceived).toBeGreaterThan(40);
  });

  it('forwards a plain request in absolute form as origin form, without the proxy headers', async () => {
    const c = new Raw(session.socketPath).send(
      `GET http://allowed.test:${a.port}/plain?q=1 HTTP/1.1\r\nHost: allowed.test:${a.port}\r\nProxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`,
    );
    expect(await c.until('end')).toMatch(/^HTTP\/1\.1 200 [\s\S]*A:\/plain\?q=1$/);
    expect(a.requests).toHaveLength(1);
    expect(a.requests[0]!.url).toBe('/plain?q=1');
    expect(a.requests[0]!.headers.host).toBe(`allowed.test:${a.port}`);
    expect(a.requests[0]!.headers['proxy-authorization']).toBeUndefined();
    expect(a.requests[0]!.headers['proxy-connection']).toBeUndefined();
    expect(attempts()).toEqual([expect.objectContaining({ host: 'allowed.test', allowed: true, methods: ['GET'] })]);
  });

  it('lets a listed IP address through in any spelling (and resolves nothing for it)', async () => {
    const c = new Raw(session.socketPath).send(`CONNECT 0x7f.1:${a.port} HTTP/1.1\r\n\r\n`);
    await c.until(/^HTTP\/1\.1 200 /);
    c.destroy();
    expect(looked).toEqual([]);
  });
});

describe('the egress proxy refuses, and nothing leaves', () => {
  it('a name not on the list: 403, never resolved, the host never contacted', async () => {
    const c = new Raw(session.socketPath).send(`CONNECT other.test:${b.port} HTTP/1.1\r\nHost: other.test:${b.port}\r\n\r\n`);
    const reply = await c.until('end');
    expect(reply).toMatch(/^HTTP\/1\.1 403 /);
    expect(reply).toMatch(/x-guarded-shell-rule: network\.domain\.unlisted/);
    expect(reply).toMatch(/other\.test is not on the allowed domains/);
    expect(looked).not.toContain('other.test');
    expect(b.connections).toBe(0);
    expect(attempts()).toEqual([expect.objectContaining({ host: 'other.test', allowed: false, rule: 'network.domain.unlisted', bytesSent: 0, bytesReceived: 0 })]);
  });

  it('a listed name that resolves to a private address (DNS pointing inside): refused after resolution', async () => {
    const reply = await new Raw(session.socketPath).send(`CONNECT private.test:80 HTTP/1.1\r\n\r\n`).until('end');
    expect(reply).toMatch(/^HTTP\/1\.1 403 [\s\S]*network\.address\.private/);
    expect(reply).toMatch(/resolves to 10\.0\.0\.5/);
    expect(attempts()).toEqual([expect.objectContaining({ host: 'private.test', allowed: false, rule: 'network.address.private' })]);
  });

  it('a listed name that resolves to the cloud metadata address: refused, whatever the settings', async () => {
    const reply = await new Raw(session.socketPath).send(`GET http://metadata.test/latest/meta-data/ HTTP/1.1\r\nHost: metadata.test\r\n\r\n`).until(/\r\n\r\n[\s\S]*\n/);
    expect(reply).toMatch(/^HTTP\/1\.1 403 [\s\S]*network\.address\.metadata/);
  });

  it('a name answering a public and a private address (rebinding): refused as a whole, nothing connected', async () => {
    const reply = await new Raw(session.socketPath).send(`CONNECT rebind.test:${a.port} HTTP/1.1\r\n\r\n`).until('end');
    expect(reply).toMatch(/^HTTP\/1\.1 403 [\s\S]*10\.1\.2\.3/);
    expect(a.connections).toBe(0);
  });

  it('an IP address not on the list, in any spelling: refused without a lookup', async () => {
    for (const literal of ['10.0.0.5', '127.0.0.2', '2130706434', '[::ffff:7f00:2]']) {
      const reply = await new Raw(session.socketPath).send(`CONNECT ${literal}:${a.port} HTTP/1.1\r\n\r\n`).until('end');
      expect(reply, literal).toMatch(/^HTTP\/1\.1 403 [\s\S]*network\.domain\.unlisted/);
    }
    expect(looked).toEqual([]);
    expect(a.connections).toBe(0);
  });

  it('a CONNECT inside a CONNECT goes to the listed host, never through the proxy again (no relay)', async () => {
    const c = new Raw(session.socketPath).send(`CONNECT allowed.test:${a.port} HTTP/1.1\r\n\r\n`);
    await c.until(/^HTTP\/1\.1 200 [^\n]*\r\n\r\n/);
    c.send(`CONNECT other.test:${b.port} HTTP/1.1\r\nHost: other.test:${b.port}\r\n\r\n`);
    expect(await c.until(/405 Not A Proxy/)).toMatch(/405 Not A Proxy/);
    c.destroy();
    expect(a.requests).toEqual([expect.objectContaining({ method: 'CONNECT', url: `other.test:${b.port}` })]);
    expect(b.connections).toBe(0);
    expect(attempts().map((x) => x.host)).toEqual(['allowed.test']);
  });

  it('a Host header naming another host than the CONNECT or the absolute URL: refused (400), nothing sent', async () => {
    let reply = await new Raw(session.socketPath).send(`CONNECT allowed.test:${a.port} HTTP/1.1\r\nHost: other.test:${b.port}\r\n\r\n`).until('end');
    expect(reply).toMatch(/^HTTP\/1\.1 400 [\s\S]*network\.proxy\.host-mismatch/);
    reply = await new Raw(session.socketPath).send(`GET http://allowed.test:${a.port}/ HTTP/1.1\r\nHost: other.test\r\n\r\n`).until(/\r\n\r\n[\s\S]*\n/);
    expect(reply).toMatch(/^HTTP\/1\.1 400 [\s\S]*network\.proxy\.host-mismatch/);
    // A CONNECT whose Host names the proxy itself (as Node's http.request sends it) is not a mismatch: never forwarded.
    const c = new Raw(session.socketPath).send(`CONNECT allowed.test:${a.port} HTTP/1.1\r\nHost: 127.0.0.1:3128\r\n\r\n`);
    await c.until(/^HTTP\/1\.1 200 /);
    c.destroy();
    a.connections = 0;
    // The same host on another port is another target too.
    reply = await new Raw(session.socketPath).send(`GET http://allowed.test:${a.port}/ HTTP/1.1\r\nHost: allowed.test:${b.port}\r\n\r\n`).until(/\r\n\r\n[\s\S]*\n/);
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(a.connections + b.connections).toBe(0);
    expect(attempts().filter((x) => !x.allowed)).toEqual([
      expect.objectContaining({ host: 'allowed.test', rule: 'network.proxy.host-mismatch', methods: ['CONNECT', 'GET'], requests: 3 }),
    ]);
  });

  it('absolute-URI tricks: user info, a backslash, https in plain form, origin form: the host parsed is the host judged', async () => {
    const tries = [
      [`GET http://allowed.test@other.test:${b.port}/ HTTP/1.1\r\nHost: other.test:${b.port}\r\n\r\n`, /^HTTP\/1\.1 400 /],
      // The HTTP parser refuses a backslash in the target outright (a URL parser would read it as "/": other.test).
      [`GET http://other.test:${b.port}\\@allowed.test/ HTTP/1.1\r\nHost: other.test:${b.port}\r\n\r\n`, /^HTTP\/1\.1 400 [\s\S]*could not be parsed/],
      [`GET http://other.test:${b.port}/@allowed.test/ HTTP/1.1\r\nHost: other.test:${b.port}\r\n\r\n`, /^HTTP\/1\.1 403 [\s\S]*other\.test is not on the allowed domains/],
      [`GET https://allowed.test:${a.port}/ HTTP/1.1\r\nHost: allowed.test:${a.port}\r\n\r\n`, /^HTTP\/1\.1 400 [\s\S]*goes through CONNECT/],
      [`GET /p HTTP/1.1\r\nHost: allowed.test:${a.port}\r\n\r\n`, /^HTTP\/1\.1 400 [\s\S]*absolute URL/],
      [`GET ftp://allowed.test/ HTTP/1.1\r\n\r\n`, /^HTTP\/1\.1 400 /],
    ] as const;
    for (const [request, expected] of tries) {
      const reply = await new Raw(session.socketPath).send(request).until('end');
      expect(reply, request).toMatch(expected);
    }
    expect(a.connections + b.connections).toBe(0);
  });

  it('each request of a kept-alive connection is judged on its own (a second one to another host is refused)', async () => {
    const c = new Raw(session.socketPath).send(`GET http://allowed.test:${a.port}/1 HTTP/1.1\r\nHost: allowed.test:${a.port}\r\n\r\n`);
    await c.until(/A:\/1/);
    c.send(`GET http://other.test:${b.port}/2 HTTP/1.1\r\nHost: other.test:${b.port}\r\n\r\n`);
    await c.until(/403 Forbidden[\s\S]*other\.test/);
    c.destroy();
    expect(b.connections).toBe(0);
    expect(attempts().map((x) => [x.host, x.allowed])).toEqual([['allowed.test', true], ['other.test', false]]);
  });

  it('malformed targets and protocol upgrades: refused, on the record', async () => {
    for (const request of [
      'CONNECT allowed.test HTTP/1.1\r\n\r\n', // no port
      `CONNECT allowed.test:99999 HTTP/1.1\r\n\r\n`,
      `CONNECT user@allowed.test:${a.port} HTTP/1.1\r\n\r\n`,
      `CONNECT allowed.test:${a.port}/x HTTP/1.1\r\n\r\n`,
      `GET http://allowed.test:${a.port}/ws HTTP/1.1\r\nHost: allowed.test:${a.port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`,
    ]) {
      const reply = await new Raw(session.socketPath).send(request).until('end');
      expect(reply, request).toMatch(/^HTTP\/1\.1 400 /);
    }
    expect(a.connections).toBe(0);
    expect(attempts().filter((x) => x.rule === 'network.proxy.bad-request')).toHaveLength(5);
  });

  it('a listed name that does not resolve: 502, on the record as allowed and failed', async () => {
    const reply = await new Raw(session.socketPath).send('CONNECT x.gone.test:443 HTTP/1.1\r\n\r\n').until('end');
    expect(reply).toMatch(/^HTTP\/1\.1 502 [\s\S]*ENOTFOUND/);
    expect(attempts()).toEqual([expect.objectContaining({ host: 'x.gone.test', allowed: true, reason: expect.stringMatching(/ENOTFOUND/) })]);
  });

  it('closing the session cuts an open tunnel and removes the socket', async () => {
    const c = new Raw(session.socketPath).send(`CONNECT allowed.test:${a.port} HTTP/1.1\r\n\r\n`);
    await c.until(/^HTTP\/1\.1 200 /);
    await session.close();
    await c.until('end');
    expect(fs.existsSync(session.socketPath)).toBe(false);
  });
});
