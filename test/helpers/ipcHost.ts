import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter, type MessageConnection } from 'vscode-languageserver/node';
import type { ApprovalDecision, ApprovalRequest } from '../../src/core/approval';
import type { AuditRecord } from '../../src/core/audit';
import type { SettingsLayer } from '../../src/core/config/registry';
import { APPROVE, AUDIT, READY, SETTINGS, START_FAILED, STATUS, type ReadyParams, type StatusResult } from '../../src/shared/protocol';

/**
 * The extension's side of the server process (dist/server.js over Node IPC, as vscode-languageclient drives it):
 * initialize with the folder and its settings layer, push settings as the extension does, answer approvals, and
 * an MCP client over the real HTTP endpoint the server reports.
 */
export const SERVER = path.resolve(__dirname, '../../dist/server.js');

export interface IpcHost {
  readonly child: ChildProcess;
  readonly rpc: MessageConnection;
  readonly ready: ReadyParams;
  readonly client: Client;
  readonly approvals: ApprovalRequest[];
  /** Every audit record the server sent (the AUDIT notification the approval panel's history is fed by). */
  readonly audits: AuditRecord[];
  /** The backup store folder handed over in initializationOptions (the extension's storage, here a temp folder). */
  readonly backupDir: string;
  /** `notifications/tools/list_changed` the MCP client received. */
  readonly toolListChanges: number;
  /** How approval requests are answered (default: denied by the user). */
  answer: (r: ApprovalRequest) => Promise<ApprovalDecision> | ApprovalDecision;
  /** Pushes a settings layer (the SETTINGS notification) and waits until the server applied it. */
  push(settings: SettingsLayer): Promise<StatusResult>;
  close(): Promise<void>;
}

export async function startIpcHost(folder: string, settings: SettingsLayer, env: NodeJS.ProcessEnv = process.env): Promise<IpcHost> {
  const child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env });
  const rpc = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  const approvals: ApprovalRequest[] = [];
  const audits: AuditRecord[] = [];
  // Like the extension's globalStorageUri: outside the workspace, chosen by the host (never the home folder in tests).
  const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ipc-backups-'));
  rpc.onNotification(AUDIT, (r: AuditRecord) => void audits.push(r));
  const started = new Promise<ReadyParams>((resolve, reject) => {
    rpc.onNotification(READY, (p: ReadyParams) => resolve(p));
    rpc.onNotification(START_FAILED, (p: { message: string }) => reject(new Error(`server could not start: ${p.message}`)));
  });
  rpc.onNotification(() => {}); // log messages and audit events
  const host = {
    child, rpc, approvals, audits, backupDir,
    answer: (): ApprovalDecision => ({ approved: false, by: 'user', reason: 'test host denies' }),
  } as Partial<IpcHost> & { answer: IpcHost['answer'] };
  rpc.onRequest(APPROVE, (r: ApprovalRequest) => {
    approvals.push(r);
    return host.answer(r);
  });
  rpc.listen();
  await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { folder, folderName: 'ws', settings, backupDir } });
  await rpc.sendNotification('initialized', {});
  const ready = await started;
  const client = new Client({ name: 'ipc-host', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    (host as { toolListChanges: number }).toolListChanges++;
  });
  (host as { toolListChanges: number }).toolListChanges = 0;
  await client.connect(new StreamableHTTPClientTransport(new URL(ready.url), { requestInit: { headers: { Authorization: `Bearer ${ready.token}` } } }));
  return Object.assign(host, {
    ready,
    client,
    push: async (layer: SettingsLayer) => {
      const before = (await rpc.sendRequest<StatusResult>(STATUS)).settingsGeneration;
      await rpc.sendNotification(SETTINGS, { settings: layer });
      for (let i = 0; i < 200; i++) {
        const status = await rpc.sendRequest<StatusResult>(STATUS);
        if (status.settingsGeneration > before) {
          if (status.settingsError) throw new Error(`settings not applied: ${status.settingsError}`);
          return status;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('the server did not apply the settings push');
    },
    close: async () => {
      await client.close().catch(() => {});
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rpc.dispose();
      fs.rmSync(backupDir, { recursive: true, force: true });
    },
  }) as IpcHost;
}
