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
import {
  ADD_FOLDER, APPROVE, AUDIT, READY, REMOVE_FOLDER, SETTINGS, START_FAILED, STATUS,
  type ApproveParams, type AuditParams, type FolderInit, type ReadyParams, type RemoveFolderResult, type StartFailedParams, type StatusResult,
} from '../../src/shared/protocol';

/**
 * The extension's side of the window's server process (dist/server.js over Node IPC, as vscode-languageclient
 * drives it): initialize with the folders and their settings layers, add and remove folders, push settings per
 * folder as the extension does, answer approvals, and MCP clients over the real HTTP endpoints the server reports.
 */
export const SERVER = path.resolve(__dirname, '../../dist/server.js');

/** One folder of the process, as the extension sees it. */
export interface IpcFolderHandle {
  readonly folderId: string;
  /** Settles with the folder's latest READY, or the first one to come (rejects with a START_FAILED). */
  readonly ready: Promise<ReadyParams>;
  /** Settles with the folder's next READY (e.g. after a restart). */
  nextReady(): Promise<ReadyParams>;
  /** Pushes a settings layer (the SETTINGS notification) and waits until the server applied it to this folder. */
  push(settings: SettingsLayer): Promise<StatusResult>;
  status(): Promise<StatusResult>;
  /** REMOVE_FOLDER: resolves once the folder's command trees are killed and its endpoint closed. */
  remove(): Promise<RemoveFolderResult>;
}

export interface IpcProcess {
  readonly child: ChildProcess;
  readonly rpc: MessageConnection;
  readonly exited: Promise<number | null>;
  /** Every approval request, with the folder that asked. */
  readonly approvals: ApproveParams[];
  /** Every audit record the server sent (the AUDIT notification the approval panel's history is fed by), with its folder. */
  readonly audits: AuditParams[];
  /** How approval requests are answered (default: denied by the user). */
  answer: (p: ApproveParams) => Promise<ApprovalDecision> | ApprovalDecision;
  folder(folderId: string): IpcFolderHandle;
  /** ADD_FOLDER: serves one more folder without restarting the process. */
  add(folderId: string, folder: string, settings: SettingsLayer): IpcFolderHandle;
  close(): Promise<void>;
}

export interface FolderSpec {
  readonly folderId: string;
  readonly folder: string;
  readonly settings: SettingsLayer;
  /** The backup store folder handed over in the folder's init (the extension's storage; a temp folder in tests). */
  readonly backupDir?: string;
  /** The commands' HOME handed over in the folder's init (the extension's storage; a temp folder in tests). */
  readonly commandHome?: string;
}

export async function startIpcProcess(folders: readonly FolderSpec[], env: NodeJS.ProcessEnv = process.env): Promise<IpcProcess> {
  const child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env });
  const rpc = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // READY / START_FAILED per folder: the latest one, and who waits for the next.
  const latest = new Map<string, { ready: ReadyParams } | { error: Error }>();
  const waiters = new Map<string, Array<{ resolve: (p: ReadyParams) => void; reject: (e: Error) => void }>>();
  const settle = (folderId: string, outcome: { ready: ReadyParams } | { error: Error }) => {
    latest.set(folderId, outcome);
    for (const w of waiters.get(folderId)?.splice(0) ?? []) 'ready' in outcome ? w.resolve(outcome.ready) : w.reject(outcome.error);
  };
  const next = (folderId: string) => new Promise<ReadyParams>((resolve, reject) => {
    if (!waiters.has(folderId)) waiters.set(folderId, []);
    waiters.get(folderId)!.push({ resolve, reject });
  });
  const current = (folderId: string) => {
    const l = latest.get(folderId);
    if (!l) return next(folderId);
    return 'ready' in l ? Promise.resolve(l.ready) : Promise.reject(l.error);
  };
  rpc.onNotification(READY, (p: ReadyParams) => settle(p.folderId, { ready: p }));
  rpc.onNotification(START_FAILED, (p: StartFailedParams) => settle(p.folderId, { error: new Error(`server could not start: ${p.message}`) }));
  const audits: AuditParams[] = [];
  rpc.onNotification(AUDIT, (p: AuditParams) => void audits.push(p));
  rpc.onNotification(() => {}); // log messages
  const proc = {
    child, rpc, exited, approvals: [] as ApproveParams[], audits,
    answer: (): ApprovalDecision => ({ approved: false, by: 'user', reason: 'test host denies' }),
  } as Partial<IpcProcess> & Pick<IpcProcess, 'approvals' | 'answer'>;
  rpc.onRequest(APPROVE, (p: ApproveParams) => {
    proc.approvals.push(p);
    return proc.answer(p);
  });
  rpc.listen();
  const status = (folderId: string) => rpc.sendRequest<StatusResult>(STATUS, { folderId });
  const handle = (folderId: string): IpcFolderHandle => ({
    folderId,
    get ready() {
      return current(folderId);
    },
    nextReady: () => next(folderId),
    status: () => status(folderId),
    remove: () => rpc.sendRequest<RemoveFolderResult>(REMOVE_FOLDER, { folderId }),
    push: async (layer: SettingsLayer) => {
      const before = (await status(folderId)).settingsGeneration;
      await rpc.sendNotification(SETTINGS, { folderId, settings: layer });
      for (let i = 0; i < 200; i++) {
        const st = await status(folderId);
        if (st.settingsGeneration > before) {
          if (st.settingsError) throw new Error(`settings not applied: ${st.settingsError}`);
          return st;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('the server did not apply the settings push');
    },
  });
  const init = (f: FolderSpec): FolderInit => ({ folderId: f.folderId, folder: f.folder, folderName: path.basename(f.folder), settings: f.settings, ...(f.backupDir && { backupDir: f.backupDir }), ...(f.commandHome && { commandHome: f.commandHome }) });
  await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { folders: folders.map(init) } });
  await rpc.sendNotification('initialized', {});
  return Object.assign(proc, {
    folder: handle,
    add: (folderId: string, folder: string, settings: SettingsLayer) => {
      void rpc.sendNotification(ADD_FOLDER, init({ folderId, folder, settings }));
      return handle(folderId);
    },
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rpc.dispose();
    },
  }) as IpcProcess;
}

/** An MCP client over a folder's real endpoint, with its bearer token. */
export async function mcpClient(ready: Pick<ReadyParams, 'url' | 'token'>, onToolListChanged?: () => void): Promise<Client> {
  const client = new Client({ name: 'ipc-host', version: '1.0.0' });
  if (onToolListChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, onToolListChanged);
  await client.connect(new StreamableHTTPClientTransport(new URL(ready.url), { requestInit: { headers: { Authorization: `Bearer ${ready.token}` } } }));
  return client;
}

/** The one-folder view most tests need: the process, its only folder, and an MCP client connected to it. */
export interface IpcHost {
  readonly child: ChildProcess;
  readonly rpc: MessageConnection;
  readonly ready: ReadyParams;
  readonly client: Client;
  readonly approvals: ApprovalRequest[];
  /** Every audit record the server sent for the folder (what the approval panel's history is fed by). */
  readonly audits: AuditRecord[];
  /** The folder's backup store, handed over in its init (like the extension's globalStorageUri: outside the workspace). */
  readonly backupDir: string;
  /** The commands' HOME, handed over in its init (likewise). */
  readonly commandHome: string;
  /** `notifications/tools/list_changed` the MCP client received. */
  readonly toolListChanges: number;
  /** How approval requests are answered (default: denied by the user). */
  answer: (r: ApprovalRequest) => Promise<ApprovalDecision> | ApprovalDecision;
  /** Pushes a settings layer (the SETTINGS notification) and waits until the server applied it. */
  push(settings: SettingsLayer): Promise<StatusResult>;
  close(): Promise<void>;
}

export async function startIpcHost(folder: string, settings: SettingsLayer, env: NodeJS.ProcessEnv = process.env, opts: { commandHome?: string } = {}): Promise<IpcHost> {
  // Like the extension's globalStorageUri: outside the workspace, chosen by the host (never the home folder in tests).
  const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ipc-backups-'));
  const commandHome = opts.commandHome ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ipc-home-')), 'home');
  const proc = await startIpcProcess([{ folderId: 'ws', folder, settings, backupDir, commandHome }], env);
  const only = proc.folder('ws');
  const ready = await only.ready;
  const approvals: ApprovalRequest[] = [];
  const host = {
    child: proc.child, rpc: proc.rpc, ready, approvals, backupDir, commandHome, toolListChanges: 0,
    get audits(): AuditRecord[] {
      return proc.audits.map((a) => a.record);
    },
    answer: (): ApprovalDecision => ({ approved: false, by: 'user', reason: 'test host denies' }),
  } as Omit<IpcHost, 'client' | 'push' | 'close'> & { answer: IpcHost['answer']; toolListChanges: number };
  proc.answer = (p) => {
    approvals.push(p.request);
    return host.answer(p.request);
  };
  const client = await mcpClient(ready, () => host.toolListChanges++);
  return Object.assign(host, {
    client,
    push: only.push,
    close: async () => {
      await client.close().catch(() => {});
      await proc.close();
      fs.rmSync(backupDir, { recursive: true, force: true });
      if (!opts.commandHome) fs.rmSync(path.dirname(commandHome), { recursive: true, force: true });
    },
  });
}
