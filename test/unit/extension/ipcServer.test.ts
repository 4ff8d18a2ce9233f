import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-languageserver/node';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/core/approval';
import type { SettingsLayer } from '../../../src/core/config/settings';
import { killAll, pidsWithCmdline } from '../../helpers/procs';
import { waitFor } from '../../helpers/waitFor';
import { APPROVE, READY, SETTINGS, START_FAILED, STATUS, type ApproveParams, type ReadyParams, type StatusResult } from '../../../src/shared/protocol';

/**
 * The server process the extension runs (dist/server.js), driven over Node IPC exactly as vscode-languageclient
 * drives it, with the extension's side played by this test: real process, real HTTP, real commands.
 */
const SERVER = path.resolve(__dirname, '../../../dist/server.js');

interface Host {
  readonly child: ChildProcess;
  readonly rpc: MessageConnection;
  readonly ready: Promise<ReadyParams>;
  readonly failed: Promise<string>;
  approvals: ApprovalRequest[];
  answer: (r: ApprovalRequest) => Promise<ApprovalDecision>;
  exited: Promise<number | null>;
}

let root: string;
const hosts: Host[] = [];
const clients: Client[] = [];

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ipc-')));
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const h of hosts.splice(0)) {
    if (h.child.exitCode === null && h.child.signalCode === null) h.child.kill('SIGKILL');
    h.rpc.dispose();
  }
  // A failed test must not leave its command behind either.
  for (const argv of sleeps.splice(0)) killAll(pidsOf(argv));
  fs.rmSync(root, { recursive: true, force: true });
});

async function startHost(settings: SettingsLayer): Promise<Host> {
  expect(fs.existsSync(SERVER), 'dist/server.js: run `node esbuild.mjs` first').toBe(true);
  const child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const rpc = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let onReady!: (p: ReadyParams) => void;
  let onFailed!: (m: string) => void;
  const host: Host = {
    child, rpc, exited, approvals: [],
    ready: new Promise((r) => (onReady = r)),
    failed: new Promise((r) => (onFailed = r)),
    answer: async () => ({ approved: false, by: 'user' }),
  };
  rpc.onNotification(READY, (p: ReadyParams) => onReady(p));
  rpc.onNotification(START_FAILED, (p: { message: string }) => onFailed(p.message));
  rpc.onNotification(() => {}); // window/logMessage, audit
  rpc.onRequest(APPROVE, (p: ApproveParams) => {
    host.approvals.push(p.request);
    return host.answer(p.request);
  });
  rpc.listen();
  hosts.push(host);
  const init = await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { folders: [{ folderId: 'ws', folder: root, folderName: 'ws', settings }] } });
  expect(init).toMatchObject({ capabilities: {} });
  await rpc.sendNotification('initialized', {});
  return host;
}

async function mcp(ready: ReadyParams): Promise<Client> {
  const client = new Client({ name: 'ipc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(ready.url), { requestInit: { headers: { Authorization: `Bearer ${ready.token}` } } }));
  clients.push(client);
  return client;
}

const run = (client: Client, command: string[], timeout?: number) =>
  client.callTool({ name: 'shell_execute', arguments: { command, ...(timeout && { timeout }) } }) as Promise<{ isError?: boolean; content: Array<{ type: string; text?: string }> }>;
const text = (r: { content: Array<{ text?: string }> }) => r.content.map((c) => c.text ?? '').join('');

async function settingsApplied(h: Host, before: number): Promise<StatusResult> {
  for (let i = 0; i < 100; i++) {
    const st = await h.rpc.sendRequest<StatusResult>(STATUS, { folderId: 'ws' });
    if (st.settingsGeneration > before) return st;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the settings push was never applied');
}

/** Pids of processes whose whole command line is exactly `argv`. */
function pidsOf(argv: string[]): number[] {
  return pidsWithCmdline(argv);
}
const sleeps: string[][] = [];
/** A sleep whose command line is unique, so the test finds exactly its own process. */
const uniqueSleep = () => {
  const argv = ['sleep', `${200 + Math.floor(Math.random() * 50)}.${Date.now() % 1000}`];
  sleeps.push(argv);
  return argv;
};
const base: SettingsLayer = { mode: 'auto', isolation: 'none', allowCommands: ['echo', 'touch', 'sleep'] };

describe('the extension\'s server process (IPC)', () => {
  it('serves on 127.0.0.1 with a fresh token per start, and refuses a client without it', async () => {
    const [a, b] = await Promise.all([startHost(base), startHost(base)]);
    const [ra, rb] = await Promise.all([a.ready, b.ready]);
    expect(ra.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(ra.token).not.toBe(rb.token);
    expect(ra.token.length).toBeGreaterThanOrEqual(40);
    expect(ra.pid).toBe(a.child.pid);
    const res = await fetch(ra.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(text(await run(await mcp(ra), ['echo', 'hi']))).toContain('hi');
  });

  it('stops pushed settings from moving the listener: host 0.0.0.0, a fixed port and auth off are ignored', async () => {
    const h = await startHost({ ...base, host: '0.0.0.0', port: 8003, auth: null, transport: 'stdio' } as SettingsLayer);
    const ready = await h.ready;
    expect(new URL(ready.url).hostname).toBe('127.0.0.1');
    expect(ready.port).not.toBe(8003);
    expect(ready.token).toBeTruthy();
  });

  it('applies a settings push live: readOnly denies touch in the same session, without a restart', async () => {
    const h = await startHost(base);
    const client = await mcp(await h.ready);
    const gen = (await h.rpc.sendRequest<StatusResult>(STATUS, { folderId: 'ws' })).settingsGeneration;
    await h.rpc.sendNotification(SETTINGS, { folderId: 'ws', settings: { ...base, mode: 'readOnly' } });
    expect((await settingsApplied(h, gen)).mode).toBe('readOnly');
    const r = await run(client, ['touch', 'x']);
    expect(r.isError).toBe(true);
    expect(fs.existsSync(path.join(root, 'x'))).toBe(false);
    expect(h.child.exitCode).toBeNull();
  });

  it('keeps the previous policy when a push is invalid, and says why', async () => {
    const h = await startHost({ ...base, mode: 'readOnly' });
    await h.ready;
    const gen = (await h.rpc.sendRequest<StatusResult>(STATUS, { folderId: 'ws' })).settingsGeneration;
    await h.rpc.sendNotification(SETTINGS, { folderId: 'ws', settings: { ...base, mode: 'auto', allowCommands: ['sh;rm'] } });
    const st = await settingsApplied(h, gen);
    expect(st.mode).toBe('readOnly');
    expect(st.settingsError).toMatch(/allowCommands/);
  });

  it('runs a command in confirm mode only after VS Code approves it, showing the exact argv', async () => {
    const h = await startHost({ ...base, mode: 'confirm' });
    const client = await mcp(await h.ready);
    h.answer = async () => ({ approved: true, by: 'user', option: 'once' });
    expect((await run(client, ['touch', 'approved file'])).isError).toBeFalsy();
    expect(fs.existsSync(path.join(root, 'approved file'))).toBe(true);
    expect(h.approvals[0]!.command!.stages).toEqual([['touch', 'approved file']]);
    h.answer = async () => ({ approved: false, by: 'user', reason: 'not today' });
    const denied = await run(client, ['touch', 'denied']);
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain('not today');
    expect(fs.existsSync(path.join(root, 'denied'))).toBe(false);
  });

  it('stops a malformed approval answer ({approved: "yes"}) from approving', async () => {
    const h = await startHost({ ...base, mode: 'confirm' });
    const client = await mcp(await h.ready);
    h.answer = async () => ({ approved: 'yes' }) as unknown as ApprovalDecision;
    expect((await run(client, ['touch', 'sneaky'])).isError).toBe(true);
    expect(fs.existsSync(path.join(root, 'sneaky'))).toBe(false);
  });

  it('denies when nobody answers within the approval timeout', async () => {
    const h = await startHost({ ...base, mode: 'confirm', approvalTimeoutSeconds: 1 });
    const client = await mcp(await h.ready);
    h.answer = () => new Promise(() => {}); // the dialog is never answered
    const r = await run(client, ['touch', 'late']);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/within 1 s|in time/);
    expect(fs.existsSync(path.join(root, 'late'))).toBe(false);
  });

  it('reports a start failure instead of serving when the folder does not exist, and starts on a later push', async () => {
    const h = await startHost(base);
    await h.ready; // a working one, to compare: now break the folder of a second host
    const gone = path.join(root, 'missing');
    const child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const rpc = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
    hosts.push({ child, rpc, ready: Promise.resolve({} as ReadyParams), failed: Promise.resolve(''), approvals: [], answer: async () => ({ approved: false, by: 'user' }), exited: Promise.resolve(null) });
    const failed = new Promise<string>((r) => rpc.onNotification(START_FAILED, (p: { message: string }) => r(p.message)));
    const ready = new Promise<ReadyParams>((r) => rpc.onNotification(READY, r));
    rpc.onNotification(() => {});
    rpc.listen();
    await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { folders: [{ folderId: 'gone', folder: gone, folderName: 'gone', settings: base }] } });
    await rpc.sendNotification('initialized', {});
    expect(await failed).toMatch(/missing|exist|ENOENT/i);
    fs.mkdirSync(gone);
    await rpc.sendNotification(SETTINGS, { folderId: 'gone', settings: base });
    expect((await ready).url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });
});

describe('the extension\'s server process: no command outlives it', () => {
  it('kills a running command on shutdown + exit (VS Code closing, extension deactivating)', async () => {
    const h = await startHost(base);
    const client = await mcp(await h.ready);
    const argv = uniqueSleep();
    void run(client, argv, 250).catch(() => {});
    const [pid] = await waitFor('the command to start', () => pidsOf(argv).length > 0 && pidsOf(argv));
    await h.rpc.sendRequest('shutdown');
    await h.rpc.sendNotification('exit');
    expect(await h.exited).toBe(0);
    await waitFor('the command to be killed', () => pidsOf(argv).length === 0);
    expect(() => process.kill(pid!, 0)).toThrow();
  });

  it('kills a running command when the extension host vanishes (IPC channel closed, no shutdown)', async () => {
    const h = await startHost(base);
    const client = await mcp(await h.ready);
    const argv = uniqueSleep();
    void run(client, argv, 250).catch(() => {});
    await waitFor('the command to start', () => pidsOf(argv).length > 0);
    h.child.disconnect();
    await h.exited;
    await waitFor('the command to be killed', () => pidsOf(argv).length === 0);
  });

  it('kills a running command on SIGTERM', async () => {
    const h = await startHost(base);
    const client = await mcp(await h.ready);
    const argv = uniqueSleep();
    void run(client, argv, 250).catch(() => {});
    await waitFor('the command to start', () => pidsOf(argv).length > 0);
    h.child.kill('SIGTERM');
    await h.exited;
    await waitFor('the command to be killed', () => pidsOf(argv).length === 0);
  });
});
