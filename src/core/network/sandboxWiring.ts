import { ToolError } from '../errors';
import { isInside } from '../paths/confine';
import BRIDGE_SCRIPT from './bridge.pl';

/**
 * How a sandboxed command reaches the egress proxy (proxy.ts), in three parts a launcher plugs in, and nothing
 * else: what to bind into the sandbox, which argv goes in front of the command, which variables go into its
 * environment. The sandbox itself keeps NO network (bubblewrap's own network namespace: a loopback and nothing
 * else; no DNS, no route out), so the proxy is the only way out whatever the command does.
 *
 *   proxy (server, outside)  <─ Unix socket, bound in at SANDBOX_PROXY_SOCKET ─  bridge (perl, inside)
 *                                                                               └ 127.0.0.1:SANDBOX_PROXY_PORT
 *                                                                                 ← HTTP(S)_PROXY … of the command
 *
 * Linux/bubblewrap today. Elsewhere the same proxy and record apply, only the wiring differs: macOS's Seatbelt
 * profile can allow `network-outbound` to the proxy's own loopback port and nothing else (no bridge needed); on
 * Windows an AppContainer with a firewall rule allowing only the proxy's port would do (docs/isolation.md).
 */

/** Where the proxy's socket appears inside the sandbox: in /run, which the sandbox replaces with a tmpfs. */
export const SANDBOX_PROXY_SOCKET = '/run/guarded-shell-proxy.sock';
/** The bridge's port on the sandbox's own loopback (its namespace is private: no other program holds it). */
export const SANDBOX_PROXY_PORT = 3128;

export interface ProxyWiring {
  /** The proxy's socket on the host (a fresh one per command). */
  readonly socket: string;
  /** The perl that runs the bridge: a fixed system path, visible inside the sandbox (findPerl). */
  readonly perl: string;
  /** Ports of the folder's background commands this command reaches on its loopback, each through a socket (ports.ts). */
  readonly reach?: readonly { readonly socket: string; readonly port: number }[];
  /** A background command: the socket its bridge publishes its listening ports on (ports.ts PortPublisher). */
  readonly publish?: string;
}

/** Where a reached port's socket appears inside the sandbox. */
export const sandboxPortSocket = (port: number): string => `/run/guarded-shell-port-${port}.sock`;
/** Where a background command's publish socket appears inside its sandbox. */
export const SANDBOX_PUBLISH_SOCKET = '/run/guarded-shell-publish.sock';

/**
 * bubblewrap arguments that bind the proxy's socket into the sandbox; placed AFTER every other mount (the tmpfs
 * over /run must already be there). A root that would hold the socket is refused: bwrap would create the mount
 * point inside the workspace on the host.
 */
export function proxyMounts(w: ProxyWiring, root: string): string[] {
  if (isInside(root, SANDBOX_PROXY_SOCKET)) {
    throw new ToolError('ISOLATION_UNAVAILABLE', `The workspace "${root}" contains ${SANDBOX_PROXY_SOCKET}, where the proxy's socket goes inside the sandbox.`, 'isolation.proxy-socket');
  }
  // Read-only: connect() still works on a socket of a read-only mount; the file cannot be replaced.
  return [
    '--ro-bind', w.socket, SANDBOX_PROXY_SOCKET,
    ...(w.reach ?? []).flatMap((r) => ['--ro-bind', r.socket, sandboxPortSocket(r.port)]),
    ...(w.publish !== undefined ? ['--ro-bind', w.publish, SANDBOX_PUBLISH_SOCKET] : []),
  ];
}

/** The argv placed in front of the command (inside the sandbox, after prlimit): the bridge, which then execs it. */
export function proxyPrefix(w: ProxyWiring): string[] {
  return [
    w.perl, '-e', BRIDGE_SCRIPT, SANDBOX_PROXY_SOCKET, String(SANDBOX_PROXY_PORT),
    ...(w.reach ?? []).flatMap((r) => [sandboxPortSocket(r.port), String(r.port)]),
    ...(w.publish !== undefined ? ['--publish', SANDBOX_PUBLISH_SOCKET] : []),
    '--',
  ];
}

/**
 * The variables that point every common client at the bridge: curl, wget, git, pip, cargo, Go and Python's
 * requests read the standard ones (either case), npm and yarn their own too, and Node's own http/fetch read them
 * with NODE_USE_ENV_PROXY (Node 24+). The sandbox's own loopback stays direct (a test server the command starts).
 */
export function proxyEnv(): Record<string, string> {
  const url = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
  const direct = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url, HTTPS_PROXY: url, ALL_PROXY: url, NO_PROXY: direct,
    http_proxy: url, https_proxy: url, all_proxy: url, no_proxy: direct,
    npm_config_proxy: url, npm_config_https_proxy: url, npm_config_noproxy: direct,
    YARN_HTTP_PROXY: url, YARN_HTTPS_PROXY: url,
    PIP_PROXY: url,
    NODE_USE_ENV_PROXY: '1',
  };
}
