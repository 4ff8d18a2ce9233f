import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SettingsLayer } from '../../src/core/config/registry';
import { mcpClient, startIpcProcess, type IpcProcess } from '../helpers/ipcHost';
import { killAll, pidsWithCmdline, uniqueSeconds } from '../helpers/procs';
import { waitFor } from '../helpers/waitFor';

/**
 * One server process for the whole VS Code window (dist/server.js over real Node IPC, the extension's side played
 * by test/helpers/ipcHost.ts): two folders in ONE process, each with its own root, policy, endpoint, token,
 * approvals and audit; a settings push or a removal touches only its folder. Real commands, real HTTP, real MCP SDK.
 */
type Result = { isError?: boolean; structuredContent?: Record<string, any>; content?: Array<{ text?: string }> };

let base: string;
let a: string;
let b: string;
let proc: IpcProcess | undefined;
const clients: Client[] = [];
const sleeps: string[][] = [];

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-window-')));
  a = path.join(base, 'alpha');
  b = path.join(base, 'beta');
  fs.mkdirSync(a);
  fs.mkdirSync(b);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await proc?.close();
  proc = undefined;
  // A failed test must not leave its command behind either.
  for (const argv of sleeps.splice(0)) killAll(pidsWithCmdline(argv));
  fs.rmSync(base, { recursive: true, force: true });
});

const COMMANDS = ['echo', 'touch', 'sleep'];
const layer = (extra: SettingsLayer): SettingsLayer => ({ isolation: 'none', allowCommands: COMMANDS, ...extra });

/** The process serving alpha (folderId a) and beta (b) with these settings. */
const alphaAndBeta = (sa: SettingsLayer, sb: SettingsLayer) =>
  startIpcProcess([{ folderId: 'a', folder: a, settings: sa }, { folderId: 'b', folder: b, settings: sb }]);

async function connect(ready: { url: string; token: string }): Promise<Client> {
  const c = await mcpClient(ready);
  clients.push(c);
  return c;
}
const call = (c: Client, name: string, args: Record<string, unknown>) =>
  (c.callTool({ name, arguments: args }) as Promise<Result>).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }) as Result);
const run = (c: Client, command: string[]) => call(c, 'shell_execute', { command });
const toolNames = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
const sleepArgv = () => {
  const argv = ['sleep', uniqueSeconds()];
  sleeps.push(argv);
  return argv;
};
/** A POST to an endpoint with a bearer token: the status code (or 0 when nothing listens any more). */
async function post(url: string, token: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
  }).catch(() => undefined);
  await res?.body?.cancel().catch(() => {});
  return res?.status ?? 0;
}

describe('one server process for the window: folders side by side', () => {
  it('serves each folder on its own endpoint with its own token: one folder\'s token opens no other folder', async () => {
    proc = await alphaAndBeta(layer({ mode: 'auto' }), layer({ mode: 'auto' }));
    const [ra, rb] = await Promise.all([proc.folder('a').ready, proc.folder('b').ready]);
    expect(ra.pid).toBe(proc.child.pid);
    expect(rb.pid).toBe(proc.child.pid); // one process
    expect(ra.url).not.toBe(rb.url);
    expect(ra.token).not.toBe(rb.token);
    for (const r of [ra, rb]) expect(new URL(r.url).hostname).toBe('127.0.0.1');
    expect(await post(ra.url, ra.token)).toBe(200);
    expect(await post(rb.url, ra.token)).toBe(401); // a client given A's definition cannot act in B
    expect(await post(ra.url, rb.token)).toBe(401);
  });

  it('runs each folder\'s tools under its own policy, confined to its own root', async () => {
    proc = await alphaAndBeta(layer({ mode: 'readOnly' }), layer({ mode: 'auto' }));
    const ca = await connect(await proc.folder('a').ready);
    const cb = await connect(await proc.folder('b').ready);
    expect(await toolNames(ca)).not.toContain('writeFile');
    expect(await toolNames(cb)).toContain('writeFile');
    expect((await call(ca, 'writeFile', { file: 'a.txt', text: 'x' })).isError).toBe(true);
    expect((await run(ca, ['touch', 'a.txt'])).structuredContent?.denial?.code).toBe('MODE_READ_ONLY');
    expect(fs.existsSync(path.join(a, 'a.txt'))).toBe(false);
    expect((await call(cb, 'writeFile', { file: 'b.txt', text: 'from b' })).isError).toBeFalsy();
    expect(fs.readFileSync(path.join(b, 'b.txt'), 'utf8')).toMatch(/^from b\n?$/);
    // B's root is B: a path into the sibling folder is refused, relative or absolute.
    for (const file of ['../alpha/escape.txt', path.join(a, 'escape.txt')]) {
      expect((await call(cb, 'writeFile', { file, text: 'x' })).isError, file).toBe(true);
    }
    expect(fs.existsSync(path.join(a, 'escape.txt'))).toBe(false);
    expect((await run(cb, ['touch', 'made-by-b'])).structuredContent?.outcome).toBe('ok');
    expect(fs.existsSync(path.join(b, 'made-by-b'))).toBe(true);
    expect(fs.existsSync(path.join(a, 'made-by-b'))).toBe(false);
  });

  it('applies a settings push to its folder only', async () => {
    proc = await alphaAndBeta(layer({ mode: 'auto' }), layer({ mode: 'auto' }));
    const cb = await connect(await proc.folder('b').ready);
    const ca = await connect(await proc.folder('a').ready);
    const before = await proc.folder('b').status();
    expect((await proc.folder('a').push(layer({ mode: 'readOnly' }))).mode).toBe('readOnly');
    const after = await proc.folder('b').status();
    expect(after.mode).toBe('auto');
    expect(after.settingsGeneration).toBe(before.settingsGeneration); // B saw no push at all
    expect((await run(ca, ['touch', 'no'])).structuredContent?.denial?.code).toBe('MODE_READ_ONLY');
    expect((await run(cb, ['touch', 'yes'])).structuredContent?.outcome).toBe('ok');
    expect(fs.existsSync(path.join(a, 'no'))).toBe(false);
    expect(fs.existsSync(path.join(b, 'yes'))).toBe(true);
  });

  it('asks approvals naming the folder, and audits each folder into its own log', async () => {
    const logA = path.join(base, 'a.jsonl');
    const logB = path.join(base, 'b.jsonl');
    proc = await alphaAndBeta(layer({ mode: 'confirm', auditLog: logA }), layer({ mode: 'auto', auditLog: logB }));
    const ca = await connect(await proc.folder('a').ready);
    const cb = await connect(await proc.folder('b').ready);
    proc.answer = (p) => ({ approved: p.folderId === 'a', by: 'user', option: 'once' });
    expect((await run(ca, ['echo', 'in-alpha'])).structuredContent?.outcome).toBe('ok');
    expect((await run(cb, ['echo', 'in-beta'])).structuredContent?.outcome).toBe('ok');
    expect(proc.approvals.map((p) => [p.folderId, p.request.key])).toEqual([['a', 'echo in-alpha']]);
    const argvs = (file: string) =>
      fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.event === 'shell_execution_audit').map((l) => (l.argv as string[])[1]);
    await waitFor('both audit lines', () => fs.existsSync(logA) && fs.existsSync(logB) && argvs(logA).length > 0 && argvs(logB).length > 0);
    expect(argvs(logA)).toEqual(['in-alpha']);
    expect(argvs(logB)).toEqual(['in-beta']);
  });

  it('restarts only the folder whose audit log path changed (a new endpoint for it; the other keeps its own)', async () => {
    proc = await alphaAndBeta(layer({ mode: 'auto' }), layer({ mode: 'auto' }));
    const [ra, rb] = await Promise.all([proc.folder('a').ready, proc.folder('b').ready]);
    const cb = await connect(rb);
    const next = proc.folder('a').nextReady(); // the READY after the restart
    await proc.folder('a').push(layer({ mode: 'auto', auditLog: path.join(base, 'new.jsonl') }));
    const ra2 = await next;
    expect(ra2.token).not.toBe(ra.token);
    expect(await post(ra2.url, ra2.token)).toBe(200);
    expect((await run(cb, ['echo', 'still'])).structuredContent?.outcome).toBe('ok'); // B's session lives on
  });
});

describe('one server process for the window: folders come and go', () => {
  it('removing a folder kills its running command and closes its endpoint; the other folder\'s command runs on', async () => {
    proc = await alphaAndBeta(layer({ mode: 'auto' }), layer({ mode: 'auto' }));
    const ra = await proc.folder('a').ready;
    const ca = await connect(ra);
    const cb = await connect(await proc.folder('b').ready);
    const inA = sleepArgv();
    const inB = sleepArgv();
    void run(ca, inA);
    void run(cb, inB);
    await waitFor('both commands to start', () => pidsWithCmdline(inA).length > 0 && pidsWithCmdline(inB).length > 0);
    expect(await proc.folder('a').remove()).toEqual({ removed: true });
    // Answered only once A's command tree is gone.
    expect(pidsWithCmdline(inA)).toEqual([]);
    expect(pidsWithCmdline(inB)).toHaveLength(1);
    expect(await post(ra.url, ra.token)).toBe(0); // nothing listens there any more
    expect((await run(cb, ['echo', 'alive'])).structuredContent?.outcome).toBe('ok');
    expect(proc.child.exitCode).toBeNull();
    expect(await proc.folder('a').remove()).toEqual({ removed: false });
  });

  it('adds a folder at run time without restarting the process', async () => {
    proc = await startIpcProcess([{ folderId: 'a', folder: a, settings: layer({ mode: 'auto' }) }]);
    const ra = await proc.folder('a').ready;
    const ca = await connect(ra);
    const rb = await proc.add('b', b, layer({ mode: 'readOnly' })).ready;
    expect(rb.pid).toBe(ra.pid);
    expect(rb.mode).toBe('readOnly');
    const cb = await connect(rb);
    expect((await run(cb, ['touch', 'x'])).structuredContent?.denial?.code).toBe('MODE_READ_ONLY');
    expect((await run(ca, ['touch', 'x'])).structuredContent?.outcome).toBe('ok'); // A's session was not disturbed
    expect(fs.existsSync(path.join(b, 'x'))).toBe(false);
  });

  it('refuses a request for a folder it does not serve instead of guessing one', async () => {
    proc = await startIpcProcess([{ folderId: 'a', folder: a, settings: layer({ mode: 'auto' }) }]);
    await proc.folder('a').ready;
    await expect(proc.folder('nope').status()).rejects.toThrow(/does not serve/);
  });
});
