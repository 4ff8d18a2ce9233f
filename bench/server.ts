import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURE_BIN, httpClient, startServer, stdioClient, structured, TOKEN, type RunningServer } from '../test/helpers/serverProcess';

/** Starting the real server (dist/cli.js) the way the bench needs it, plus the one tool call it repeats. */

export const SPAWN_TREE = path.join(FIXTURE_BIN, 'spawn-tree');
export const IGNORE_TERM = path.join(FIXTURE_BIN, 'ignore-term');
export const ESCAPE_SETSID = path.join(FIXTURE_BIN, 'escape-setsid');
export const ALLOW = ['echo', 'yes', 'head', 'seq', 'wc', 'cat', 'sleep', SPAWN_TREE, IGNORE_TERM, ESCAPE_SETSID];

const workspaces: string[] = [];

/** A fresh workspace directory (removed by cleanupWorkspaces at the end of the run). */
export function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-bench-'));
  workspaces.push(dir);
  return dir;
}

export function cleanupWorkspaces(): void {
  for (const d of workspaces.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

export function serverArgs(extra: readonly string[] = [], isolation = 'none'): string[] {
  return ['--cwd', workspace(), '--auth', TOKEN, '--quiet', '--isolation', isolation, '--allow', ...ALLOW, ...extra];
}

export async function startHttp(extra: readonly string[] = [], isolation = 'none'): Promise<RunningServer> {
  return startServer(serverArgs(extra, isolation));
}

export { httpClient, stdioClient, structured, TOKEN };

export type ShellResult = Record<string, any>;

export async function shell(client: Client, command: readonly string[], more: Record<string, unknown> = {}): Promise<ShellResult> {
  const r = await client.callTool({ name: 'shell_execute', arguments: { command: [...command], ...more } }, undefined, { timeout: 600_000 });
  return structured(r) ?? { outcome: 'no-structured-content', text: JSON.stringify(r).slice(0, 300) };
}

/** `echo hello` through the server; throws unless the answer is exactly right. Returns the structured result. */
export async function echoHello(client: Client): Promise<ShellResult> {
  const s = await shell(client, ['echo', 'hello']);
  if (s.outcome !== 'ok' || s.stdout !== 'hello\n') throw new Error(`echo hello through the server gave ${JSON.stringify(s).slice(0, 300)}`);
  return s;
}
