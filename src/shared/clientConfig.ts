/**
 * Ready-to-paste configurations for MCP clients other than VS Code's own, pointing at one folder's server.
 * The token changes on every server start, so a copied configuration is valid until the server restarts.
 */

export const CLIENT_KINDS = ['claudeCode', 'cline', 'cursor', 'mcpJson'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export const CLIENT_LABELS: Record<ClientKind, { label: string; detail: string }> = {
  claudeCode: { label: 'Claude Code', detail: 'a `claude mcp add` command line' },
  cline: { label: 'Cline', detail: 'an entry for cline_mcp_settings.json' },
  cursor: { label: 'Cursor', detail: 'an entry for .cursor/mcp.json' },
  mcpJson: { label: 'Generic mcp.json', detail: 'a VS Code-style .vscode/mcp.json (type http)' },
};

export interface ServerEndpoint {
  readonly url: string;
  readonly token: string;
  /** The name the server gets in the client's configuration. */
  readonly name: string;
}

/** A server name clients accept everywhere (letters, digits, - and _). */
export function serverName(folderName: string): string {
  const slug = folderName.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return slug ? `guarded-shell-${slug}` : 'guarded-shell';
}

export function clientConfiguration(kind: ClientKind, e: ServerEndpoint): string {
  const headers = { Authorization: `Bearer ${e.token}` };
  switch (kind) {
    case 'claudeCode':
      // Single-quoted for POSIX shells; neither the URL nor a base64url token can contain a quote.
      return `claude mcp add --transport http ${e.name} '${e.url}' --header 'Authorization: Bearer ${e.token}'`;
    case 'cline':
      return json({ mcpServers: { [e.name]: { type: 'streamableHttp', url: e.url, headers, disabled: false } } });
    case 'cursor':
      return json({ mcpServers: { [e.name]: { url: e.url, headers } } });
    case 'mcpJson':
      return json({ servers: { [e.name]: { type: 'http', url: e.url, headers } } });
  }
}

function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}
