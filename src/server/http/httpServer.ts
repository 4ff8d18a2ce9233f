import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MAX_HTTP_SESSIONS, SESSION_IDLE_MS } from '../../core/limits';
import { allowedHosts, bearerMatches, corsHeaders, hostAllowed } from './guards';

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  /** null = no authentication (--noauth). */
  readonly token: string | null;
  readonly corsOrigins: readonly string[];
  readonly transport: 'http' | 'sse';
  /** Largest request body accepted; larger ones get 413 and the server keeps serving. */
  readonly maxBodyBytes?: number;
  /**
   * A Streamable HTTP session with no request for this long is closed (clients that vanish without DELETE would
   * otherwise keep their server objects forever). Default 30 minutes.
   */
  readonly sessionIdleMs?: number;
  /**
   * Sessions held at once (default MAX_HTTP_SESSIONS). A new session evicts the oldest idle one when full; with
   * none idle it gets 503 and a JSON-RPC error, and running calls are never cut.
   */
  readonly maxSessions?: number;
}

export interface RunningHttpServer {
  readonly url: string;
  readonly port: number;
  readonly sessions: () => number;
  close(): Promise<void>;
}

interface Session {
  readonly transport: Transport;
  readonly close: () => void;
  /** When the last request of this session ended (or started), and how many are in flight. */
  lastSeen: number;
  inFlight: number;
}

type ServerFactory = () => { server: McpServer; dispose: () => void };

const DEFAULT_MAX_BODY = 16 * 1024 * 1024;

/**
 * Streamable HTTP at /mcp (or legacy SSE at /sse + /messages) on one port, behind three gates in this order:
 * Host header (DNS rebinding), Origin (CORS allowlist), bearer token. Each client session gets its own McpServer;
 * all share one context. A client that drops its connection mid-call has its calls cancelled (its processes die).
 */
export async function startHttpServer(factory: ServerFactory, options: HttpServerOptions): Promise<RunningHttpServer> {
  const sessions = new Map<string, Session>();
  let hosts: Set<string> | undefined;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const maxSessions = options.maxSessions ?? MAX_HTTP_SESSIONS;
  /** Sessions being set up (initialize received, id not yet assigned): they count against the cap too. */
  let pending = 0;

  /**
   * Room for one more session: evict the idle session seen longest ago if the table is full. False when every
   * session has a request in flight (nothing can be evicted without cutting a running call).
   */
  function makeRoom(): boolean {
    while (sessions.size + pending >= maxSessions) {
      let oldest: [string, Session] | undefined;
      for (const entry of sessions) if (entry[1].inFlight === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
      if (!oldest) return false;
      sessions.delete(oldest[0]);
      oldest[1].close();
    }
    return true;
  }
  const full = (res: http.ServerResponse): void =>
    jsonRpcError(res, 503, -32000, `Too many sessions: all ${maxSessions} are busy with running calls. Try again when one finishes.`);

  const handler = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!hostAllowed(req.headers.host, hosts)) return reject(res, 403, `Host "${req.headers.host ?? ''}" is not allowed (DNS rebinding protection).`);
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const cors = corsHeaders(origin, options.corsOrigins);
      if (!cors) return reject(res, 403, `Origin "${origin}" is not allowed (see --cors-origin).`);
      for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
      if (req.method === 'OPTIONS') {
        res.writeHead(204).end();
        return;
      }
    }
    if (url.pathname === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
      return;
    }
    // No OAuth here: a client that probes the discovery URLs must learn that at once, not start a login flow.
    if (url.pathname.startsWith('/.well-known/')) return reject(res, 404, NO_OAUTH);
    if (options.token !== null && !bearerMatches(req.headers.authorization, options.token)) {
      const missing = req.headers.authorization === undefined;
      res.setHeader('WWW-Authenticate', `Bearer realm="guarded-shell", error="invalid_token", error_description="${missing ? 'no bearer token' : 'wrong or stale bearer token'}"`);
      return reject(res, 401, missing ? NO_TOKEN : WRONG_TOKEN);
    }
    if (options.transport === 'sse') return handleSse(req, res, url);
    if (url.pathname !== '/mcp' && url.pathname !== '/mcp/') return reject(res, 404, `Nothing at ${url.pathname}; the MCP endpoint is /mcp.`);
    return handleStreamable(req, res);
  };

  async function handleStreamable(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const sessionId = header(req, 'mcp-session-id');
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJson(req, maxBody);
      if (!read.ok) return jsonRpcError(res, read.status, read.code, read.message);
      body = read.value;
    }
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, -32001, 'Session not found: start a new session with initialize.');
      cancelOnDisconnect(req, res, session.transport, body);
      track(session, res);
      return (session.transport as StreamableHTTPServerTransport).handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return jsonRpcError(res, 400, -32000, 'Bad request: no Mcp-Session-Id header and not an initialize request.');
    }
    if (!makeRoom()) return full(res);
    const { server, dispose } = factory();
    pending++;
    let counted = true;
    const settle = (): void => {
      if (counted) pending--;
      counted = false;
    };
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        settle();
        sessions.set(id, { transport, close: () => void transport.close(), lastSeen: Date.now(), inFlight: 0 });
      },
    });
    res.once('close', settle);
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      dispose();
      void server.close().catch(() => {});
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handleSse(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    if (req.method === 'GET' && url.pathname === '/sse') {
      if (!makeRoom()) return full(res);
      const { server, dispose } = factory();
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, { transport, close: () => void transport.close(), lastSeen: Date.now(), inFlight: 1 });
      res.on('close', () => {
        sessions.delete(transport.sessionId);
        dispose();
        void server.close().catch(() => {});
      });
      await server.connect(transport);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/messages') {
      const session = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (!session) return reject(res, 404, 'Unknown SSE session.');
      session.lastSeen = Date.now();
      const read = await readJson(req, maxBody);
      if (!read.ok) return jsonRpcError(res, read.status, read.code, read.message);
      return (session.transport as SSEServerTransport).handlePostMessage(req, res, read.value);
    }
    return reject(res, 404, 'The SSE endpoints are GET /sse and POST /messages.');
  }

  /** A request keeps its session alive while it runs (a long command is not idleness). */
  function track(session: Session, res: http.ServerResponse): void {
    session.inFlight++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.inFlight--;
      session.lastSeen = Date.now();
    });
  }

  const idleMs = options.sessionIdleMs ?? SESSION_IDLE_MS;
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) {
      if (s.inFlight === 0 && now - s.lastSeen > idleMs) {
        sessions.delete(id);
        s.close();
      }
    }
  }, Math.min(60_000, Math.max(1_000, Math.floor(idleMs / 2))));
  sweeper.unref();

  const server = http.createServer((req, res) => {
    handler(req, res).catch((e) => {
      if (!res.headersSent) jsonRpcError(res, 500, -32603, `Internal error: ${(e as Error).message}`);
      else res.end();
    });
  });
  server.requestTimeout = 0; // long-running commands stream their response
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(options.host, port);
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}${options.transport === 'sse' ? '/sse' : '/mcp'}`,
    port,
    sessions: () => sessions.size,
    close: async () => {
      clearInterval(sweeper);
      for (const s of sessions.values()) s.close();
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * When the client drops the connection that carries its requests, cancel those requests exactly as if it had
 * sent notifications/cancelled: the tool's abort signal fires and the executor kills the process tree.
 */
function cancelOnDisconnect(req: http.IncomingMessage, res: http.ServerResponse, transport: Transport, body: unknown): void {
  if (req.method !== 'POST') return;
  const ids = (Array.isArray(body) ? body : [body])
    .filter((m): m is { id: string | number; method: string } => !!m && typeof m === 'object' && 'id' in m && 'method' in m)
    .map((m) => m.id);
  if (ids.length === 0) return;
  res.on('close', () => {
    if (res.writableFinished) return;
    for (const id of ids) {
      const cancel: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'client disconnected' } };
      transport.onmessage?.(cancel);
    }
  });
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

type ReadResult = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

function readJson(req: http.IncomingMessage, limit: number): Promise<ReadResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limit) {
      req.resume();
      resolve({ ok: false, status: 413, code: -32600, message: `Request body too large (${declared} bytes; the limit is ${limit}).` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        req.resume();
        resolve({ ok: false, status: 413, code: -32600, message: `Request body too large (over ${limit} bytes).` });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve({ ok: true, value: JSON.parse(text) });
      } catch (e) {
        resolve({ ok: false, status: 400, code: -32700, message: `Parse error: ${(e as Error).message}` });
      }
    });
    req.on('error', () => {
      if (!done) resolve({ ok: false, status: 400, code: -32700, message: 'The request body could not be read.' });
      done = true;
    });
  });
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Auth answers that say what happened and what to do (one line each; no OAuth, no guessing). */
const HOW_TO_GET =
  'The token is printed by "guarded-shell" when it starts (a new one each start unless GUARDED_SHELL_TOKEN, --token-file or --auth fixes it); in VS Code run "Guarded Shell: Copy Client Configuration" again.';
const NO_TOKEN = `No bearer token: send "Authorization: Bearer <token>". ${HOW_TO_GET}`;
const WRONG_TOKEN = `Wrong or stale bearer token (the server may have restarted with a new one). ${HOW_TO_GET}`;
const NO_OAUTH = 'No OAuth: this server authenticates with a fixed bearer token ("Authorization: Bearer <token>"), not OAuth.';

function reject(res: http.ServerResponse, status: number, message: string): void {
  jsonRpcError(res, status, -32000, message);
}
