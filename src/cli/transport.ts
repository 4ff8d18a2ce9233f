import * as fs from 'node:fs';
import type { SettingsLayer } from '../core/config/registry';

/**
 * The transport rule that makes mcp-shell-server's Claude Desktop configuration (a command and ALLOW_COMMANDS, no
 * flags) work unchanged: when no flag (--stdio, --sse, --http), environment or config-file key chooses the
 * transport, a server whose standard input is a pipe or a socket was launched by a client and serves stdio. A
 * terminal, /dev/null (a service, `docker run` without -i) or a file keeps the HTTP default.
 */
export function launchedByClient(fd = 0): boolean {
  try {
    const st = fs.fstatSync(fd);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

/** The lowest layer: what the launch itself says. Every explicit choice overrides it. */
export function launchLayer(fd = 0): SettingsLayer {
  return launchedByClient(fd) ? { transport: 'stdio' } : {};
}
