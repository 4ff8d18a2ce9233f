import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PortPublisher, PortReach } from '../../../src/core/network/ports';

/**
 * The server's side of the port bridge (src/core/network/ports.ts) against a stand-in for a background command's
 * bridge (what bridge.pl --publish does, in Node: a control connection, and a connection back for each OPEN) and
 * a real TCP service standing for the dev server. The real bridge inside the real sandbox is
 * test/integration/background.test.ts's.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ports-'));
let n = 0;
const sock = () => path.join(dir, `${++n}.sock`);
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Reads lines from a socket. */
function lines(s: net.Socket, on: (line: string) => void): void {
  let buf = '';
  s.on('data', (d: Buffer) => {
    buf += d.toString('latin1');
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      on(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
}

/** A background command's bridge, as bridge.pl behaves: ports it claims, connections back to `target`. */
function fakeBridge(publish: string, ports: readonly number[], target: number, say: (s: net.Socket, token: string) => unknown = (s, token) => s.write(`DATA ${token}\n`)): net.Socket {
  const ctl = net.connect(publish, () => ctl.write('CTL\n'));
  lines(ctl, (line) => {
    if (line === 'PORTS') ctl.write(`PORTS${ports.map((p) => ` ${p}`).join('')}\n`);
    const open = /^OPEN ([0-9a-f]+) (\d+)$/.exec(line);
    if (!open) return;
    const up = net.connect(publish, () => {
      say(up, open[1]!);
      const local = net.connect(target, '127.0.0.1');
      local.on('error', () => up.destroy());
      up.pipe(local);
      local.pipe(up);
    });
  });
  closers.push(() => ctl.destroy());
  return ctl;
}

/** A TCP service that greets first (as SSH or SMTP do), then echoes. */
async function service(): Promise<number> {
  const server = net.createServer((c) => {
    c.write('hello\n');
    c.pipe(c);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

async function publisher(notOwn: number[] = []): Promise<PortPublisher> {
  const p = await PortPublisher.listen(sock(), notOwn);
  closers.push(() => p.close());
  return p;
}

const read = (s: net.Socket, until: string) =>
  new Promise<string>((resolve, reject) => {
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.includes(until)) resolve(got);
    });
    s.on('error', reject);
    s.on('close', () => resolve(got));
  });

describe('the port bridge, server side', () => {
  it('asks the bridge which ports listen, leaving out the proxy\'s and the ones it relays for others', async () => {
    const p = await publisher([5173]);
    expect(await p.ports()).toEqual([]); // no bridge connected yet: nothing to ask
    fakeBridge(p.socketPath, [3128, 5173, 8000, 70000], 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(await p.ports()).toEqual([8000]);
  });

  it('carries a connection both ways through the bridge, the service\'s first bytes included', async () => {
    const port = await service();
    const p = await publisher();
    fakeBridge(p.socketPath, [port], port);
    await new Promise((r) => setTimeout(r, 50));
    const s = await p.open(port);
    s.resume();
    const got = read(s, 'ping');
    s.write('ping\n');
    expect(await got).toBe('hello\nping\n');
    s.destroy();
  });

  it('a later command\'s reach socket is relayed to the published port', async () => {
    const port = await service();
    const p = await publisher();
    fakeBridge(p.socketPath, [port], port);
    await new Promise((r) => setTimeout(r, 50));
    const reach = await PortReach.open([{ port, publisher: p, socket: sock() }]);
    closers.push(() => reach.close());
    const c = net.connect(reach.wiring[0]!.socket);
    const got = read(c, 'abc');
    c.write('abc\n');
    expect(await got).toBe('hello\nabc\n');
    reach.close();
    expect(fs.existsSync(reach.wiring[0]!.socket)).toBe(false);
  });

  it('a connection back with a token nobody asked for, or a second control connection, is closed at once', async () => {
    const p = await publisher();
    fakeBridge(p.socketPath, [1], 1);
    await new Promise((r) => setTimeout(r, 50));
    for (const first of ['DATA 0123456789abcdef01234567\n', 'CTL\n', 'HELLO\n']) {
      const s = net.connect(p.socketPath, () => s.write(first));
      await new Promise<void>((resolve) => s.on('close', () => resolve()));
    }
    expect(await p.ports()).toEqual([1]); // the real control connection still answers
  });

  it('an OPEN the bridge never answers fails in time; a closed publisher refuses at once', async () => {
    const p = await publisher();
    fakeBridge(p.socketPath, [9], 9, () => undefined); // connects back but never says which OPEN it answers
    await new Promise((r) => setTimeout(r, 50));
    await expect(p.open(9)).rejects.toThrow(/did not answer a connection to port 9 within 5 s/);
    p.close();
    await expect(p.open(9)).rejects.toThrow(/publishes no port/);
    expect(fs.existsSync(p.socketPath)).toBe(false);
  }, 15_000);

  it('a command flooding its publish socket with connections that never say what they are is held to a bound', async () => {
    const p = await publisher();
    const socks = Array.from({ length: 100 }, () => net.connect(p.socketPath));
    closers.push(() => socks.forEach((s) => s.destroy()));
    const closed = await Promise.all(socks.map((s) => new Promise<boolean>((resolve) => {
      s.on('close', () => resolve(true));
      s.on('error', () => undefined);
      setTimeout(() => resolve(false), 1000);
    })));
    // The first 64 wait for their header (and would be closed after 5 s); the rest are closed at once.
    expect(closed.filter(Boolean).length).toBe(36);
  });
});
