import * as vscode from 'vscode';
import type { StatusResult } from '../shared/protocol';
import type { DoublePromptNotice } from '../shared/webviewProtocol';
import { definitionLabel } from './mcpProvider';
import type { ServerManager } from './serverManager';

/** What the extension's exports offer to its own tests (never in production: it carries the bearer tokens). */
export interface GuardedShellTestApi {
  servers(): ServerSnapshot[];
  /** Asks the folder's server for its live state (a real round trip). */
  status(folder: vscode.Uri): Promise<StatusResult | undefined>;
  onDidChange: vscode.Event<void>;
  /** What the status bar item shows. */
  statusBar(): { text: string; warning: boolean };
  /** When activate() began (Date.now() in the extension host): the start of the activation-to-tools measurement. */
  readonly activatedAt: number;
  /** The double-prompt note the approval panel was last told to show (undefined: none). */
  approvalNotice(): DoublePromptNotice | undefined;
}

export interface ServerSnapshot {
  readonly folder: string;
  readonly label: string;
  readonly state: string;
  readonly url?: string;
  readonly token?: string;
  readonly pid?: number;
  readonly version: string;
}

export function createTestApi(
  manager: ServerManager,
  statusItem: vscode.StatusBarItem,
  panel: { readonly notice: DoublePromptNotice | undefined },
  activatedAt: number,
): GuardedShellTestApi {
  return {
    activatedAt,
    servers: () =>
      manager.all.map((s) => ({
        folder: s.folder.uri.fsPath,
        label: definitionLabel(s),
        state: s.state,
        version: String(s.generation),
        ...(s.ready && { url: s.ready.url, token: s.ready.token, pid: s.ready.pid }),
      })),
    status: (folder) => manager.forFolder(folder)?.status() ?? Promise.resolve(undefined),
    onDidChange: manager.onDidChange,
    statusBar: () => ({ text: statusItem.text, warning: statusItem.backgroundColor !== undefined }),
    approvalNotice: () => panel.notice,
  };
}
