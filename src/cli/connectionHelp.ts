import { clientConfiguration, PRINT_CONFIG_FAMILIES, type PrintConfigFamily } from '../shared/clientConfig';

/**
 * What a person needs to connect a client: the URL, the token, and a configuration for the client family they
 * name with --print-config (a generic one otherwise: URL, header, and mcp-remote for stdio-only clients).
 */
export function connectionHelp(url: string, token: string | null, root: string, family: PrintConfigFamily = 'generic'): string {
  const bold = (s: string) => (process.stderr.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
  const kind = PRINT_CONFIG_FAMILIES[family];
  const others = Object.keys(PRINT_CONFIG_FAMILIES).filter((f) => f !== family).join(', ');
  return [
    `guarded-shell: serving ${root}`,
    `guarded-shell: MCP endpoint ${url}`,
    token ? `guarded-shell: bearer token ${bold(token)}` : 'guarded-shell: no token (authentication off)',
    `guarded-shell: client configuration (${family}; --print-config ${others} for another client):`,
    clientConfiguration(kind, { url, token, name: 'guarded-shell' }),
  ].join('\n');
}

/** Loopback addresses: a server bound there is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/** The warning for a bind address other machines can reach, naming who can reach it. */
export function exposureWarning(host: string, port: string, authenticated: boolean): string | undefined {
  if (isLoopback(host)) return undefined;
  const who = host === '0.0.0.0' || host === '::' || host === '' ? 'every network interface of this machine' : `the network interface with address ${host}`;
  const then = authenticated ? 'anyone on those networks who has the bearer token can run commands in the workspace, and the token travels unencrypted (plain HTTP)' : 'ANYONE on those networks can run commands in the workspace (authentication is off)';
  return `guarded-shell: WARNING: --host ${host} listens on ${who} (port ${port}), not only on this machine: ${then}. Use --host 127.0.0.1 unless other machines must connect, and then only on a network you trust (or behind a TLS proxy).`;
}
