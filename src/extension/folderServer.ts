import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeIgnored } from '../core/config/vscodeSettings';
import type { RunInfo } from '../core/background/run';
import {
  REVOKE, SETTINGS, STATUS, STOP_BACKGROUND, UNDO,
  type FolderInit, type PolicyParams, type ReadyParams, type RevokeParams, type RevokeResult, type SettingsParams, type StatusParams, type StatusResult,
  type StopBackgroundParams, type StopBackgroundResult, type UndoParams, type UndoResult,
} from '../shared/protocol';
import { readFolderSettings } from './settings';
import type { WindowProcess } from './windowProcess';

export type ServerState = 'starting' | 'running' | 'failed' | 'stopped';

/**
 * One workspace folder as served by the window's server process (windowProcess.ts): its endpoint, state and mode
 * for the MCP definition and the status bar, and the per-folder requests (settings, revoke, status). Each READY
 * brings this folder a new port and token; `generation` counts them for the MCP definition's version.
 */
export class FolderServer implements vscode.Disposable {
  state: ServerState = 'starting';
  ready: ReadyParams | undefined;
  startError: string | undefined;
  /** Bumped on every READY: the MCP definition's version. */
  generation = 0;
  /** Its background commands running now, as the server last said (the panel's list, the status bar's count). */
  background: readonly RunInfo[] = [];
  private lastIgnored = '';
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the state, the endpoint or the mode changes. */
  readonly onDidChange = this.changed.event;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly process: WindowProcess,
    private readonly log: vscode.LogOutputChannel,
    /** The extension's own storage folder for backups (`editBackup: storage`), outside every workspace. */
    private readonly backupRoot?: string,
    /** The extension's own storage folder for the commands' HOME folders, outside every workspace. */
    private readonly homeRoot?: string,
  ) {}

  get name(): string {
    return this.folder.name;
  }

  /** The key every per-folder message carries. */
  get id(): string {
    return this.folder.uri.toString();
  }

  /** What the server process needs to serve this folder, with the settings of this moment. */
  init(): FolderInit {
    const folder = this.folder.uri.fsPath;
    return {
      folderId: this.id, folder, folderName: this.name, settings: this.readSettings(),
      ...(this.backupRoot && { backupDir: backupDirFor(this.backupRoot, folder) }),
      ...(this.homeRoot && { commandHome: backupDirFor(this.homeRoot, folder) }),
    };
  }

  // ---- what the server process reports ----
  onReady(p: ReadyParams): void {
    this.ready = p;
    this.startError = undefined;
    this.generation++;
    this.setState('running');
  }

  onPolicy(p: PolicyParams): void {
    if (!this.ready) return;
    // Same endpoint, new policy: update what the status bar shows (no generation bump: no reconnect needed).
    const { warning: _old, ...rest } = this.ready;
    this.ready = { ...rest, mode: p.mode, isolation: p.isolation, ...(p.warning && { warning: p.warning }) };
    this.changed.fire();
  }

  onBackground(runs: readonly RunInfo[]): void {
    this.background = runs;
    this.changed.fire();
  }

  /** The process is (re)starting or stopped: the old port and token die with it, and every command it ran. */
  onProcess(state: 'starting' | 'stopped'): void {
    this.ready = undefined;
    this.background = [];
    if (state === 'starting' || this.state !== 'failed') this.setState(state);
  }

  fail(message: string): void {
    this.ready = undefined;
    this.background = [];
    this.startError = message;
    this.log.error(`[${this.name}] ${message}`);
    this.setState('failed');
  }

  // ---- what the extension asks ----
  /** Sends the current settings; the server swaps this folder's policy without touching the other folders. */
  async pushSettings(): Promise<void> {
    if (!this.process.running) return;
    await this.process.notify(SETTINGS, { folderId: this.id, settings: this.readSettings() } satisfies SettingsParams);
  }

  /** Makes the server forget a session or 15-minute approval of this exact command line in this folder. */
  async revoke(key: string): Promise<boolean> {
    if (!this.process.running) return false;
    return (await this.process.request<RevokeResult>(REVOKE, { folderId: this.id, key } satisfies RevokeParams)).revoked;
  }

  /** Undoes an earlier change in this folder from its kept backup (through the server's file pipeline). */
  async undo(requestId: string): Promise<UndoResult> {
    if (!this.process.running) return { outcome: 'failed', message: `The server of "${this.name}" is not running.`, files: [] };
    return this.process.request<UndoResult>(UNDO, { folderId: this.id, requestId } satisfies UndoParams);
  }

  /** A person stops one of this folder's background commands (its whole process tree). */
  async stopBackground(id: string): Promise<StopBackgroundResult> {
    if (!this.process.running) return { stopped: false, message: `The server of "${this.name}" is not running.` };
    return this.process.request<StopBackgroundResult>(STOP_BACKGROUND, { folderId: this.id, id } satisfies StopBackgroundParams);
  }

  async status(): Promise<StatusResult | undefined> {
    if (!this.process.running || !this.ready) return undefined;
    return this.process.request<StatusResult>(STATUS, { folderId: this.id } satisfies StatusParams);
  }

  private readSettings() {
    const { layer, ignored } = readFolderSettings(this.folder);
    const text = ignored.map(describeIgnored).join('\n');
    if (text && text !== this.lastIgnored) for (const i of ignored) this.log.warn(`[${this.name}] ${describeIgnored(i)}`);
    this.lastIgnored = text;
    return layer;
  }

  private setState(state: ServerState): void {
    this.state = state;
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/**
 * One store per workspace folder, named by a hash of its path (the same folder finds its backups, and its
 * commands their HOME, again after a restart).
 */
export function backupDirFor(root: string, folderPath: string): string {
  return path.join(root, createHash('sha256').update(folderPath).digest('hex').slice(0, 16));
}
