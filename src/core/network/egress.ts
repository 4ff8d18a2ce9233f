import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LookupAll } from '../fetch/resolve';
import { startProxy, type ProxyOptions, type ProxySession } from './proxy';
import type { NetworkRecord } from './record';

/**
 * The server's side of the egress proxy: one per server process. It owns the folder the per-command sockets live
 * in (made by mkdtemp: mode 0700, so no other user of the machine can connect to a proxy) and the resolver every
 * proxy uses (injected in tests). Each command gets its own listener (`open`), so its record holds its own
 * attempts and nothing else, and closing it cuts its tunnels.
 */
export class Egress {
  private dir: string | undefined;
  private count = 0;
  private sessions = 0;
  private readonly removeDir = (): void => {
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  };

  constructor(private readonly options: { readonly lookup?: LookupAll; readonly tmpdir?: string } = {}) {}

  async open(o: Omit<ProxyOptions, 'socketPath' | 'lookup'>): Promise<ProxySession> {
    const socketPath = this.place('').path;
    let session: ProxySession;
    try {
      session = await startProxy({ ...o, socketPath, ...(this.options.lookup && { lookup: this.options.lookup }) });
    } catch (e) {
      this.closed();
      throw e;
    }
    let closing: Promise<NetworkRecord> | undefined;
    return { ...session, record: () => session.record(), close: () => (closing ??= session.close().finally(() => this.closed())) };
  }

  /**
   * A fresh socket path in the folder, for the proxy or the port bridge (ports.ts); the folder stays until every
   * place is released.
   */
  place(prefix: string): { readonly path: string; release(): void } {
    if (!this.dir) {
      // A Unix socket path holds at most 107 bytes: a long TMPDIR falls back to /tmp.
      const base = this.options.tmpdir ?? os.tmpdir();
      this.dir = fs.mkdtempSync(path.join(base.length > 60 ? '/tmp' : base, 'gs-net-'));
      process.once('exit', this.removeDir);
    }
    this.sessions++;
    let released = false;
    return {
      path: path.join(this.dir, `${prefix}${++this.count}.sock`),
      release: () => {
        if (released) return;
        released = true;
        this.closed();
      },
    };
  }

  /** The folder goes with the last open session: a server killed between commands leaves nothing behind. */
  private closed(): void {
    if (--this.sessions > 0) return;
    this.removeDir();
    process.off('exit', this.removeDir);
  }

  /** Removes the socket folder (each session removed its own socket when it closed). */
  dispose(): void {
    this.removeDir();
    process.off('exit', this.removeDir);
  }
}
