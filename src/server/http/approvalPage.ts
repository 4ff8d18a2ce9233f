import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { panelHtml } from '../../shared/approvalPanel/html';
import { parseWebviewMessage, type HostToWebview } from '../../shared/webviewProtocol';
import type { WebApprover } from '../approvers/web';
import { allowedHosts, generateToken, hostAllowed } from './guards';

/**
 * The standalone approval page: the VS Code panel's own page (panelHtml + media/approval.js + media/history.js)
 * served on 127.0.0.1 on a port of its own, with media/webHost.js standing in for VS Code's host. It is a separate
 * listener from the MCP endpoint, with its own secret: the MCP client holds the bearer token, never this secret, so
 * it cannot see or answer a card; the bearer token opens nothing here and this secret opens nothing at /mcp.
 *
 * The secret travels in the link's fragment (`#s=…`: never sent in a request line, a Referer or a log) and the page
 * sends it in a header on every API call, so another page in the browser cannot make a call that counts (a custom
 * header needs a CORS preflight, which is never granted). Host and Origin are checked as on the MCP port.
 */

export const SECRET_HEADER = 'x-guarded-shell-page';
const MAX_MESSAGE_BYTES = 64 * 1024;
const HEARTBEAT_MS = 15_000;
const MEDIA_FILES: Record<string, string> = {
  'approval.js': 'text/javascript; charset=utf-8',
  'history.js': 'text/javascript; charset=utf-8',
  'webHost.js': 'text/javascript; charset=utf-8',
  'approval.css': 'text/css; charset=utf-8',
  'history.css': 'text/css; charset=utf-8',
  'webHost.css': 'text/css; charset=utf-8',
};

export interface ApprovalPage {
  /** What the person opens: the page with its secret in the fragment. */
  readonly url: string;
  readonly origin: string;
  readonly secret: string;
  close(): Promise<void>;
}

/** media/ next to the bundle (dist/../media) or next to the sources (src/server/http/../../../media). */
function mediaDir(): string {
  for (const dir of [path.resolve(__dirname, '..', 'media'), path.resolve(__dirname, '..', '..', '..', 'media')]) {
    if (fs.existsSync(path.join(dir, 'webHost.js'))) return dir;
  }
  throw new Error('The approval page\'s scripts (media/webHost.js, approval.js, history.js) were not found next to the program.');
}

const sha = (s: string) => createHash('sha256').update(s).digest();

export async function startApprovalPage(approver: WebApprover, options: { readonly port?: number } = {}): Promise<ApprovalPage> {
  const media = mediaDir();
  const files = new Map(Object.entries(MEDIA_FILES).map(([name, type]) => [name, { type, body: fs.readFileSync(path.join(media, name)) }]));
  const secret = generateToken();
  const secretHash = sha(secret);
  const streams = new Set<http.ServerResponse>();
  let hosts: Set<string> | undefined;
  let origins = new Set<string>();

  const secretOk = (req: http.IncomingMessage): boolean => {
    const v = req.headers[SECRET_HEADER];
    return typeof v === 'string' && v.length > 0 && timingSafeEqual(sha(v), secretHash);
  };

  const handler = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    if (!hostAllowed(req.headers.host, hosts)) return plain(res, 403, 'Host not allowed (DNS rebinding protection).');
    // A browser names the page that makes a request: only this page's own origin may call (no CORS, ever).
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.has(origin)) return plain(res, 403, 'Origin not allowed.');
    const site = req.headers['sec-fetch-site'];
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');

    if (req.method === 'GET' && (url.pathname === '/' || url.pathname === '/index.html')) {
      const nonce = randomBytes(16).toString('base64');
      const self = `http://${req.headers.host}`;
      const html = panelHtml({
        cspSource: self,
        nonce,
        connectSrc: self,
        hostScript: `${self}/media/webHost.js`,
        hostStyle: `${self}/media/webHost.css`,
        approvalScript: `${self}/media/approval.js`,
        historyScript: `${self}/media/history.js`,
        approvalStyle: `${self}/media/approval.css`,
        historyStyle: `${self}/media/history.css`,
      });
      res.setHeader('Content-Security-Policy', `default-src 'none'; style-src ${self}; script-src 'nonce-${nonce}'; img-src ${self} data:; connect-src ${self}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
      return;
    }
    if (req.method === 'GET' && url.pathname.startsWith('/media/')) {
      const f = files.get(url.pathname.slice('/media/'.length));
      if (!f) return plain(res, 404, 'Not found.');
      res.writeHead(200, { 'Content-Type': f.type }).end(f.body);
      return;
    }
    if (!url.pathname.startsWith('/api/')) return plain(res, 404, 'Not found.');
    // The API: only this page's own scripts, with the secret.
    if (site !== undefined && site !== 'same-origin') return plain(res, 403, 'Cross-site request refused.');
    if (!secretOk(req)) return plain(res, 401, 'Missing or wrong page secret: open the link the server printed.');

    if (req.method === 'GET' && url.pathname === '/api/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
      res.write(': connected\n\n');
      streams.add(res);
      const send = (m: HostToWebview) => void res.write(`data: ${JSON.stringify(m)}\n\n`);
      const unsubscribe = approver.subscribe(send);
      const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      beat.unref();
      res.once('close', () => {
        clearInterval(beat);
        unsubscribe();
        streams.delete(res);
      });
      return;
    }
    if (req.method === 'POST' && url.pathname === '/api/message') {
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) return plain(res, 415, 'Send application/json.');
      const body = await readBody(req, MAX_MESSAGE_BYTES);
      if (body === undefined) return plain(res, 413, 'Message too large.');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return plain(res, 400, 'Not JSON.');
      }
      const m = parseWebviewMessage(parsed);
      if (!m) return plain(res, 400, 'Not a message the page sends.');
      const ok = approver.receive(m);
      res.writeHead(ok ? 200 : 409, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok }));
      return;
    }
    return plain(res, 404, 'Not found.');
  };

  const server = http.createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) plain(res, 500, 'Internal error.');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hosts = allowedHosts('127.0.0.1', port);
  origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/#s=${secret}`,
    origin,
    secret,
    close: async () => {
      for (const r of streams) r.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function plain(res: http.ServerResponse, status: number, text: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(text + '\n');
}

function readBody(req: http.IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}
