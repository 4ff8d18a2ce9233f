import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { unavailableApprover, type ApprovalRequest, type Approver } from '../../src/core/approval';
import { AuditLog } from '../../src/core/audit';
import { createExecutor } from '../../src/core/exec/executor';
import { NO_ISOLATION } from '../../src/core/isolationState';
import { parsePolicy } from '../../src/core/policy';
import { ServerContext } from '../../src/server/context';
import { createServer } from '../../src/server/createServer';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http/httpServer';
import { describeWith } from '../helpers/needs';
import { sleep } from '../helpers/procs';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * The annotations a client sees are those of the live policy and sandbox (src/server/tools/annotations.ts): an
 * open session hears tools/list_changed and lists the new hints, and a real bubblewrap sandbox that cuts the
 * network takes openWorldHint off the command tools.
 */

const hintsOf = async (client: Client, name: string) => (await client.listTools()).tools.find((t) => t.name === name)?.annotations;

describe('annotations follow a policy change in an open session', () => {
  let root: string;
  let ctx: ServerContext;
  let server: RunningHttpServer;
  let client: Client;
  let changed = 0;

  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-hints-')));
    ctx = new ServerContext(parsePolicy({ root, mode: 'confirm', allowCommands: ['ls'] } as never), createExecutor({ concurrency: 1 }), new AuditLog(), NO_ISOLATION, unavailableApprover, 'test');
    server = await startHttpServer(() => createServer(ctx), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http' });
    client = await httpClient(server.url);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('shell_execute becomes read-only in mode readOnly and stops being so when the mode is looser again', async () => {
    expect(await hintsOf(client, 'shell_execute')).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    ctx.setPolicy(parsePolicy({ root, mode: 'readOnly', allowCommands: ['ls'] } as never));
    for (let i = 0; i < 100 && changed === 0; i++) await sleep(20);
    expect(changed).toBeGreaterThan(0);
    expect(await hintsOf(client, 'shell_execute')).toEqual({ readOnlyHint: true, openWorldHint: true });
    expect(await hintsOf(client, 'cmdshell')).toEqual({ readOnlyHint: true, openWorldHint: true });
    ctx.setPolicy(parsePolicy({ root, mode: 'confirmChanges', allowCommands: ['ls'] } as never));
    expect(await hintsOf(client, 'shell_execute')).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });
});

describe('an approval request names the calling client and the hint it was given', () => {
  let root: string;
  let server: RunningHttpServer;
  let client: Client;
  const asked: ApprovalRequest[] = [];
  // Records what it is asked and says no: the request itself is what the VS Code panel decides its notice from.
  const recorder: Approver = { kind: 'recorder', approve: async (r) => (asked.push(r), { approved: false, by: 'recorder', reason: 'recorded' }) };

  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-client-')));
    const ctx = new ServerContext(parsePolicy({ root, mode: 'confirm', allowCommands: ['ls', 'touch'] } as never), createExecutor({ concurrency: 1 }), new AuditLog(), NO_ISOLATION, recorder, 'test');
    server = await startHttpServer(() => createServer(ctx), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http' });
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('shell_execute: the client was not told it only reads (VS Code asked first); shell_readonly: it was', async () => {
    await client.callTool({ name: 'shell_execute', arguments: { command: ['touch', 'x'] } });
    await client.callTool({ name: 'shell_readonly', arguments: { command: ['ls'] } });
    await client.callTool({ name: 'writeFile', arguments: { file: 'y', text: 'y' } });
    expect(asked.map((r) => [r.tool, r.client])).toEqual([
      ['shell_execute', { name: 'guarded-shell-test', readOnlyHint: false }],
      ['shell_readonly', { name: 'guarded-shell-test', readOnlyHint: true }],
      ['writeFile', { name: 'guarded-shell-test', readOnlyHint: false }],
    ]);
    expect(fs.existsSync(path.join(root, 'x')) || fs.existsSync(path.join(root, 'y'))).toBe(false);
  });
});

describeWith('bubblewrap')('annotations under a real bubblewrap sandbox', () => {
  let ws: string;
  const started: RunningServer[] = [];
  /** The hints once the sandbox probe has answered (the list changes when it does). */
  const settledHints = async (args: string[], expectOpenWorld: boolean) => {
    const server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--allow', 'ls', ...args]);
    started.push(server);
    const client = await httpClient(server.url);
    try {
      let hints = await hintsOf(client, 'shell_execute');
      for (let i = 0; i < 100 && hints?.openWorldHint !== expectOpenWorld; i++) {
        await sleep(50);
        hints = await hintsOf(client, 'shell_execute');
      }
      // The sandbox really runs commands (not "required but unavailable", which would also cut the network).
      const ran = structured(await client.callTool({ name: 'shell_readonly', arguments: { command: ['ls'] } }));
      return { shell: hints, readonly: await hintsOf(client, 'shell_readonly'), ran };
    } finally {
      await client.close();
    }
  };

  beforeAll(() => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-hints-bwrap-')));
  });
  afterAll(async () => {
    for (const s of started) await s.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('the command tools are closed-world while the sandbox cuts their network (network fetch, the default)', async () => {
    const { shell, readonly, ran } = await settledHints([], false);
    expect(ran).toMatchObject({ outcome: 'ok', isolation: 'bwrap' });
    expect(shell).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(readonly).toEqual({ readOnlyHint: true, openWorldHint: false });
  });

  it('and open-world with --network allow, which gives sandboxed commands a network', async () => {
    const { shell } = await settledHints(['--network', 'allow'], true);
    expect(shell).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });
});
