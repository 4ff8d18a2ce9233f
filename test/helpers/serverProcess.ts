import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const REPO = path.resolve(__dirname, '..', '..');
export const CLI = path.join(REPO, 'dist', 'cli.js');
export const FIXTURE_BIN = path.join(REPO, 'test', 'fixtures', 'bin');
export const TOKEN = 'test-token-0123456789abcdef';

/**
 * What a server started by a test inherits besides its own variables: PATH, HOME, and the run's XDG_STATE_HOME
 * (globalSetup.ts), so the commands' HOME and backups it creates stay out of the real home folder.
 */
export function serverEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(process.env.XDG_STATE_HOME && { XDG_STATE_HOME: process.env.XDG_STATE_HOME }) };
}

export interface RunningServer {
  readonly proc: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  readonly stdout: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /**
   * Flags for node itself, placed before dist/cli.js (the bench profiles the server with --cpu-prof, which node
   * refuses in NODE_OPTIONS).
   */
  readonly nodeFlags?: readonly string[];
  /** Run the server as this user and group (the test runs as root): the unprivileged paths. It runs readableCopy(). */
  readonly user?: { readonly uid: number; readonly gid: number };
  /** The server process's working directory (where it looks for guarded-shell.json); default: the test's. */
  readonly cwd?: string;
}

let readable: { readonly cli: string; readonly fixtureBin: string } | undefined;

/**
 * dist/ and the fixture programs where another user can read them. A checkout under a folder only its owner can
 * enter (root cloning into its 0700 home) cannot be read by the `nobody` an unprivileged-server test runs as, so
 * those tests start this copy (made once per test file, in the system's temporary folder, removed at exit).
 */
export function readableCopy(): { readonly cli: string; readonly fixtureBin: string } {
  if (readable) return readable;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-readable-'));
  fs.chmodSync(dir, 0o755);
  fs.cpSync(path.join(REPO, 'dist'), path.join(dir, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') });
  fs.cpSync(FIXTURE_BIN, path.join(dir, 'bin'), { recursive: true });
  for (const sub of ['dist', 'bin']) {
    fs.chmodSync(path.join(dir, sub), 0o755);
    // What is executable stays so (dist/'s launcher fork server: without it the copy would run the exec chain).
    for (const f of fs.readdirSync(path.join(dir, sub))) {
      const file = path.join(dir, sub, f);
      fs.chmodSync(file, sub === 'bin' || (fs.statSync(file).mode & 0o111) !== 0 ? 0o755 : 0o644);
    }
  }
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return (readable = { cli: path.join(dir, 'dist', 'cli.js'), fixtureBin: path.join(dir, 'bin') });
}

/** Starts the real CLI (dist/cli.js) on a free port and waits until it prints its endpoint. */
export async function startServer(args: readonly string[], env: NodeJS.ProcessEnv = {}, options: StartOptions = {}): Promise<RunningServer> {
  // Another user runs a copy it can read (the checkout's folders may be closed to it).
  const cli = options.user ? readableCopy().cli : CLI;
  const proc = spawn(process.execPath, [...(options.nodeFlags ?? []), cli, '--port', '0', ...args], {
    env: { ...serverEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.user && { uid: options.user.uid, gid: options.user.gid }),
    ...(options.cwd && { cwd: options.cwd }),
  });
  let err = '';
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 15_000);
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /MCP endpoint (\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
  return {
    proc,
    url,
    stderr: () => err,
    stdout: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve(proc.exitCode);
        proc.once('exit', (code) => resolve(code));
        proc.kill(signal);
      }),
  };
}

export async function httpClient(url: string, token: string | null = TOKEN, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'guarded-shell-test', version: '1.0.0' }, { capabilities });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export async function sseClient(url: string, token: string = TOKEN): Promise<Client> {
  const client = new Client({ name: 'guarded-shell-test', version: '1.0.0' });
  const headers = { Authorization: `Bearer ${token}` };
  await client.connect(
    new SSEClientTransport(new URL(url), {
      requestInit: { headers },
      eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
    }),
  );
  return client;
}

export async function stdioClient(args: readonly string[], env: Record<string, string> = {}): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--stdio', ...args],
    env: { ...serverEnv(), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'guarded-shell-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** Structured content of a tool result, typed loosely for assertions. */
export function structured(result: unknown): Record<string, any> {
  return (result as { structuredContent: Record<string, any> }).structuredContent;
}
