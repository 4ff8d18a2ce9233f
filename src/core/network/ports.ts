import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { attempt } from '../attempt';
import { SANDBOX_PROXY_PORT } from './sandboxWiring';

/**
 * The folder's port bridge: how a server a background command runs inside its sandbox is reached by the folder's
 * later commands, each in a sandbox with a network namespace of its own (bubblewrap --unshare-net: a loopback and
 * nothing else). Every connection goes through the server process, over Unix sockets it creates in its own 0700
 * folder, never the other way:
 *
 *   later command ─ 127.0.0.1:8000 (its bridge) ─ reach socket ─► server ─ publish socket ◄─ the run's bridge ─ 127.0.0.1:8000 ─ dev server
 *                   (a sandbox of its own)                        PortReach   PortPublisher   (control connection: PORTS, OPEN)
 *
 * A background run's bridge (bridge.pl --publish) keeps a control connection open to its PortPublisher; asked
 * "OPEN token port" it connects again with "DATA token" and to the port inside its sandbox, and carries the bytes.
 * A later command gets a listener for each port a running background run of the folder listens on (asked when
 * it starts), relayed to a PortReach socket, which asks the publisher for a connection. Nothing of the host is
 * reachable this way: only ports inside the background run's own sandbox, and only from this folder's commands
 * (and the fetch tool, when the person allows loopback for that port).
 */

/** Longest control line accepted from a bridge (a port list). */
const MAX_LINE = 4096;
/** How long a bridge may take to answer PORTS, or to come back with the connection an OPEN asked for. */
const PORTS_TIMEOUT_MS = 1000;
const OPEN_TIMEOUT_MS = 5000;
/** Connections waiting for their bridge at once, per run (each holds a client). */
const MAX_PENDING = 64;

interface Waiting {
  readonly resolve: (s: net.Socket) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** The server's end of one background run's published ports. */
export class PortPublisher {
  private ctl: net.Socket | undefined;
  private readonly waiting = new Map<string, Waiting>();
  private portsAsked: Array<(ports: number[]) => void> = [];
  private closed = false;
  /** Connections that have not said what they are yet (a command flooding its socket is held to MAX_PENDING). */
  private unnamed = 0;

  private constructor(
    private readonly server: net.Server,
    readonly socketPath: string,
    /** Ports the run's own bridge listens on for others (the proxy, ports of other runs): never its own. */
    private readonly notOwn: ReadonlySet<number>,
  ) {
    server.on('connection', (s) => this.accept(s));
  }

  static async listen(socketPath: string, notOwn: Iterable<number> = []): Promise<PortPublisher> {
    const server = net.createServer({ allowHalfOpen: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => resolve());
    });
    return new PortPublisher(server, socketPath, new Set([SANDBOX_PROXY_PORT, ...notOwn]));
  }

  /** The ports the run listens on now; none when its bridge is not connected or does not answer in time. */
  ports(): Promise<number[]> {
    const ctl = this.ctl;
    if (!ctl || this.closed) return Promise.resolve([]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => done([]), PORTS_TIMEOUT_MS);
      const done = (ports: number[]) => {
        clearTimeout(timer);
        this.portsAsked = this.portsAsked.filter((w) => w !== done);
        resolve(ports);
      };
      this.portsAsked.push(done);
      ctl.write('PORTS\n');
    });
  }

  /** A connection to `port` inside the run's sandbox (rejects when the bridge cannot give one in time). */
  open(port: number): Promise<net.Socket> {
    const ctl = this.ctl;
    if (!ctl || this.closed) return Promise.reject(new Error('the background command publishes no port (its bridge is not connected)'));
    if (this.waiting.size >= MAX_PENDING) return Promise.reject(new Error('too many connections are waiting for this background command'));
    const token = randomBytes(12).toString('hex');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(token);
        reject(new Error(`the background command did not answer a connection to port ${port} within ${OPEN_TIMEOUT_MS / 1000} s`));
      }, OPEN_TIMEOUT_MS);
      this.waiting.set(token, { resolve, reject, timer });
      ctl.write(`OPEN ${token} ${port}\n`);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ctl?.destroy();
    for (const [, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(new Error('the background command ended'));
    }
    this.waiting.clear();
    for (const done of this.portsAsked.splice(0)) done([]);
    this.server.close();
    attempt(() => fs.unlinkSync(this.socketPath));
  }

  /** The first line says what a connection is: the control connection (once), or the answer to an OPEN. */
  private accept(s: net.Socket): void {
    if (this.closed || this.unnamed >= MAX_PENDING) return void s.destroy();
    this.unnamed++;
    let named = false;
    const name = () => {
      if (!named) this.unnamed--;
      named = true;
    };
    let head = Buffer.alloc(0);
    const giveUp = setTimeout(() => s.destroy(), OPEN_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(10);
      if (nl < 0) {
        if (head.length > 128) s.destroy();
        return;
      }
      s.off('data', onData);
      s.pause();
      clearTimeout(giveUp);
      name();
      const line = head.subarray(0, nl).toString('latin1');
      const rest = head.subarray(nl + 1);
      if (line === 'CTL' && !this.ctl) return this.control(s, rest);
      const data = /^DATA ([0-9a-f]{1,64})$/.exec(line);
      const w = data && this.waiting.get(data[1]!);
      if (!w) return void s.destroy();
      this.waiting.delete(data![1]!);
      clearTimeout(w.timer);
      // Bytes the service sent right behind the header belong to the stream.
      if (rest.length) s.unshift(rest);
      w.resolve(s);
    };
    s.on('data', onData);
    s.on('error', () => s.destroy());
    s.on('close', () => {
      clearTimeout(giveUp);
      name();
    });
  }

  private control(s: net.Socket, rest: Buffer): void {
    this.ctl = s;
    let pending = rest.toString('latin1');
    const lines = () => {
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        const m = /^PORTS((?: \d{1,5})*)$/.exec(line);
        if (m) {
          const ports = m[1]!.trim().split(' ').filter(Boolean).map(Number).filter((p) => p > 0 && p < 65536 && !this.notOwn.has(p));
          this.portsAsked.shift()?.(ports);
        }
      }
      if (pending.length > MAX_LINE) s.destroy();
    };
    s.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      lines();
    });
    s.on('close', () => {
      if (this.ctl === s) this.ctl = undefined;
      for (const done of this.portsAsked.splice(0)) done([]);
    });
    s.resume();
    lines();
  }
}

/** One later command's listeners: a Unix socket per published port, each connection relayed through its publisher. */
export class PortReach {
  private constructor(
    private readonly servers: readonly net.Server[],
    /** For the sandbox: which socket is which port. */
    readonly wiring: readonly { readonly socket: string; readonly port: number }[],
    private readonly sockets: Set<net.Socket>,
  ) {}

  static async open(targets: readonly { readonly port: number; readonly publisher: PortPublisher; readonly socket: string }[]): Promise<PortReach> {
    const sockets = new Set<net.Socket>();
    const servers: net.Server[] = [];
    const wiring: { socket: string; port: number }[] = [];
    const track = (s: net.Socket) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    };
    try {
      for (const t of targets) {
        const server = net.createServer({ allowHalfOpen: true }, (client) => {
          track(client);
          client.on('error', () => client.destroy());
          client.pause();
          t.publisher.open(t.port).then(
            (up) => {
              track(up);
              up.on('error', () => up.destroy());
              client.on('close', () => up.destroy());
              up.on('close', () => client.destroy());
              client.pipe(up);
              up.pipe(client);
              client.resume();
            },
            () => client.destroy(),
          );
        });
        servers.push(server);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(t.socket, () => resolve());
        });
        wiring.push({ socket: t.socket, port: t.port });
      }
    } catch (e) {
      for (const s of servers) s.close();
      for (const t of targets) attempt(() => fs.unlinkSync(t.socket));
      throw e;
    }
    return new PortReach(servers, wiring, sockets);
  }

  /** Stops listening and cuts every connection of the command (it ended). */
  close(): void {
    for (const s of this.servers) s.close();
    for (const s of this.sockets) s.destroy();
    for (const w of this.wiring) attempt(() => fs.unlinkSync(w.socket));
  }
}
