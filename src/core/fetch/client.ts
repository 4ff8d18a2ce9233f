import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import * as tls from 'node:tls';
import * as zlib from 'node:zlib';
import { ToolError } from '../errors';
import type { FetchPolicy } from '../policy';
import { classifyAddress, parseAddress } from './address';
import { resolveChecked, systemLookup, type CheckedTarget, type LookupAll } from './resolve';

/**
 * The bounded HTTP client behind fetch. Each hop (the first request and every redirect, followed by hand) is
 * resolved and judged again, and the connection goes to exactly the address that was judged: the socket's
 * `lookup` is replaced by one that answers the pinned address, so DNS rebinding between the check and the
 * connect cannot redirect it. One deadline covers all hops; the body is cut at the size cap.
 */

export interface RawResponse {
  readonly status: number;
  readonly statusText: string;
  readonly finalUrl: string;
  readonly redirects: readonly string[];
  readonly contentType: string;
  readonly body: Buffer;
  /** Bytes received (after decompression) before the cap; more existed when `truncated`. */
  readonly truncated: boolean;
  readonly address: string;
}

export interface ClientOptions {
  readonly policy: FetchPolicy;
  readonly lookup?: LookupAll;
  readonly signal?: AbortSignal;
  /** Judges each hop's host by name before it is resolved (network: domains); throws a ToolError to refuse it. */
  readonly checkHost?: (host: string) => void;
  /**
   * Where a loopback port leads when it is not this machine's: a port a sandboxed background command listens on
   * (src/core/background/network.ts). Undefined: connect to the judged address as usual.
   */
  readonly route?: (port: number) => Promise<(() => Promise<Duplex>) | undefined>;
}

/** The URL's port, or its scheme's. */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/**
 * A URL that names the loopback itself (localhost, 127.x.x.x, [::1] in any spelling) on a port the person listed
 * (fetch.loopbackPorts): that hop may reach the loopback without fetch.allowLoopback. A name that merely resolves
 * to the loopback does not count.
 */
export function loopbackPortListed(url: URL, policy: Pick<FetchPolicy, 'loopbackPorts'>): boolean {
  if (!policy.loopbackPorts.includes(portOf(url))) return false;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host.toLowerCase() === 'localhost') return true;
  const literal = parseAddress(host);
  return literal !== undefined && classifyAddress(literal) === 'loopback';
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class FetchTimeoutError extends ToolError {
  constructor(seconds: number) {
    super('IO_ERROR', `fetch timed out after ${seconds} s.`, 'fetch.timeout');
  }
}

export function checkUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError('BAD_REQUEST', `"${text}" is not a valid URL.`, 'fetch.url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError('NETWORK_DENIED', `fetch only speaks http and https, not "${url.protocol.replace(/:$/, '')}".`, 'fetch.scheme');
  }
  return url;
}

export async function guardedGet(start: string, options: ClientOptions): Promise<RawResponse> {
  const { policy } = options;
  const lookup = options.lookup ?? systemLookup;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new FetchTimeoutError(policy.timeoutSeconds)), policy.timeoutSeconds * 1000);
  const onCancel = () => deadline.abort(new ToolError('IO_ERROR', 'fetch was canceled.', 'fetch.canceled'));
  options.signal?.addEventListener('abort', onCancel, { once: true });
  try {
    const redirects: string[] = [];
    let url = checkUrl(start);
    for (;;) {
      options.checkHost?.(url.hostname);
      const hopPolicy = loopbackPortListed(url, policy) ? { ...policy, allowLoopback: true } : policy;
      const target = await raceAbort(resolveChecked(url.hostname, hopPolicy, lookup), deadline.signal);
      const loopback = classifyAddress(parseAddress(target.address)!) === 'loopback';
      const via = loopback && options.route ? await options.route(portOf(url)) : undefined;
      const res = await request(url, target, deadline.signal, policy.maxBytes, via);
      if (REDIRECTS.has(res.status) && res.location !== undefined) {
        if (redirects.length >= policy.maxRedirects) {
          throw new ToolError('IO_ERROR', `fetch stopped after ${policy.maxRedirects} redirects (last: ${url.href} → ${res.location}).`, 'fetch.too-many-redirects');
        }
        url = checkUrl(new URL(res.location, url).href);
        redirects.push(url.href);
        continue;
      }
      return { status: res.status, statusText: res.statusText, finalUrl: url.href, redirects, contentType: res.contentType, body: res.body, truncated: res.truncated, address: target.address };
    }
  } catch (e) {
    if (deadline.signal.aborted && deadline.signal.reason instanceof ToolError) throw deadline.signal.reason;
    throw e;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
}

interface HopResult {
  readonly status: number;
  readonly statusText: string;
  readonly location?: string;
  readonly contentType: string;
  readonly body: Buffer;
  readonly truncated: boolean;
}

function request(url: URL, target: CheckedTarget, signal: AbortSignal, maxBytes: number, via?: () => Promise<Duplex>): Promise<HopResult> {
  // Answers every lookup of this socket with the judged address, in both callback shapes net may ask for.
  const pinned: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const lib = url.protocol === 'https:' ? https : http;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return new Promise<HopResult>((resolve, reject) => {
    const req = lib.request(
      {
        protocol: url.protocol,
        host,
        port: url.port || undefined,
        path: url.pathname + url.search,
        method: 'GET',
        lookup: pinned,
        // No pooled socket from an earlier hop may be reused for a different address. A sandboxed background
        // command's port: the connection is the port bridge's (https inside it too), and no agent at all, or Node
        // would let the agent connect instead of createConnection.
        ...(!via && { agent: false }),
        ...(via && {
          createConnection: (_o: unknown, done: (e: Error | null, s: Socket) => void) => {
            via().then(
              (s) => done(null, (url.protocol === 'https:' ? tls.connect({ socket: s, ...(parseAddress(host) ? {} : { servername: host }) }) : s) as Socket),
              (e: unknown) => done(e as Error, undefined as unknown as Socket),
            );
            return undefined as unknown as Socket;
          },
        }),
        signal,
        headers: {
          'user-agent': 'guarded-shell-fetch/1',
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
          ...(url.username && { authorization: `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` }),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
        const contentType = String(res.headers['content-type'] ?? '');
        if (REDIRECTS.has(status) && location !== undefined) {
          res.resume();
          res.on('end', () => resolve({ status, statusText: res.statusMessage ?? '', location, contentType, body: Buffer.alloc(0), truncated: false }));
          res.on('error', reject);
          return;
        }
        const stream = decoded(res);
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () => resolve({ status, statusText: res.statusMessage ?? '', contentType, body: Buffer.concat(chunks, size), truncated });
        stream.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = maxBytes - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size += room;
            truncated = true;
            // Stop reading: a huge (or endless) body costs no more than the cap.
            res.destroy();
            finish();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        stream.on('end', finish);
        stream.on('error', (e) => (truncated ? undefined : reject(e)));
        res.on('error', (e) => (truncated ? undefined : reject(e)));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function decoded(res: http.IncomingMessage): NodeJS.ReadableStream {
  const enc = String(res.headers['content-encoding'] ?? '').toLowerCase().trim();
  if (enc === 'gzip' || enc === 'x-gzip') return res.pipe(zlib.createGunzip());
  if (enc === 'deflate') return res.pipe(zlib.createInflate());
  if (enc === 'br') return res.pipe(zlib.createBrotliDecompress());
  return res;
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
