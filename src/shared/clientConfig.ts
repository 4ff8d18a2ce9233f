/**
 * Ready-to-paste configurations for MCP clients, pointing at one server: the VS Code extension's "copy a client
 * configuration" command and the standalone server's start-up banner (--print-config) both print these. The
 * token changes on every server start (unless fixed), so a copied configuration is valid until the server restarts.
 */

export const CLIENT_KINDS = ['claudeCode', 'cline', 'cursor', 'mcpJson', 'generic'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

export const CLIENT_LABELS: Record<ClientKind, { label: string; detail: string }> = {
  claudeCode: { label: 'Claude Code', detail: 'a `claude mcp add` command line' },
  cline: { label: 'Cline', detail: 'an entry for cline_mcp_settings.json' },
  cursor: { label: 'Cursor', detail: 'an entry for .cursor/mcp.json' },
  mcpJson: { label: 'Generic mcp.json', detail: 'a VS Code-style .vscode/mcp.json (type http)' },
  generic: { label: 'Any client', detail: 'the URL and header, and an mcp-remote command line for clients that start only stdio servers' },
};

/** The client families the standalone server's --print-config names, and the configuration each prints. */
export const PRINT_CONFIG_FAMILIES = { generic: 'generic', vscode: 'mcpJson', claude: 'claudeCode', cursor: 'cursor' } as const satisfies Record<string, ClientKind>;
export type PrintConfigFamily = keyof typeof PRINT_CONFIG_FAMILIES;

export interface ServerEndpoint {
  readonly url: string;
  /** The bearer token; null when authentication is off (--noauth). */
  readonly token: string | null;
  /** The name the server gets in the client's configuration. */
  readonly name: string;
}

/** A server name clients accept everywhere (letters, digits, - and _). */
export function serverName(folderName: string): string {
  const slug = folderName.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return slug ? `guarded-shell-${slug}` : 'guarded-shell';
}

export function clientConfiguration(kind: ClientKind, e: ServerEndpoint): string {
  const headers = e.token ? { headers: { Authorization: `Bearer ${e.token}` } } : {};
  // Single-quoted for POSIX shells; neither the URL nor a base64url token can contain a quote.
  const header = e.token ? ` --header 'Authorization: Bearer ${e.token}'` : '';
  const sse = e.url.endsWith('/sse');
  switch (kind) {
    case 'claudeCode':
      return `claude mcp add --transport ${sse ? 'sse' : 'http'} ${e.name} '${e.url}'${header}`;
    case 'cline':
      return json({ mcpServers: { [e.name]: { type: sse ? 'sse' : 'streamableHttp', url: e.url, ...headers, disabled: false } } });
    case 'cursor':
      return json({ mcpServers: { [e.name]: { url: e.url, ...headers } } });
    case 'mcpJson':
      return json({ servers: { [e.name]: { type: sse ? 'sse' : 'http', url: e.url, ...headers } } });
    case 'generic':
      return [
        `URL: ${e.url} (${sse ? 'legacy SSE' : 'Streamable HTTP'})`,
        e.token ? `Header: Authorization: Bearer ${e.token}` : 'Header: none (authentication is off)',
        `A client that starts only stdio servers: npx -y mcp-remote '${e.url}'${header}${sse ? ' --transport sse-only' : ''}`,
      ].join('\n');
  }
}

function json(v: unknown): string {
  return JSON.stringify(v, null, 2);
}
