import * as vscode from 'vscode';
import type { FolderServer } from './folderServer';
import type { ServerManager } from './serverManager';
import { serverLabel } from '../shared/approvalPanel/doublePrompt';

export const PROVIDER_ID = 'guardedShell';
/** How long VS Code's start of our server may wait for a (re)starting process to report its endpoint. */
const RESOLVE_WAIT_MS = 20_000;

export function definitionLabel(server: FolderServer): string {
  return serverLabel(server.name);
}

/** True when this VS Code has the MCP provider API (1.101+). Checked at run time: the manifest allows older hosts. */
export function mcpApiAvailable(): boolean {
  const lm = (vscode as { lm?: { registerMcpServerDefinitionProvider?: unknown } }).lm;
  return typeof lm?.registerMcpServerDefinitionProvider === 'function' && typeof (vscode as { McpHttpServerDefinition?: unknown }).McpHttpServerDefinition === 'function';
}

/**
 * Registers one MCP HTTP server definition per running folder server, so VS Code's MCP client (Copilot agent
 * mode) finds the tools with no mcp.json. Every restart brings a new port and token: the definition's version is
 * bumped and the change event fired, and VS Code reconnects.
 */
export function registerMcpProvider(manager: ServerManager): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  // Fire only when what a definition says changes (endpoint, presence), not on every state flicker.
  let last = '';
  const fingerprint = () => manager.all.map((s) => `${s.folder.uri}|${s.ready?.url ?? ''}|${s.generation}`).join('\n');
  const onManager = manager.onDidChange(() => {
    const now = fingerprint();
    if (now !== last) {
      last = now;
      changed.fire();
    }
  });

  const definitionOf = (s: FolderServer): vscode.McpHttpServerDefinition | undefined => {
    if (!s.ready) return undefined;
    return new vscode.McpHttpServerDefinition(definitionLabel(s), vscode.Uri.parse(s.ready.url), { Authorization: `Bearer ${s.ready.token}` }, String(s.generation));
  };

  const provider: vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      if (!vscode.workspace.isTrusted) return [];
      return manager.all.map(definitionOf).filter((d): d is vscode.McpHttpServerDefinition => d !== undefined);
    },
    // Called right before VS Code connects: hand over the endpoint of this moment (waiting for a restart to finish).
    resolveMcpServerDefinition: async (definition) => {
      if (!vscode.workspace.isTrusted) return undefined;
      const server = manager.all.find((s) => definitionLabel(s) === definition.label);
      if (!server) return undefined;
      if (!server.ready && server.state === 'starting') await waitFor(server, () => server.ready !== undefined, RESOLVE_WAIT_MS);
      return definitionOf(server);
    },
  };
  const registration = vscode.lm.registerMcpServerDefinitionProvider(PROVIDER_ID, provider);
  return vscode.Disposable.from(registration, onManager, changed);
}

function waitFor(server: FolderServer, done: () => boolean, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    const sub = server.onDidChange(() => done() && finish());
    function finish() {
      clearTimeout(timer);
      sub.dispose();
      resolve();
    }
  });
}
