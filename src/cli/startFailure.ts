import type { EffectiveSettings } from '../core/config/settings';

/** The server could not start: one line that names the flag or setting and says what to do. Exit code 1. */
export class StartError extends Error {
  override name = 'StartError';
}

type ServerOptions = EffectiveSettings['server'];

export function startFailure(e: unknown, options: ServerOptions): string {
  const err = e as NodeJS.ErrnoException & { path?: string };
  if (err.code === 'EADDRINUSE') return `port ${options.port} on ${options.host} is already in use (--port / "port"): stop the other server or choose another port (--port 0 picks a free one).`;
  if (err.code === 'EADDRNOTAVAIL') return `cannot listen on ${options.host} (--host / "host"): no such local address; use 127.0.0.1 or an address of this machine.`;
  if ((err.code === 'EACCES' || err.code === 'EPERM') && err.syscall === 'listen') return `not allowed to listen on port ${options.port} (--port / "port"): ports below 1024 need privileges; choose a higher port.`;
  if (options.auditLog !== undefined && err.path === options.auditLog) {
    const why = err.code === 'ENOENT' ? 'its folder does not exist' : err.code === 'EACCES' ? 'permission denied' : err.code === 'EISDIR' ? 'it is a folder' : (err.code ?? err.message);
    return `cannot open the audit log ${options.auditLog} (--auditlog / "auditlog"): ${why}; create the folder or choose another file.`;
  }
  return (e as Error).message;
}
