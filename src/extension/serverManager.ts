import * as vscode from 'vscode';
import { FolderServer, type FolderServerDeps } from './folderServer';

/**
 * One FolderServer per workspace folder on disk: started when the folder appears (and the workspace is trusted),
 * stopped when it goes. Other schemes (virtual file systems) are skipped: the server needs real files.
 */
export class ServerManager implements vscode.Disposable {
  private readonly servers = new Map<string, FolderServer>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when any server's state or endpoint changes, or servers come and go. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly deps: FolderServerDeps) {}

  get all(): FolderServer[] {
    return [...this.servers.values()];
  }

  forFolder(uri: vscode.Uri): FolderServer | undefined {
    return this.servers.get(uri.toString());
  }

  /** Starts a server for every folder that has none. */
  async startAll(): Promise<void> {
    await Promise.all((vscode.workspace.workspaceFolders ?? []).map((f) => this.add(f)));
  }

  async add(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    if (this.servers.has(key)) return;
    if (folder.uri.scheme !== 'file') {
      this.deps.log.warn(`[${folder.name}] not served: ${folder.uri.scheme}: folders are not on a disk the server can use`);
      return;
    }
    const server = new FolderServer(folder, this.deps);
    this.servers.set(key, server);
    this.subscriptions.push(server.onDidChange(() => this.changed.fire()));
    this.changed.fire();
    await server.start();
  }

  async remove(folder: vscode.WorkspaceFolder): Promise<void> {
    const key = folder.uri.toString();
    const server = this.servers.get(key);
    if (!server) return;
    this.servers.delete(key);
    this.changed.fire();
    await server.stop();
  }

  async stopAll(): Promise<void> {
    const all = this.all;
    this.servers.clear();
    this.changed.fire();
    await Promise.all(all.map((s) => s.stop()));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.changed.dispose();
  }
}
