import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURE_BIN, structured, TOKEN } from '../helpers/serverProcess';
import { sleep } from '../helpers/procs';

export const SPAWN_TREE = path.join(FIXTURE_BIN, 'spawn-tree');

/** A real temporary workspace (its real path: the server and /proc report real paths). */
export function tempWorkspace(prefix = 'gs-stress-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Arguments every stress server gets: its own workspace, a fixed token, no audit noise, no sandbox. */
export function baseArgs(root: string, allow: readonly string[], extra: readonly string[] = []): string[] {
  return ['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--allow', ...allow, ...extra];
}

export async function shell(client: Client, command: readonly string[], more: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await client.callTool({ name: 'shell_execute', arguments: { command: [...command], ...more } }, undefined, { timeout: 120_000 });
  return { ...structured(r), isError: (r as { isError?: boolean }).isError, text: JSON.stringify((r as { content?: unknown }).content ?? '') };
}

/** Open file descriptors of a process (entries of /proc/<pid>/fd). */
export function fdCount(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * Live processes whose working directory is inside `root`: the server runs every command there, and no other
 * test uses this temporary directory, so any such process after a call has answered is a leak of ours.
 */
export function processesIn(root: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${name}/cwd`);
      if (cwd !== root && !cwd.startsWith(root + '/')) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat[stat.lastIndexOf(')') + 2] !== 'Z') out.push(Number(name));
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return out;
}

export { killAll } from '../helpers/procs';

/** Polls `probe` until `ok` holds or `ms` pass; returns the last value (the caller asserts on it). */
export async function waitFor<T>(probe: () => T, ok: (v: T) => boolean, ms: number, every = 50): Promise<T> {
  const end = Date.now() + ms;
  let v = probe();
  while (!ok(v) && Date.now() < end) {
    await sleep(every);
    v = probe();
  }
  return v;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** One raw HTTP request to the server (no SDK): for what a well-behaved client never sends. */
export function rawPost(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          Authorization: `Bearer ${TOKEN}`,
          'Content-Length': String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages of a response body that is either JSON or an SSE stream of `data:` lines. */
export function messagesOf(body: string): any[] {
  const trimmed = body.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const v = JSON.parse(trimmed);
    return Array.isArray(v) ? v : [v];
  }
  return trimmed
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trim())
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** A raw Streamable HTTP session: initialize + initialized; returns the session id. */
export async function rawSession(url: string): Promise<string> {
  const init = await rawPost(
    url,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stress-raw', version: '1' } } }),
  );
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string') throw new Error(`initialize failed: ${init.status} ${init.body.slice(0, 200)}`);
  const done = await rawPost(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { 'mcp-session-id': id });
  if (done.status !== 202) throw new Error(`initialized notification failed: ${done.status} ${done.body.slice(0, 200)}`);
  return id;
}
