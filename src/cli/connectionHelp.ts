/** What a person needs to connect a client: the URL, the header, and a ready-to-paste mcp.json entry. */
export function connectionHelp(url: string, token: string | null, root: string): string {
  const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
  const config = { servers: { 'guarded-shell': { type: url.endsWith('/sse') ? 'sse' : 'http', url, ...(headers && { headers }) } } };
  const bold = (s: string) => (process.stderr.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
  return [
    `guarded-shell: serving ${root}`,
    `guarded-shell: MCP endpoint ${url}`,
    token ? `guarded-shell: bearer token ${bold(token)}` : 'guarded-shell: no token (authentication off)',
    `guarded-shell: client configuration (mcp.json):`,
    JSON.stringify(config, null, 2),
  ].join('\n');
}
