import * as vscode from 'vscode';
import { ApprovalQueue } from './approval/queue';
import { WebviewApprovalPresenter } from './approval/webview/presenter';
import { COMMANDS, registerCommands } from './commands';
import { mcpApiAvailable, registerMcpProvider } from './mcpProvider';
import { ServerManager } from './serverManager';
import { SECTION } from './settings';
import { createStatusBar } from './statusBar';
import { createTestApi, type GuardedShellTestApi } from './testApi';
import { revokeByName, undoByName } from './sameName';
import type { BackgroundView } from '../shared/webviewProtocol';

/**
 * Activation: one server process for the window, serving every trusted workspace folder (each with its own endpoint,
 * policy, approvals and audit), registered with VS Code's MCP client, driven by settings.
 * Only this folder (src/extension) imports `vscode`.
 */

let manager: ServerManager | undefined;
const MCP_API_NOTICE_KEY = 'guardedShell.mcpApiMissingNoticeShown';

/** globalState key: the person dismissed the panel's explanation of VS Code's own confirmation. */
const DOUBLE_PROMPT_NOTICE = 'guardedShell.doublePromptNoticeDismissed';

export async function activate(context: vscode.ExtensionContext): Promise<GuardedShellTestApi | undefined> {
  const activatedAt = Date.now();
  const log = vscode.window.createOutputChannel('Guarded Shell', { log: true });
  // The approval panel: every pending request as a card; history from the servers' audit events.
  let serverList: ServerManager | undefined;
  const panel = new WebviewApprovalPresenter({
    extensionUri: context.extensionUri,
    log,
    revoke: (folderName, key) => revokeByName(serverList?.all ?? [], folderName, key),
    undo: (folderName, requestId) => undoByName(serverList?.all ?? [], folderName, requestId),
    folders: () => serverList?.all.map((s) => s.name) ?? [],
    // Shown until dismissed once, on this machine (not per workspace: it is about VS Code's own setting).
    notice: { dismissed: () => context.globalState.get(DOUBLE_PROMPT_NOTICE) === true, dismiss: () => context.globalState.update(DOUBLE_PROMPT_NOTICE, true) },
    stopBackground: (folderKey, id) =>
      serverList?.all.find((s) => s.id === folderKey)?.stopBackground(id) ?? Promise.resolve({ stopped: false, message: 'That folder is no longer served.' }),
  });
  const approvals = new ApprovalQueue(panel);
  manager = new ServerManager({
    serverModule: context.asAbsolutePath('dist/server.js'),
    log,
    approvals,
    onAudit: (record, folderName) => panel.addAudit(record, folderName),
    onReady: (folderName) => panel.serverRestarted(folderName),
    // Outside every workspace: previous contents never show up in the Explorer, and no tool can reach them.
    backupRoot: vscode.Uri.joinPath(context.globalStorageUri, 'backups').fsPath,
    // The commands' HOME (package managers' caches), per folder, likewise outside every workspace.
    homeRoot: vscode.Uri.joinPath(context.globalStorageUri, 'home').fsPath,
  });
  const servers = manager;
  serverList = servers;
  context.subscriptions.push(log, approvals, panel, servers);
  context.subscriptions.push(registerCommands(servers, approvals, log));
  const statusBar = createStatusBar(servers, approvals, COMMANDS.showStatus);
  context.subscriptions.push(statusBar);
  // The panel lists every folder's background commands, as their servers report them.
  context.subscriptions.push(servers.onDidChange(() => panel.setBackground(backgroundViews(servers))));

  if (mcpApiAvailable()) {
    context.subscriptions.push(registerMcpProvider(servers));
  } else {
    // Older VS Code: the server still runs; other clients (and this one, by hand) use the copied configuration.
    log.warn(`this VS Code (${vscode.version}) has no MCP server provider API: use "Guarded Shell: Copy Client Configuration" to connect clients`);
    if (!context.globalState.get(MCP_API_NOTICE_KEY)) {
      void context.globalState.update(MCP_API_NOTICE_KEY, true);
      void vscode.window.showInformationMessage(
        'Guarded Shell: this VS Code cannot register MCP servers itself (it needs 1.101 or later). The server runs anyway: copy its client configuration to connect an MCP client.',
        'Copy Client Configuration…',
      ).then((choice) => choice && vscode.commands.executeCommand(COMMANDS.copyClientConfig));
    }
  }

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      for (const s of servers.all) if (e.affectsConfiguration(SECTION, s.folder.uri)) void s.pushSettings();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(async (e) => {
      if (!vscode.workspace.isTrusted) return;
      await Promise.all([...e.removed.map((f) => servers.remove(f)), ...e.added.map((f) => servers.add(f))]);
    }),
  );

  // Extension-registered MCP servers get no trust prompt from VS Code: nothing runs until the workspace is trusted.
  // (The manifest declares untrustedWorkspaces unsupported, so VS Code should not even activate us there.)
  if (vscode.workspace.isTrusted) {
    void servers.startAll();
  } else {
    log.info('the workspace is not trusted: the server starts once it is');
    context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void servers.startAll()));
  }

  // Tests (and only tests/development) get a handle on the servers: it holds the bearer tokens.
  return context.extensionMode === vscode.ExtensionMode.Production ? undefined : createTestApi(servers, statusBar.item, panel, activatedAt);
}

function backgroundViews(servers: ServerManager): BackgroundView[] {
  return servers.all.flatMap((s) =>
    s.background.map((r) => ({
      folder: s.name, folderKey: s.id, id: r.id, stages: r.stages, cwd: r.cwd, isolation: r.isolation, startedAt: r.startedAt, elapsedMs: r.elapsedMs,
      lastLines: r.lastLines, inputOpen: r.inputOpen, ...(r.ports?.length && { ports: r.ports }),
    })),
  );
}

export async function deactivate(): Promise<void> {
  // Stopping sends shutdown: the server process kills every command tree of every folder before it exits.
  await manager?.stopAll();
  manager = undefined;
}
