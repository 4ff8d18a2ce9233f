import type { ApprovalDecision, ApprovalRequest } from '../core/approval';
import type { AuditRecord } from '../core/audit';
import type { SettingsLayer } from '../core/config/settings';

/**
 * The JSON-RPC messages between the extension (vscode-languageclient) and the server process (ipcMain.ts,
 * vscode-languageserver), over Node IPC. One place for method names and payloads so both ends agree at compile time.
 */

/** Sent in `initialize` (initializationOptions): which folder this server serves and the settings to start with. */
export interface InitializationOptions {
  /** Absolute path of the workspace folder (the server's root). */
  readonly folder: string;
  /** Human name of the folder, for log lines. */
  readonly folderName: string;
  /** The settings layer computed by the extension (user scope for loosening values; see vscodeSettings.ts). */
  readonly settings: SettingsLayer;
  /**
   * Absolute folder of the backup store (`editBackup: storage`): the extension's own storage for this folder,
   * outside the workspace. Not a setting: a workspace cannot point it anywhere.
   */
  readonly backupDir?: string;
}

/** server → extension notification, after every start: where the MCP endpoint is and how to authenticate. */
export const READY = 'guardedShell/ready';
export interface ReadyParams {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Fresh random bearer token of this start. */
  readonly token: string;
  readonly version: string;
  /** Sandbox in force ('none', 'bwrap', …). */
  readonly isolation: string;
  /** Why commands run unsandboxed (isolation `auto` without a sandbox), or why they are all denied. */
  readonly warning?: string;
  /** The mode's label: `confirm`, or `readOnly+confirm` for a workspace's combination. */
  readonly mode: string;
  /** Server process id (the status view shows it; tests kill it to prove the restart). */
  readonly pid: number;
}

/** server → extension notification: the server could not start (bad settings, port); it keeps waiting for settings. */
export const START_FAILED = 'guardedShell/startFailed';
export interface StartFailedParams {
  readonly message: string;
}

/** extension → server notification: new settings; the server swaps its policy in whole, without restarting. */
export const SETTINGS = 'guardedShell/settings';
export interface SettingsParams {
  readonly settings: SettingsLayer;
}

/** server → extension notification: a settings push was applied (the status bar shows mode and sandbox). */
export const POLICY = 'guardedShell/policy';
export interface PolicyParams {
  readonly mode: string;
  readonly isolation: string;
  readonly warning?: string;
}

/** server → extension request: a person must decide. No answer in time, or no extension, means denied. */
export const APPROVE = 'guardedShell/approve';
export type ApproveParams = ApprovalRequest;
export type ApproveResult = ApprovalDecision;

/** server → extension notification: one (already redacted) audit record. */
export const AUDIT = 'guardedShell/audit';
export type AuditParams = AuditRecord;

/** extension → server request: forget a session or 15-minute approval of this exact command line (approval panel). */
export const REVOKE = 'guardedShell/revoke';
export interface RevokeParams {
  readonly key: string;
}
export interface RevokeResult {
  /** False when the server did not remember it (expired, or forgotten by a restart). */
  readonly revoked: boolean;
}

/** extension → server request: the server's current state. */
export const STATUS = 'guardedShell/status';
export interface StatusResult {
  readonly url?: string;
  readonly mode: string;
  readonly isolation: string;
  readonly warning?: string;
  /** Commands running and waiting for a slot right now. */
  readonly activeCommands: number;
  readonly queuedCommands: number;
  /** Approvals the server is waiting for. */
  readonly pendingApprovals: number;
  /** How many settings pushes were applied (or rejected) since start: lets a caller wait for one to land. */
  readonly settingsGeneration: number;
  /** The last settings push that could not be applied, and why (the previous policy stays in force). */
  readonly settingsError?: string;
}

/**
 * extension → server request: undo one earlier change (its request id, from the history) by restoring the content
 * kept in the backup store. It runs on the file pipeline like any change: the mode decides, the panel may ask.
 */
export const UNDO = 'guardedShell/undo';
export interface UndoParams {
  readonly requestId: string;
}
export interface UndoResult {
  readonly outcome: 'ok' | 'denied' | 'failed';
  readonly message: string;
  readonly files: readonly string[];
}
