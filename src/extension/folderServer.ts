import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, RevealOutputChannelOn, State, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import type { ApprovalRequest } from '../core/approval';
import type { AuditRecord } from '../core/audit';
import { describeIgnored } from '../core/config/vscodeSettings';
import type { SettingsLayer } from '../core/config/settings';
import {
  APPROVE, AUDIT, POLICY, READY, SETTINGS, START_FAILED, STATUS,
  type ApproveResult, type InitializationOptions, type PolicyParams, type ReadyParams, type SettingsParams, type StartFailedParams, type StatusResult,
} from '../shared/protocol';
import { REVOKE, UNDO, type RevokeParams, type RevokeResult, type UndoParams, type UndoResult } from '../shared/protocol';
import { formatAudit } from './auditFormat';
import type { ApprovalQueue } from './approval/queue';
import { readFolderSettings } from './settings';

export type ServerState = 'starting' | 'running' | 'failed' | 'stopped';

export interface FolderServerDeps {
  readonly serverModule: string;
  readonly log: vscode.LogOutputChannel;
  readonly approvals: ApprovalQueue;
  /** Every audit record (already redacted by the server), e.g. for the approval panel's history. */
  readonly onAudit?: (record: AuditRecord, folderName: string) => void;
  /** After every (re)start: a new server process remembers no session or 15-minute approvals. */
  readonly onReady?: (folderName: string) => void;
  /** The extension's own storage folder for backups (`editBackup: storage`); each workspace folder gets a folder below it. */
  readonly backupRoot?: string;
}

/** How long the client waits for the server to finish its cleanup (it kills every command tree) on stop. */
const STOP_TIMEOUT_MS = 12_000;

/**
 * The server process of one workspace folder, run by vscode-languageclient over IPC like vscode-eslint's: the
 * client restarts it after a crash (its default error handler: up to 4 restarts in 3 minutes), stops it on
 * deactivate. Each start brings a new port and token (READY); `generation` counts them for the MCP definition's
 * version.
 */
export class FolderServer implements vscode.Disposable {
  state: ServerState = 'stopped';
  ready: ReadyParams | undefined;
  startError: string | undefined;
  /** Bumped on every READY: the MCP definition's version. */
  generation = 0;
  private client: LanguageClient | undefined;
  private lastIgnored = '';
  private lastAuditLog: string | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the state, the endpoint or the mode changes. */
  readonly onDidChange = this.changed.event;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly deps: FolderServerDeps,
  ) {}

  get name(): string {
    return this.folder.name;
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
      workspaceFolder: this.folder,
      outputChannel: this.deps.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // A function, so a restarted server starts with the settings of that moment.
      initializationOptions: (): InitializationOptions => ({
        folder: this.folder.uri.fsPath, folderName: this.folder.name, settings: this.readSettings(),
        ...(this.deps.backupRoot && { backupDir: backupDirFor(this.deps.backupRoot, this.folder.uri.fsPath) }),
      }),
      connectionOptions: { maxRestartCount: 4 },
      initializationFailedHandler: (e) => {
        this.fail(`the server did not initialize: ${(e as Error)?.message ?? e}`);
        return false;
      },
    };
    const client = new LanguageClient('guardedShell', `Guarded Shell: ${this.folder.name}`, serverOptions, clientOptions);
    this.client = client;
    client.onNotification(READY, (p: ReadyParams) => {
      this.ready = p;
      this.startError = undefined;
      this.generation++;
      this.setState('running');
      this.deps.onReady?.(this.folder.name);
    });
    client.onNotification(POLICY, (p: PolicyParams) => {
      if (!this.ready) return;
      // Same endpoint, new policy: update what the status bar shows (no generation bump: no reconnect needed).
      const { warning: _old, ...rest } = this.ready;
      this.ready = { ...rest, mode: p.mode, isolation: p.isolation, ...(p.warning && { warning: p.warning }) };
      this.changed.fire();
    });
    client.onNotification(START_FAILED, (p: StartFailedParams) => this.fail(p.message));
    client.onNotification(AUDIT, (r: AuditRecord) => {
      this.deps.log.info(`[audit ${this.folder.name}] ${formatAudit(r)}`);
      this.deps.onAudit?.(r, this.folder.name);
    });
    client.onRequest(APPROVE, (request: ApprovalRequest, token: vscode.CancellationToken): Promise<ApproveResult> =>
      this.deps.approvals.ask(request, this.folder.name, token),
    );
    client.onDidChangeState((e) => {
      if (e.newState === State.Starting) {
        this.ready = undefined; // the old port and token die with the old process
        this.setState('starting');
      } else if (e.newState === State.Stopped) {
        this.ready = undefined;
        if (this.state !== 'failed') this.setState('stopped');
      }
    });
    this.setState('starting');
    try {
      await client.start();
    } catch (e) {
      this.fail(`the server process did not start: ${(e as Error).message}`);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.ready = undefined;
    if (client) await client.stop(STOP_TIMEOUT_MS).catch((e: unknown) => this.deps.log.warn(`[${this.name}] stop: ${(e as Error).message}`));
    this.setState('stopped');
  }

  async restart(): Promise<void> {
    this.deps.log.info(`[${this.name}] restarting the server`);
    await this.stop();
    await this.start();
  }

  /** Sends the current settings; the server swaps its policy without restarting. An audit-log path change needs a restart. */
  async pushSettings(): Promise<void> {
    const client = this.client;
    if (!client || !client.isRunning()) return;
    const previousAuditLog = this.lastAuditLog;
    const settings = this.readSettings();
    if (settings.auditLog !== previousAuditLog) {
      this.deps.log.info(`[${this.name}] the audit log path changed: restarting the server to reopen it`);
      await this.restart();
      return;
    }
    await client.sendNotification(SETTINGS, { settings } satisfies SettingsParams);
  }

  /** Makes the server forget a session or 15-minute approval of this exact command line. */
  async revoke(key: string): Promise<boolean> {
    const client = this.client;
    if (!client || !client.isRunning()) return false;
    const r = await client.sendRequest<RevokeResult>(REVOKE, { key } satisfies RevokeParams);
    return r.revoked;
  }

  /** Undoes an earlier change of this folder's server from its kept backup (through the server's file pipeline). */
  async undo(requestId: string): Promise<UndoResult> {
    const client = this.client;
    if (!client || !client.isRunning()) return { outcome: 'failed', message: `The server of "${this.name}" is not running.`, files: [] };
    return client.sendRequest<UndoResult>(UNDO, { requestId } satisfies UndoParams);
  }

  async status(): Promise<StatusResult | undefined> {
    const client = this.client;
    if (!client || !client.isRunning()) return undefined;
    return client.sendRequest<StatusResult>(STATUS);
  }

  private readSettings(): SettingsLayer {
    const { layer, ignored } = readFolderSettings(this.folder);
    const text = ignored.map(describeIgnored).join('\n');
    if (text && text !== this.lastIgnored) for (const i of ignored) this.deps.log.warn(`[${this.name}] ${describeIgnored(i)}`);
    this.lastIgnored = text;
    this.lastAuditLog = layer.auditLog;
    return layer;
  }

  private fail(message: string): void {
    this.startError = message;
    this.deps.log.error(`[${this.name}] ${message}`);
    this.setState('failed');
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.changed.fire();
  }

  dispose(): void {
    void this.stop();
    this.changed.dispose();
  }
}

/** One store per workspace folder, named by a hash of its path (the same folder finds its backups again after a restart). */
export function backupDirFor(root: string, folderPath: string): string {
  return path.join(root, createHash('sha256').update(folderPath).digest('hex').slice(0, 16));
}
