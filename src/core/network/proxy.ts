import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import type { Duplex } from 'node:stream';
import { isToolError } from '../errors';
import type { FetchPolicy } from '../policy';
import { resolveChecked, systemLookup, type CheckedTarget, type GuardLabel, type LookupAll } from '../fetch/resolve';
import { normalHost } from './domains';
import { AttemptRecord, type NetworkRecord } from './record';

/**
 * The egress proxy: the ONLY way out of a sandbox with `network: domains` (and, refusing everything, with `fetch`
 * and `deny`). It runs in the server, outside the sandbox, one listener per command on a Unix socket the sandbox
 * is handed (src/core/network/sandboxWiring.ts), and speaks the two forms every HTTP client knows:
 *
 *   CONNECT host:port      a tunnel (TLS end to end: the proxy never sees inside it, and never interprets what
 *                          is sent through it, a CONNECT inside the tunnel included: that goes to the host)
 *   GET http://host/path   plain HTTP in absolute form, forwarded one request at a time (each request of a
 *                          kept-alive connection is judged on its own)
 *
 * For every request: the target is parsed strictly (anything else: 400); the Host header must name the same host
 * and port; `decide` judges the NAME (the domain list, the mode, a person) before any lookup; then the proxy
 * resolves the name ITSELF and judges every address with the fetch tool's guard (src/core/fetch/resolve.ts: no
 * private, loopback, link-local or metadata address unless the fetch settings allow it; IP literals by their
 * address in any spelling) and connects to exactly the address it judged. Every attempt, allowed or not, goes
 * into the record (record.ts).
 */

export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
  /** CONNECT, GET, POST … */
  readonly method: string;
}

export type HostDecision = { readonly allowed: true; readonly rule: string } | { readonly allowed: false; readonly rule: string; readonly reason: string };

export interface ProxyOptions {
  /** Where to listen: a Unix socket path (created here, removed at close) in a folder only the server can enter. */
  readonly socketPath: string;
  /** Whether a host may be reached: asked before any lookup. May wait for a person (a card). */
  readonly decide: (target: ProxyTarget) => Promise<HostDecision>;
  readonly addressPolicy: Pick<FetchPolicy, 'allowLoopback' | 'allowPrivate'>;
  /** Injected in tests, so no test ever asks a real resolver. */
  readonly lookup?: LookupAll;
  /** How long resolving and connecting to a host may take. */
  readonly connectTimeoutMs?: number;
}

export interface ProxySession {
  readonly socketPath: string;
  /** What was tried so far. */
  record(): NetworkRecord;
  /** Stops accepting, cuts every connection and tunnel, removes the socket; returns the final record. */
  close(): Promise<NetworkRecord>;
}

export const PROXY_GUARD: GuardLabel = { name: 'the proxy', rule: 'network' };
const HEADER_LIMIT = 16 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;

/** `host:port` of a CONNECT (a name, an IPv4 address or a bracketed IPv6 address; a port is required). */
const AUTHORITY = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]\\]+):([0-9]{1,5})$/;
/** A Host header: the same, the port optional. */
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]\\]+)(?::([0-9]{1,5}))?$/;

/** Headers of one hop only (RFC 9110 §7.6.1), never forwarded; `proxy-*` are ours, not the host's. */
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

export function parseAuthority(text: string): { host: string; port: number } | undefined {
  const m = AUTHORITY.exec(text);
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535) return undefined;
  return { host: normalHost(m[1]!), port };
}

/** A Host header names the target when its host matches and its port (or the scheme's default) does too. */
export function hostHeaderMatches(header: string | undefined, host: string, port: number, defaultPort: number): boolean {
  if (header === undefined) return true;
  const m = HOST_HEADER.exec(header.trim());
  if (!m) return false;
  return normalHost(m[1]!) === host && (m[2] === undefined ? port === defaultPort : Number(m[2]) === port);
}

/**
 * A CONNECT's Host header may also name the proxy itself on the loopback (Node's own http.request does): a
 * CONNECT's Host is never forwarded, so naming the proxy cannot pick another target. Anything else must match.
 */
function namesLoopback(header: string | undefined): boolean {
  const m = HOST_HEADER.exec((header ?? '').trim());
  return m !== null && ['127.0.0.1', 'localhost', '::1'].includes(normalHost(m[1]!));
}

type Refusal = { readonly status: number; readonly rule: string; readonly reason: string };
type Admitted = { readonly target: CheckedTarget; readonly entry: ReturnType<AttemptRecord['note']> };

export async function startProxy(o: ProxyOptions): Promise<ProxySession> {
  const record = new AttemptRecord();
  const lookup = o.lookup ?? systemLookup;
  const connectTimeoutMs = o.connectTimeoutMs ?? 30_000;
  const open = new Set<Duplex>();
  let closed = false;
  const track = (s: Duplex): void => {
    open.add(s);
    s.once('close', () => open.delete(s));
    if (closed) s.destroy();
  };

  /** The name, then the addresses: a refusal (recorded) or the judged address to connect to. */
  async function admit(t: ProxyTarget): Promise<Admitted | Refusal> {
    let decision: HostDecision;
    try {
      decision = await o.decide(t);
    } catch (e) {
      decision = { allowed: false, rule: 'network.decide-failed', reason: `the host could not be judged: ${(e as Error).message}` };
    }
    if (!decision.allowed) return refused(t, 403, decision.rule, decision.reason);
    try {
      const target = await withTimeout(resolveChecked(t.host, o.addressPolicy, lookup, PROXY_GUARD), connectTimeoutMs, `resolving ${t.host} took longer than ${connectTimeoutMs / 1000} s`);
      return { target, entry: record.note(t.host, t.port, t.method, true, decision.rule) };
    } catch (e) {
      if (isToolError(e) && e.code === 'NETWORK_DENIED') return refused(t, 403, e.rule ?? 'network.address', e.message);
      // Allowed, but it does not resolve: on the record as allowed and failed (nothing was sent).
      const reason = (e as Error).message;
      record.failed(record.note(t.host, t.port, t.method, true, decision.rule), reason);
      return { status: 502, rule: 'network.dns', reason };
    }
  }

  function refused(t: ProxyTarget, status: number, rule: string, reason: string): Refusal {
    record.note(t.host, t.port, t.method, false, rule, reason);
    return { status, rule, reason };
  }

  /** A malformed request: on the record under what it named (cut short), never forwarded. */
  function malformed(what: string, method: string, reason: string): Refusal {
    return refused({ host: what.slice(0, 100) || '(none)', port: 0, method: method.slice(0, 16) }, 400, 'network.proxy.bad-request', reason);
  }

  function onConnect(req: http.IncomingMessage, client: Duplex, head: Buffer): void {
    track(client);
    client.on('error', () => undefined);
    const target = parseAuthority(req.url ?? '');
    if (!target) return void answer(client, malformed(req.url ?? '', 'CONNECT', `"CONNECT ${req.url}" does not name a host and a port`));
    if (!hostHeaderMatches(req.headers.host, target.host, target.port, target.port) && !namesLoopback(req.headers.host)) {
      return void answer(client, refused({ ...target, method: 'CONNECT' }, 400, 'network.proxy.host-mismatch', `the Host header "${req.headers.host}" names another host than CONNECT ${req.url}`));
    }
    void admit({ ...target, method: 'CONNECT' }).then((a) => {
      if ('status' in a) return answer(client, a);
      if (closed) return client.destroy();
      const upstream = net.connect({ host: a.target.address, port: target.port, family: a.target.family });
      track(upstream);
      const timer = setTimeout(() => upstream.destroy(new Error(`connecting took longer than ${connectTimeoutMs / 1000} s`)), connectTimeoutMs);
      let connected = false;
      upstream.once('connect', () => {
        clearTimeout(timer);
        connected = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (e) => {
        clearTimeout(timer);
        if (connected) return void client.destroy();
        record.failed(a.entry, e.message);
        answer(client, { status: 502, rule: 'network.connect', reason: `${target.host}:${target.port}: ${e.message}` });
      });
      upstream.once('close', () => {
        clearTimeout(timer);
        record.bytes(a.entry, upstream.bytesWritten, upstream.bytesRead);
        client.destroy();
      });
      client.once('close', () => upstream.destroy());
    });
  }

  function onRequest(req: http.IncomingMessage, res: http.ServerResponse): void {
    const method = req.method ?? 'GET';
    const reply = (r: Refusal) => {
      req.resume();
      if (res.headersSent) return void res.destroy();
      res.writeHead(r.status, { 'content-type': 'text/plain; charset=utf-8', 'x-guarded-shell-rule': r.rule, connection: 'close' }).end(`Guarded Shell: ${r.reason}\n`);
    };
    const raw = req.url ?? '';
    if (!/^http:\/\//i.test(raw)) {
      const why = /^https:\/\//i.test(raw)
        ? `"${method} ${raw}": an https URL goes through CONNECT (the proxy does not speak TLS for the client)`
        : `"${method} ${raw}": send the absolute URL (http://host/path) or CONNECT host:port`;
      return reply(malformed(raw, method, why));
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return reply(malformed(raw, method, `"${raw}" is not a URL`));
    }
    if (url.username || url.password) return reply(malformed(url.hostname, method, 'a URL with a user name or password in it is refused (send an Authorization header instead)'));
    const target = { host: normalHost(url.hostname), port: url.port ? Number(url.port) : 80, method };
    if (!hostHeaderMatches(req.headers.host, target.host, target.port, 80)) {
      return reply(refused(target, 400, 'network.proxy.host-mismatch', `the Host header "${req.headers.host}" names another host than ${url.host}`));
    }
    void admit(target).then((a) => {
      if ('status' in a) return reply(a);
      if (closed) return void res.destroy();
      const upstream = http.request({
        host: a.target.address, family: a.target.family, port: target.port, method, path: url.pathname + url.search,
        headers: forwardedHeaders(req.rawHeaders, url.host), agent: false, setHost: false, timeout: connectTimeoutMs,
      });
      upstream.on('socket', (s) => {
        track(s);
        s.once('close', () => record.bytes(a.entry, s.bytesWritten, s.bytesRead));
      });
      upstream.on('timeout', () => upstream.destroy(new Error(`no answer within ${connectTimeoutMs / 1000} s`)));
      upstream.on('response', (up) => {
        // The host's answer without its hop-by-hop headers; the client's connection to the proxy may stay open
        // (its next request is judged on its own), the one to the host closes after this request.
        const headers = forwardedHeaders(up.rawHeaders);
        delete headers.connection;
        res.writeHead(up.statusCode ?? 502, up.statusMessage, headers);
        up.pipe(res);
        up.on('error', () => res.destroy());
      });
      upstream.on('error', (e) => {
        record.failed(a.entry, e.message);
        reply({ status: 502, rule: 'network.connect', reason: `${url.host}: ${e.message}` });
      });
      res.once('close', () => upstream.destroy());
      req.pipe(upstream);
    });
  }

  const server = http.createServer({ maxHeaderSize: HEADER_LIMIT, requestTimeout: 0, headersTimeout: HEADERS_TIMEOUT_MS }, onRequest);
  server.on('connection', (s: net.Socket) => track(s));
  server.on('connect', onConnect);
  // A protocol switch of a plain request (WebSocket over ws://) would leave the proxy carrying an unparsed
  // stream to the host: refused (WebSocket clients behind a proxy use CONNECT).
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex) => {
    socket.on('error', () => undefined);
    answer(socket, malformed(req.url ?? '', req.method ?? 'GET', 'a protocol upgrade through the proxy is refused (use CONNECT)'));
  });
  // What the HTTP parser itself rejects (a malformed request line or header) is on the record too.
  server.on('clientError', (e: Error & { code?: string }, socket: Duplex) => {
    if (e.code === 'ECONNRESET') return void socket.destroy();
    answer(socket, malformed('(unparsable request)', '?', `the request could not be parsed (${e.code ?? e.message})`));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });

  let closing: Promise<NetworkRecord> | undefined;
  return {
    socketPath: o.socketPath,
    record: () => record.snapshot(),
    close: () =>
      (closing ??= (async () => {
        closed = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        // A tunnel's bytes are counted when its socket closes, a tick after destroy(): the record is read once
        // every socket has closed, or a busy machine reads it before the last tunnel's bytes are in.
        const sockets = [...open].map((s) => new Promise<void>((resolve) => s.once('close', () => resolve())));
        for (const s of open) s.destroy();
        await Promise.all([stopped, ...sockets]);
        fs.rmSync(o.socketPath, { force: true });
        return record.snapshot();
      })()),
  };
}

/** A refusal on a raw socket (CONNECT, upgrade): status, the rule in a header, the reason as the body. */
function answer(socket: Duplex, r: Refusal): void {
  const body = `Guarded Shell: ${r.reason}\n`;
  const text = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[r.status] ?? 'Error';
  if (!socket.writable) return void socket.destroy();
  socket.end(`HTTP/1.1 ${r.status} ${text}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-guarded-shell-rule: ${r.rule}\r\nconnection: close\r\n\r\n${body}`);
}

/** Raw header pairs without the hop-by-hop ones (and those the Connection header names); `host` set when given. */
function forwardedHeaders(raw: readonly string[], host?: string): Record<string, string | string[]> {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'connection') for (const t of raw[i + 1]!.split(',')) named.add(t.trim().toLowerCase());
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name) || (host !== undefined && name === 'host')) continue;
    const prev = out[name];
    out[name] = prev === undefined ? raw[i + 1]! : [...(Array.isArray(prev) ? prev : [prev]), raw[i + 1]!];
  }
  if (host !== undefined) out.host = host;
  out.connection = 'close';
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}
