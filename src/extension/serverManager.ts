import * as vscode from 'vscode';
import { FolderServer } from './folderServer';
import { WindowProcess, type WindowProcessDeps } from './windowProcess';

/**
 * Every workspace folder on disk, served by ONE server process for the window (windowProcess.ts): the process
 * starts with the first folder (once the workspace is trusted) and stops with the last; folders in between are
 * added and removed without restarting it. Other schemes (virtual file systems) are skipped: the server needs
 * real files. Adding, removing and restarting run one at a time, in order.
 */
export class ServerManager implements vscode.Disposable {
  private readonly servers = new Map<string, { server: FolderServer; subscription: vscode.Disposable }>();
  private readonly process: WindowProcess;
  private readonly changed = new vscode.EventEmitter<void>();
  private queue: Promise<void> = Promise.resolve();
  /** Fires when any folder's state or endpoint changes, or folders come and go. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly deps: WindowProcessDeps) {
    this.process = new WindowProcess(deps, () => this.all);
  }

  get all(): FolderServer[] {
    return [...this.servers.values()].map((e) => e.server);
  }

  forFolder(uri: vscode.Uri): FolderServer | undefined {
    return this.servers.get(uri.toString())?.server;
  }

  /** Serves every folder that is not served yet. */
  startAll(): Promise<void> {
    return this.serial(async () => {
      for (const f of vscode.workspace.workspaceFolders ?? []) this.track(f);
      await this.ensureServing();
    });
  }

  add(folder: vscode.WorkspaceFolder): Promise<void> {
    return this.serial(async () => {
      if (this.track(folder)) await this.ensureServing();
    });
  }

  /** Stops serving a folder: its command trees are killed, its endpoint closed; the other folders keep running. */
  remove(folder: vscode.WorkspaceFolder): Promise<void> {
    return this.serial(async () => {
      const key = folder.uri.toString();
      const entry = this.servers.get(key);
      if (!entry) return;
      this.servers.delete(key);
      entry.subscription.dispose();
      entry.server.dispose();
      this.changed.fire();
      // The last folder gone: the whole process goes (its memory with it); a new folder starts a new one.
      if (this.servers.size === 0) await this.process.stop();
      else await this.process.removeFolder(entry.server.id);
    });
  }

  /** Restarts the window's process: every folder gets a new port and token, every running command is killed. */
  restart(): Promise<void> {
    return this.serial(async () => {
      this.deps.log.info('restarting the server process');
      await this.process.stop();
      await this.ensureServing();
    });
  }

  stopAll(): Promise<void> {
    return this.serial(async () => {
      const all = [...this.servers.values()];
      this.servers.clear();
      this.changed.fire();
      await this.process.stop();
      for (const e of all) {
        e.subscription.dispose();
        e.server.dispose();
      }
    });
  }

  /** Adds a folder to the list (true when it is new and on disk). */
  private track(folder: vscode.WorkspaceFolder): boolean {
    const key = folder.uri.toString();
    if (this.servers.has(key)) return false;
    if (folder.uri.scheme !== 'file') {
      this.deps.log.warn(`[${folder.name}] not served: ${folder.uri.scheme}: folders are not on a disk the server can use`);
      return false;
    }
    const server = new FolderServer(folder, this.process, this.deps.log, this.deps.backupRoot, this.deps.homeRoot);
    this.servers.set(key, { server, subscription: server.onDidChange(() => this.changed.fire()) });
    this.changed.fire();
    return true;
  }

  /** Starts the process if it is not running, or tells the running one about new folders. */
  private async ensureServing(): Promise<void> {
    if (this.servers.size === 0) return;
    if (this.process.gaveUp) await this.process.stop();
    if (this.process.started) this.process.syncFolders();
    else await this.process.start();
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step, step);
    this.queue = next.catch((e: unknown) => this.deps.log.error(`server manager: ${(e as Error).message}`));
    return next;
  }

  dispose(): void {
    for (const e of this.servers.values()) e.subscription.dispose();
    this.changed.dispose();
  }
}
