import * as path from 'node:path';
import { createConnection, ResponseError, ErrorCodes } from 'vscode-languageserver/node';
import {
  ADD_FOLDER, APPROVE, REMOVE_FOLDER, REVOKE, SETTINGS, STATUS, STOP_BACKGROUND, UNDO,
  type AddFolderParams, type ApproveResult, type FolderInit, type FolderRef, type InitializationOptions, type RemoveFolderResult,
  type RevokeParams, type RevokeResult, type SettingsParams, type StatusResult, type StopBackgroundParams, type StopBackgroundResult, type UndoParams, type UndoResult,
} from '../shared/protocol';
import { IpcFolder, type IpcFolderHost } from './ipcFolder';

/**
 * The server process the extension starts for one VS Code window (vscode-languageclient, Node IPC), the way
 * vscode-eslint runs its server: one process for every workspace folder, a crash cannot take the extension host
 * down, and the client restarts it (with every folder).
 *
 * Each folder (ipcFolder.ts) serves MCP over Streamable HTTP on 127.0.0.1, on a free port with a fresh token of its
 * own, and tells the extension both (READY). Folders come and go at run time (ADD_FOLDER, REMOVE_FOLDER) without a
 * restart; settings arrive per folder and are swapped in live. Approvals go to the extension as requests naming the
 * folder; no answer in time, or no extension, is a denial. However this process ends — shutdown request, exit
 * notification, the extension host vanishing, a signal, a crash — every command tree of every folder is killed first.
 */

declare const GUARDED_SHELL_VERSION: string | undefined;
const VERSION = typeof GUARDED_SHELL_VERSION === 'string' ? GUARDED_SHELL_VERSION : '0.0.0-dev';

/** How long cleanup may take before the process exits anyway (the executor's own TERM→KILL grace is shorter). */
const CLEANUP_LIMIT_MS = 10_000;

const connection = createConnection();
const log = (level: 'info' | 'warn' | 'error', message: string) => {
  try {
    connection.console[level === 'warn' ? 'warn' : level](message);
  } catch {
    /* the connection is gone: nobody to tell */
  }
};

const folders = new Map<string, IpcFolder>();
const host: IpcFolderHost = {
  version: VERSION,
  ask: (params, token) => connection.sendRequest<ApproveResult>(APPROVE, params, token),
  notify: (method, params) => void connection.sendNotification(method, params),
  log,
};

// ---- process end: children first ------------------------------------------------------------------------------
// vscode-languageserver calls process.exit() itself (exit notification, parent-process watchdog, closed stream)
// with no hook before it. Routing process.exit through the cleanup is the one way to be sure no command tree
// outlives this process on any of those paths.
const hardExit = process.exit.bind(process) as (code?: number) => never;
let exiting = false;
function exitAfterCleanup(code: number, why: string): void {
  if (exiting) return;
  exiting = true;
  log('info', `stopping (${why}): killing every running command`);
  setTimeout(() => hardExit(code), CLEANUP_LIMIT_MS);
  void stopAll().finally(() => hardExit(code));
}
process.exit = ((code?: number | string | null) => exitAfterCleanup(typeof code === 'number' ? code : Number(code ?? 0) || 0, 'exit')) as unknown as typeof process.exit;
process.on('disconnect', () => exitAfterCleanup(1, 'the extension host went away'));
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => exitAfterCleanup(0, signal));
process.on('uncaughtException', (e) => {
  log('error', `crashed: ${e.stack ?? e.message}`);
  exitAfterCleanup(1, 'uncaught exception'); // the client restarts the server
});

async function stopAll(): Promise<void> {
  const all = [...folders.values()];
  folders.clear();
  await Promise.all(all.map((f) => f.stop().catch((e: unknown) => log('error', `[${f.init.folderName}] stop: ${(e as Error).message}`))));
}

// ---- folders --------------------------------------------------------------------------------------------------
/** A folder definition from the extension, checked: a missing path or key is refused, never guessed. */
function folderInit(o: Partial<FolderInit> | undefined): FolderInit | string {
  if (!o || typeof o.folderId !== 'string' || !o.folderId) return 'folderId (the extension\'s key for the folder) is required';
  if (typeof o.folder !== 'string' || !o.folder) return 'folder (the workspace folder path) is required';
  if (o.backupDir !== undefined && (typeof o.backupDir !== 'string' || !path.isAbsolute(o.backupDir))) return 'backupDir must be an absolute path';
  if (o.commandHome !== undefined && (typeof o.commandHome !== 'string' || !path.isAbsolute(o.commandHome))) return 'commandHome must be an absolute path';
  return {
    folderId: o.folderId, folder: o.folder, folderName: typeof o.folderName === 'string' && o.folderName ? o.folderName : o.folder, settings: o.settings ?? {},
    ...(o.backupDir && { backupDir: o.backupDir }),
    ...(o.commandHome && { commandHome: o.commandHome }),
  };
}

/** Serves one more folder; a folder already served keeps running (its settings arrive with SETTINGS). */
function addFolder(init: FolderInit, start: boolean): void {
  if (exiting || folders.has(init.folderId)) return;
  const folder = new IpcFolder(init, host);
  folders.set(init.folderId, folder);
  if (start) void folder.start();
}

function folderOf(params: Partial<FolderRef> | undefined): IpcFolder | undefined {
  return typeof params?.folderId === 'string' ? folders.get(params.folderId) : undefined;
}

// ---- the protocol ---------------------------------------------------------------------------------------------
connection.onInitialize((params) => {
  const o = params.initializationOptions as Partial<InitializationOptions> | undefined;
  const list = Array.isArray(o?.folders) ? o.folders : undefined;
  if (!list) return new ResponseError(ErrorCodes.InvalidParams, 'initializationOptions.folders (the workspace folders to serve) is required');
  const inits = list.map((f) => folderInit(f));
  const bad = inits.find((i): i is string => typeof i === 'string');
  if (bad) return new ResponseError(ErrorCodes.InvalidParams, `initializationOptions.folders: ${bad}`);
  for (const init of inits as FolderInit[]) addFolder(init, false);
  return { capabilities: {}, serverInfo: { name: 'guarded-shell', version: VERSION } };
});

connection.onInitialized(() => {
  for (const f of folders.values()) void f.start();
});

connection.onNotification(ADD_FOLDER, (params: AddFolderParams) => {
  const init = folderInit(params);
  if (typeof init === 'string') return log('error', `a folder was not added: ${init}`);
  addFolder(init, true);
});

connection.onRequest(REMOVE_FOLDER, async (params: FolderRef): Promise<RemoveFolderResult> => {
  const folder = folderOf(params);
  if (!folder) return { removed: false };
  folders.delete(folder.id);
  await folder.stop();
  log('info', `[${folder.init.folderName}] no longer served`);
  return { removed: true };
});

connection.onNotification(SETTINGS, (params: SettingsParams) => {
  const folder = folderOf(params);
  if (!folder) return log('warn', `settings for a folder this process does not serve (${String(params?.folderId)}) were ignored`);
  folder.pushSettings(params.settings ?? {});
});

connection.onRequest(REVOKE, (params: RevokeParams): RevokeResult => ({
  revoked: folderOf(params)?.revoke(typeof params?.key === 'string' ? params.key : '') ?? false,
}));

connection.onRequest(UNDO, async (params: UndoParams): Promise<UndoResult> => {
  const folder = folderOf(params);
  const requestId = typeof params?.requestId === 'string' ? params.requestId : '';
  if (!folder) return { outcome: 'failed', message: `This process does not serve the folder ${String(params?.folderId)}.`, files: [] };
  if (!requestId) return { outcome: 'failed', message: 'No change was named.', files: [] };
  return folder.undo(requestId);
});

connection.onRequest(STOP_BACKGROUND, async (params: StopBackgroundParams): Promise<StopBackgroundResult> => {
  const folder = folderOf(params);
  const id = typeof params?.id === 'string' ? params.id : '';
  if (!folder) return { stopped: false, message: `This process does not serve the folder ${String(params?.folderId)}.` };
  if (!/^b\d+$/.test(id)) return { stopped: false, message: 'No background command was named.' };
  return folder.stopBackground(id);
});

connection.onRequest(STATUS, (params: FolderRef): StatusResult | ResponseError => {
  const folder = folderOf(params);
  return folder ? folder.status() : new ResponseError(ErrorCodes.InvalidParams, `this process does not serve the folder ${String(params?.folderId)}`);
});

connection.onShutdown(async () => {
  await stopAll();
});

connection.listen();
