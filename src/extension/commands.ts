import * as vscode from 'vscode';
import { CLIENT_KINDS, CLIENT_LABELS, clientConfiguration, serverName, type ClientKind } from '../shared/clientConfig';
import type { ApprovalQueue } from './approval/queue';
import type { FolderServer } from './folderServer';
import { SECTION } from './settings';
import type { ServerManager } from './serverManager';

export const COMMANDS = {
  showStatus: 'guardedShell.showStatus',
  copyClientConfig: 'guardedShell.copyClientConfiguration',
  restart: 'guardedShell.restartServer',
  openAuditLog: 'guardedShell.openAuditLog',
  showPending: 'guardedShell.showPendingApprovals',
  showLog: 'guardedShell.showLog',
} as const;

/** The command palette entries (declared under contributes.commands in package.json). */
export function registerCommands(manager: ServerManager, approvals: ApprovalQueue, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand(COMMANDS.showStatus, () => showStatus(manager, log)),
    vscode.commands.registerCommand(COMMANDS.copyClientConfig, () => copyClientConfig(manager)),
    vscode.commands.registerCommand(COMMANDS.restart, () => restart(manager)),
    vscode.commands.registerCommand(COMMANDS.openAuditLog, () => openAuditLog(log)),
    vscode.commands.registerCommand(COMMANDS.showPending, () => showPending(approvals)),
    vscode.commands.registerCommand(COMMANDS.showLog, () => log.show()),
  );
}

function noServerMessage(): void {
  void vscode.window.showInformationMessage(
    vscode.workspace.isTrusted
      ? 'Guarded Shell: no server is running. Open a folder to serve it.'
      : 'Guarded Shell: this workspace is not trusted, so no server runs. Trust the workspace to start it.',
  );
}

/** Picks one folder's server: the only one, or the person's choice. */
async function pickServer(manager: ServerManager, placeHolder: string, needReady = false): Promise<FolderServer | undefined> {
  const servers = manager.all.filter((s) => !needReady || s.ready);
  if (servers.length === 0) {
    noServerMessage();
    return undefined;
  }
  if (servers.length === 1) return servers[0];
  const pick = await vscode.window.showQuickPick(
    servers.map((s) => ({ label: s.name, description: s.ready?.url ?? s.state, server: s })),
    { placeHolder },
  );
  return pick?.server;
}

async function showStatus(manager: ServerManager, log: vscode.LogOutputChannel): Promise<void> {
  const servers = manager.all;
  if (servers.length === 0) return noServerMessage();
  const lines: string[] = [];
  for (const s of servers) {
    lines.push(`${s.name}: ${s.state}`);
    if (s.ready) {
      const st = await s.status().catch(() => undefined);
      lines.push(`  MCP endpoint: ${s.ready.url}`, `  Mode: ${st?.mode ?? s.ready.mode}`, `  Isolation: ${st?.isolation ?? s.ready.isolation}`);
      if (st) lines.push(`  Commands running: ${st.activeCommands}, queued: ${st.queuedCommands}, in the background: ${st.backgroundCommands}, approvals waiting: ${st.pendingApprovals}`);
      if (st?.settingsError) lines.push(`  Settings not applied: ${st.settingsError}`);
      if (s.ready.warning) lines.push(`  Warning: ${s.ready.warning}`);
      lines.push(`  Server process: ${s.ready.pid}, version ${s.ready.version}`);
    } else if (s.startError) lines.push(`  ${s.startError}`);
  }
  const choice = await vscode.window.showInformationMessage('Guarded Shell', { modal: true, detail: lines.join('\n') }, 'Copy URL', 'Copy Client Configuration…', 'Show Log');
  if (choice === 'Copy URL') {
    const s = await pickServer(manager, 'Which folder\'s server?', true);
    if (s?.ready) await vscode.env.clipboard.writeText(s.ready.url);
  } else if (choice === 'Copy Client Configuration…') await copyClientConfig(manager);
  else if (choice === 'Show Log') log.show();
}

async function copyClientConfig(manager: ServerManager): Promise<void> {
  const s = await pickServer(manager, 'Configuration for which folder\'s server?', true);
  if (!s?.ready) return;
  const items: Array<vscode.QuickPickItem & { client: ClientKind }> = CLIENT_KINDS.map((k) => ({ label: CLIENT_LABELS[k].label, detail: CLIENT_LABELS[k].detail, client: k }));
  const picked = await vscode.window.showQuickPick(items,
    { placeHolder: 'Copy a configuration for which MCP client?' },
  );
  if (!picked) return;
  await vscode.env.clipboard.writeText(clientConfiguration(picked.client, { url: s.ready.url, token: s.ready.token, name: serverName(s.name) }));
  void vscode.window.showInformationMessage(
    `Guarded Shell: ${picked.label} configuration for "${s.name}" copied. It holds this start's token: copy it again after the server restarts. Keep it private — it lets a program run commands in this folder.`,
  );
}

async function restart(manager: ServerManager): Promise<void> {
  if (manager.all.length === 0) return noServerMessage();
  await manager.restart();
}

async function openAuditLog(log: vscode.LogOutputChannel): Promise<void> {
  const file = vscode.workspace.getConfiguration(SECTION).inspect<string>('auditLog')?.globalValue;
  if (file) {
    try {
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
      return;
    } catch (e) {
      void vscode.window.showWarningMessage(`Guarded Shell: cannot open the audit log ${file}: ${(e as Error).message}`);
    }
  } else {
    void vscode.window.showInformationMessage('Guarded Shell: no audit log file is set (guardedShell.auditLog); the audit events are in the Guarded Shell output.');
  }
  log.show();
}

function showPending(approvals: ApprovalQueue): void {
  approvals.reveal(); // the approval panel lists every pending request
}
