import type { ApprovalDecision, ApprovalRequest } from '../core/approval';
import type { RunInfo } from '../core/background/run';
import type { AuditRecord } from '../core/audit';
import type { SettingsLayer } from '../core/config/settings';

/**
 * The JSON-RPC messages between the extension (vscode-languageclient) and the server process (ipcMain.ts,
 * vscode-languageserver), over Node IPC. One place for method names and payloads so both ends agree at compile time.
 *
 * One server process serves every workspace folder of a VS Code window. Each folder has its own root, settings,
 * approvals, audit and MCP endpoint (its own port and its own bearer token: a client given folder A's definition
 * cannot act in folder B). Every per-folder message names its folder by `folderId`, an opaque key the extension
 * chooses (the folder's URI).
 */

/** One folder the process serves, and the settings to start it with. */
export interface FolderInit {
  /** The extension's key for this folder; every per-folder message carries it. */
  readonly folderId: string;
  /** Absolute path of the workspace folder (this folder's root). */
  readonly folder: string;
  /** Human name of the folder, for log lines and approval cards. */
  readonly folderName: string;
  /** The settings layer computed by the extension (user scope for loosening values; see vscodeSettings.ts). */
  readonly settings: SettingsLayer;
  /**
   * Absolute folder of the backup store (`editBackup: storage`): the extension's own storage for this folder,
   * outside the workspace. Not a setting: a workspace cannot point it anywhere.
   */
  readonly backupDir?: string;
  /**
   * Absolute folder that commands get as their HOME (package managers' caches): the extension's own storage for
   * this folder, outside the workspace. Not a setting, for the same reason.
   */
  readonly commandHome?: string;
}

/** Sent in `initialize` (initializationOptions): the folders to serve from the start. */
export interface InitializationOptions {
  readonly folders: readonly FolderInit[];
}

/** Every per-folder message carries the folder's key. */
export interface FolderRef {
  readonly folderId: string;
}

/** extension → server notification: serve one more folder (a folder added to the window at run time). */
export const ADD_FOLDER = 'guardedShell/addFolder';
export type AddFolderParams = FolderInit;

/**
 * extension → server request: stop serving a folder. Answered once every command tree of that folder is killed,
 * its endpoint closed and its audit log closed; the other folders are not touched.
 */
export const REMOVE_FOLDER = 'guardedShell/removeFolder';
export type RemoveFolderParams = FolderRef;
export interface RemoveFolderResult {
  /** False when the process did not serve that folder. */
  readonly removed: boolean;
}

/** server → extension notification, after every start of a folder: where its MCP endpoint is and how to authenticate. */
export const READY = 'guardedShell/ready';
export interface ReadyParams extends FolderRef {
  /** The folder's Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp` (a port of its own). */
  readonly url: string;
  readonly port: number;
  /** Fresh random bearer token of this folder's start (never shared with another folder). */
  readonly token: string;
  readonly version: string;
  /** Sandbox in force ('none', 'bwrap', …). */
  readonly isolation: string;
  /** Why commands run unsandboxed (isolation `auto` without a sandbox), or why they are all denied. */
  readonly warning?: string;
  /** The mode's label: `confirm`, or `readOnly+confirm` for a workspace's combination. */
  readonly mode: string;
  /** Server process id (the same for every folder of the window; tests kill it to prove the restart). */
  readonly pid: number;
}

/** server → extension notification: a folder could not start (bad settings, missing folder); it waits for settings. */
export const START_FAILED = 'guardedShell/startFailed';
export interface StartFailedParams extends FolderRef {
  readonly message: string;
}

/** extension → server notification: new settings for one folder; it swaps its policy in whole, without restarting. */
export const SETTINGS = 'guardedShell/settings';
export interface SettingsParams extends FolderRef {
  readonly settings: SettingsLayer;
}

/** server → extension notification: a settings push was applied (the status bar shows mode and sandbox). */
export const POLICY = 'guardedShell/policy';
export interface PolicyParams extends FolderRef {
  readonly mode: string;
  readonly isolation: string;
  readonly warning?: string;
}

/** server → extension request: a person must decide for this folder. No answer in time, or no extension, means denied. */
export const APPROVE = 'guardedShell/approve';
export interface ApproveParams extends FolderRef {
  readonly request: ApprovalRequest;
}
export type ApproveResult = ApprovalDecision;

/** server → extension notification: one (already redacted) audit record of one folder. */
export const AUDIT = 'guardedShell/audit';
export interface AuditParams extends FolderRef {
  readonly record: AuditRecord;
}

/** extension → server request: forget a session or 15-minute approval of this exact command line (approval panel). */
export const REVOKE = 'guardedShell/revoke';
export interface RevokeParams extends FolderRef {
  readonly key: string;
}
export interface RevokeResult {
  /** False when the server did not remember it (expired, or forgotten by a restart). */
  readonly revoked: boolean;
}

/** extension → server request: one folder's current state. */
export const STATUS = 'guardedShell/status';
export type StatusParams = FolderRef;
export interface StatusResult {
  readonly url?: string;
  readonly mode: string;
  readonly isolation: string;
  readonly warning?: string;
  /** Commands running and waiting for a slot right now. */
  readonly activeCommands: number;
  /** Background commands running right now (besides activeCommands). */
  readonly backgroundCommands: number;
  readonly queuedCommands: number;
  /** Approvals the server is waiting for. */
  readonly pendingApprovals: number;
  /** How many settings pushes were applied (or rejected) since the folder was added: lets a caller wait for one to land. */
  readonly settingsGeneration: number;
  /** The last settings push that could not be applied, and why (the previous policy stays in force). */
  readonly settingsError?: string;
}

/**
 * extension → server request: undo one earlier change (its request id, from the history) by restoring the content
 * kept in the backup store. It runs on the file pipeline like any change: the mode decides, the panel may ask.
 */
export const UNDO = 'guardedShell/undo';
export interface UndoParams extends FolderRef {
  readonly requestId: string;
}
export interface UndoResult {
  readonly outcome: 'ok' | 'denied' | 'failed';
  readonly message: string;
  readonly files: readonly string[];
  /** The rule behind a denial or failure (`undo.no-backup`: this folder keeps no such change). */
  readonly rule?: string;
}

/**
 * server → extension notification: the background commands of one folder that are running now (every session's),
 * sent when one starts, ends or writes output (at most about twice a second), and when the folder stops (none).
 */
export const BACKGROUND = 'guardedShell/background';
export interface BackgroundParams extends FolderRef {
  readonly runs: readonly RunInfo[];
}

/** extension → server request: a person stops a background command of this folder (the approval panel's Stop). */
export const STOP_BACKGROUND = 'guardedShell/stopBackground';
export interface StopBackgroundParams extends FolderRef {
  readonly id: string;
}
export interface StopBackgroundResult {
  /** False when the folder has no such command running (it ended meanwhile). */
  readonly stopped: boolean;
  readonly message: string;
}
