import type { ApprovalRequest } from '../../core/approval';
import type { DoublePromptNotice } from '../webviewProtocol';

/**
 * The one-time explanation in the VS Code panel, shown where the person first meets a double prompt: a card for a
 * call that VS Code's own MCP client made with a tool it was not told is read-only — VS Code asked before the call
 * (its confirmation for every such tool), and Guarded Shell asks again. Until the person dismisses it (remembered
 * by the extension), it names how to make Guarded Shell's panel the only gate.
 *
 * `appName` is this VS Code's product name (vscode.env.appName), which is exactly the clientInfo name its MCP
 * client sends; a card from any other client (Claude Code, a script) gets no notice.
 */
export function doublePromptNotice(
  pending: Iterable<{ readonly request: ApprovalRequest; readonly folder: string }>,
  appName: string,
  dismissed: boolean,
): DoublePromptNotice | undefined {
  if (dismissed) return undefined;
  const servers = new Set<string>();
  for (const p of pending) {
    const c = p.request.client;
    if (c && c.name === appName && !c.readOnlyHint) servers.add(serverLabel(p.folder));
  }
  return servers.size ? { app: appName, servers: [...servers] } : undefined;
}

/** The MCP server's name in VS Code (its definition label), as its confirmation menu shows it. */
export function serverLabel(folderName: string): string {
  return `Guarded Shell: ${folderName}`;
}
