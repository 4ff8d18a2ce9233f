import * as vscode from 'vscode';
import { LanguageClient, RevealOutputChannelOn, State, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { AuditRecord } from '../core/audit';
import {
  ADD_FOLDER, APPROVE, AUDIT, BACKGROUND, POLICY, READY, REMOVE_FOLDER, START_FAILED,
  type AddFolderParams, type ApproveParams, type ApproveResult, type AuditParams, type BackgroundParams, type InitializationOptions, type PolicyParams, type ReadyParams,
  type RemoveFolderParams, type RemoveFolderResult, type StartFailedParams,
} from '../shared/protocol';
import { formatAudit } from './auditFormat';
import type { ApprovalQueue } from './approval/queue';
import type { FolderServer } from './folderServer';

export interface WindowProcessDeps {
  readonly serverModule: string;
  readonly log: vscode.LogOutputChannel;
  readonly approvals: ApprovalQueue;
  /** Every audit record (already redacted by the server), e.g. for the approval panel's history. */
  readonly onAudit?: (record: AuditRecord, folderName: string) => void;
  /** After every (re)start of a folder: a new start remembers no session or 15-minute approvals. */
  readonly onReady?: (folderName: string) => void;
  /** The extension's own storage folder for backups (`editBackup: storage`); each workspace folder gets a folder below it. */
  readonly backupRoot?: string;
  /** The extension's own storage folder for the commands' HOME; each workspace folder gets a folder below it. */
  readonly homeRoot?: string;
}

/** How long the client waits for the server to finish its cleanup (it kills every command tree) on stop. */
const STOP_TIMEOUT_MS = 12_000;

/**
 * The one server process of this VS Code window, serving every folder, run by vscode-languageclient over IPC like
 * vscode-eslint's: the client restarts it after a crash (its default error handler: up to 4 restarts in 3
 * minutes), and every folder comes back with it (initializationOptions is asked again at each start). Folders
 * added or removed while it runs are sent as ADD_FOLDER / REMOVE_FOLDER; messages from the process are routed to
 * their folder by `folderId`.
 */
export class WindowProcess {
  private client: LanguageClient | undefined;
  /** The folders the current process was told about (in initialize or with ADD_FOLDER). */
  private sent = new Set<string>();
  /** Folder names by key, kept after removal: the last audit events of a removed folder still name it. */
  private readonly names = new Map<string, string>();

  constructor(
    private readonly deps: WindowProcessDeps,
    /** The folders to serve, at this moment. */
    private readonly folders: () => readonly FolderServer[],
  ) {}

  get started(): boolean {
    return this.client !== undefined;
  }

  /** The client gave up (it restarts a crashing process only so often): only a new start serves again. */
  get gaveUp(): boolean {
    return this.client?.state === State.Stopped;
  }

  get running(): boolean {
    return this.client?.isRunning() ?? false;
  }

  async start(): Promise<void> {
    if (this.client) return;
    const module = this.deps.serverModule;
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [], // no documents: this server speaks MCP to agents, not LSP to editors
      outputChannel: this.deps.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // A function, so a restarted process starts with the folders and settings of that moment.
      initializationOptions: (): InitializationOptions => {
        const folders = this.folders().map((f) => f.init());
        for (const f of this.folders()) this.names.set(f.id, f.name);
        this.sent = new Set(folders.map((f) => f.folderId));
        return { folders };
      },
      connectionOptions: { maxRestartCount: 4 },
      initializationFailedHandler: (e) => {
        this.failAll(`the server did not initialize: ${(e as Error)?.message ?? e}`);
        return false;
      },
    };
    const client = new LanguageClient('guardedShell', 'Guarded Shell', serverOptions, clientOptions);
    this.client = client;
    client.onNotification(READY, (p: ReadyParams) => {
      const folder = this.folder(p.folderId);
      if (!folder) return;
      folder.onReady(p);
      this.deps.onReady?.(folder.name);
    });
    client.onNotification(POLICY, (p: PolicyParams) => this.folder(p.folderId)?.onPolicy(p));
    client.onNotification(START_FAILED, (p: StartFailedParams) => this.folder(p.folderId)?.fail(p.message));
    client.onNotification(BACKGROUND, (p: BackgroundParams) => this.folder(p.folderId)?.onBackground(Array.isArray(p.runs) ? p.runs : []));
    client.onNotification(AUDIT, (p: AuditParams) => {
      const name = this.names.get(p.folderId) ?? p.folderId;
      this.deps.log.info(`[audit ${name}] ${formatAudit(p.record)}`);
      this.deps.onAudit?.(p.record, name);
    });
    client.onRequest(APPROVE, (p: ApproveParams, token: vscode.CancellationToken): Promise<ApproveResult> | ApproveResult => {
      const folder = this.folder(p.folderId);
      // A folder that is gone (or a key nobody gave out) has no one to ask: denied.
      if (!folder) return { approved: false, by: 'unavailable', reason: 'The folder is no longer open in VS Code.' };
      return this.deps.approvals.ask(p.request, folder.name, token);
    });
    client.onDidChangeState((e) => {
      if (e.newState === State.Starting) for (const f of this.folders()) f.onProcess('starting');
      else if (e.newState === State.Stopped) for (const f of this.folders()) f.onProcess('stopped');
      else if (e.newState === State.Running) this.syncFolders();
    });
    for (const f of this.folders()) f.onProcess('starting');
    try {
      await client.start();
      this.syncFolders();
    } catch (e) {
      this.client = undefined; // a later folder or restart tries again
      this.failAll(`the server process did not start: ${(e as Error).message}`);
    }
  }

  /** Stops the process: it kills every command tree of every folder before it exits. */
  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.sent.clear();
    if (client) await client.stop(STOP_TIMEOUT_MS).catch((e: unknown) => this.deps.log.warn(`stop: ${(e as Error).message}`));
    for (const f of this.folders()) f.onProcess('stopped');
  }

  /**
   * Makes the running process serve exactly the current folders: the ones it does not serve yet (added while it
   * was starting or running) are sent, and any it was given but that is gone meanwhile (removed while a restart
   * had already asked for its folders) is removed, so no endpoint lives on that no definition names.
   */
  syncFolders(): void {
    const client = this.client;
    if (!client?.isRunning()) return;
    const current = this.folders();
    for (const f of current) {
      this.names.set(f.id, f.name);
      if (this.sent.has(f.id)) continue;
      this.sent.add(f.id);
      void client.sendNotification(ADD_FOLDER, f.init() satisfies AddFolderParams);
    }
    const ids = new Set(current.map((f) => f.id));
    for (const id of [...this.sent]) {
      if (ids.has(id)) continue;
      this.sent.delete(id);
      void client.sendRequest<RemoveFolderResult>(REMOVE_FOLDER, { folderId: id } satisfies RemoveFolderParams).catch(() => {});
    }
  }

  /** Stops serving one folder: resolves once the process killed its command trees and closed its endpoint. */
  async removeFolder(folderId: string): Promise<void> {
    const client = this.client;
    if (!this.sent.delete(folderId) || !client?.isRunning()) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no answer in time')), STOP_TIMEOUT_MS)));
    try {
      await Promise.race([client.sendRequest<RemoveFolderResult>(REMOVE_FOLDER, { folderId } satisfies RemoveFolderParams), timeout]);
    } catch (e) {
      this.deps.log.warn(`[${this.names.get(folderId) ?? folderId}] remove: ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async notify(method: string, params: object): Promise<void> {
    await this.client?.sendNotification(method, params);
  }

  async request<R>(method: string, params: object): Promise<R> {
    if (!this.client) throw new Error('the server process is not running');
    return this.client.sendRequest<R>(method, params);
  }

  private folder(folderId: string): FolderServer | undefined {
    return this.folders().find((f) => f.id === folderId);
  }

  private failAll(message: string): void {
    for (const f of this.folders()) f.fail(message);
  }
}
