import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-languageserver/node';
import type { ApprovalDecision, ApprovalOption, ApprovalRequest } from '../../src/core/approval';
import { APPROVE, READY, REVOKE, type ApproveParams, type ReadyParams, type RevokeResult } from '../../src/shared/protocol';

/**
 * What the approval panel's options do in the real server process (dist/server.js over Node IPC, as the
 * extension drives it): the option the panel answers with reaches the server's memory, and a revocation from the
 * history tab makes the server forget it. Real process, real HTTP, real `echo`.
 */
const SERVER = path.resolve(__dirname, '../../dist/server.js');

let root: string;
let child: ChildProcess | undefined;
let rpc: MessageConnection | undefined;
let client: Client | undefined;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-panel-memory-')));
});
afterEach(async () => {
  await client?.close().catch(() => {});
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rpc?.dispose();
  client = child = rpc = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

/** Starts the server in mode confirm; every approval request is recorded and answered with `option`. */
async function start(option: ApprovalOption): Promise<{ asked: ApprovalRequest[]; rpc: MessageConnection; call: (argv: string[]) => Promise<Record<string, unknown>> }> {
  expect(fs.existsSync(SERVER), 'dist/server.js: run `node esbuild.mjs` first').toBe(true);
  child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const conn = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  rpc = conn;
  const asked: ApprovalRequest[] = [];
  let onReady!: (p: ReadyParams) => void;
  const ready = new Promise<ReadyParams>((r) => (onReady = r));
  conn.onNotification(READY, (p: ReadyParams) => onReady(p));
  conn.onNotification(() => {});
  conn.onRequest(APPROVE, ({ request: r }: ApproveParams): ApprovalDecision => {
    asked.push(r);
    return { approved: true, by: 'user', option };
  });
  conn.listen();
  await conn.sendRequest('initialize', {
    processId: process.pid, rootUri: null, capabilities: {},
    initializationOptions: { folders: [{ folderId: 'ws', folder: root, folderName: 'ws', settings: { mode: 'confirm', isolation: 'none', allowCommands: ['echo'] } }] },
  });
  await conn.sendNotification('initialized', {});
  const r = await ready;
  client = new Client({ name: 'panel-memory-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(r.url), { requestInit: { headers: { Authorization: `Bearer ${r.token}` } } }));
  const c = client;
  return {
    asked,
    rpc: conn,
    call: async (argv) => (await c.callTool({ name: 'shell_execute', arguments: { command: argv } })).structuredContent as Record<string, unknown>,
  };
}

describe('approval options in the server process', () => {
  it('honours "allow for 15 minutes" for the exact command line only, and a revocation makes it ask again', async () => {
    const s = await start('timed');
    expect((await s.call(['echo', 'hi'])).outcome).toBe('ok');
    expect(s.asked).toHaveLength(1);
    const again = await s.call(['echo', 'hi']);
    expect(again).toMatchObject({ outcome: 'ok', stdout: 'hi\n', approvalMs: 0 });
    expect(s.asked).toHaveLength(1); // not asked: remembered
    await s.call(['echo', 'hi', 'there']); // another command line is asked for
    expect(s.asked).toHaveLength(2);
    expect(await s.rpc.sendRequest<RevokeResult>(REVOKE, { folderId: 'ws', key: 'echo hi' })).toEqual({ revoked: true });
    expect(await s.rpc.sendRequest<RevokeResult>(REVOKE, { folderId: 'ws', key: 'echo hi' })).toEqual({ revoked: false });
    await s.call(['echo', 'hi']);
    expect(s.asked.map((r) => r.key)).toEqual(['echo hi', 'echo hi there', 'echo hi']);
  });

  it('remembers an "always" answer for the session (the settings push may land after the next call)', async () => {
    const s = await start('always');
    await s.call(['echo', 'a']);
    await s.call(['echo', 'a']);
    expect(s.asked).toHaveLength(1);
  });

  it('does not remember a one-time approval', async () => {
    const s = await start('once');
    await s.call(['echo', 'a']);
    await s.call(['echo', 'a']);
    expect(s.asked).toHaveLength(2);
  });

  it('refuses a revocation without a key instead of guessing one', async () => {
    const s = await start('session');
    await s.call(['echo', 'a']);
    expect(await s.rpc.sendRequest<RevokeResult>(REVOKE, { folderId: 'ws' })).toEqual({ revoked: false });
    await s.call(['echo', 'a']);
    expect(s.asked).toHaveLength(1);
  });
});
