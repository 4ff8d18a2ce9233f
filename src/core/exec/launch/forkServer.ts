import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LaunchCall, LaunchedStage } from './contract';
import { closeInheritedDescriptors } from './spawn';

/**
 * The Linux launcher's fork server (forkServer.c): one small C process per server that forks every stage, so that
 * the server, a Node process of tens of MB, forks nothing per command, and each fork costs what a process of a few
 * hundred KB costs. It dies with the server (a parent-death signal, and the end of its orders), and every stage it
 * forks dies with it; each stage makes PID, mount and (not as root) user namespaces of its own with their own /proc,
 * whose PID 1 is a fork of the fork server holding the capabilities the command lacks; the command, the stage's next
 * fork (PID 2), has none, and reaches neither this process, nor the server, nor another call (test/conformance). No
 * exec but the command's: what unshare and setpriv would cost in execs per stage (the most expensive step of a
 * start), it does by system calls.
 *
 * The fork server makes the pipes; the server opens its ends through /proc/<fork server>/fd/N (its own user's
 * process) and then tells it to close its copies. What the server checked and holds open (the working directory, an
 * output file) is opened again by its path and accepted only as that very object (device and inode).
 */

/** Set by the build (scripts/launcher.mjs): a bare name beside the bundle (dist/), or the checkout's dist/ path. */
declare const GUARDED_SHELL_LAUNCHER: string | undefined;

/**
 * The fork server's binary, built into dist/ by the build, or undefined (not built here: no C compiler, not Linux;
 * the launcher takes its exec chain).
 */
export function findForkServer(): string | undefined {
  if (typeof GUARDED_SHELL_LAUNCHER !== 'string') return undefined;
  const file = path.isAbsolute(GUARDED_SHELL_LAUNCHER) ? GUARDED_SHELL_LAUNCHER : path.join(__dirname, GUARDED_SHELL_LAUNCHER);
  try {
    fs.closeSync(openForkServer(file));
    return file;
  } catch {
    return undefined;
  }
}

/**
 * The binary opened, accepted only as a regular, executable file that no one but its owner (root or this process's
 * user) can change: the server runs it with every capability it has. What runs is this descriptor (HELD), not the
 * path again: a file renamed into its place after the check is not the one started. (One written over in place
 * cannot be: the kernel refuses writes to a running program, and only its owner may write it at all.)
 */
function openForkServer(file: string): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const st = fs.fstatSync(fd);
    const owner = st.uid === 0 || st.uid === process.getuid?.();
    if (!st.isFile() || !owner || (st.mode & 0o022) !== 0 || (st.mode & 0o111) === 0) throw new Error(`${file} is not a fork server this server may run (owner, mode)`);
    return fd;
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
}

/** The fork server's binary in its process: the descriptor the server opened and checked, given as fd 3. */
const HELD = '/proc/self/fd/3';

/**
 * Starts the fork server from its binary, opened and checked, as the descriptor its process gets as fd 3 (HELD),
 * told this process's pid, with which it dies (forkServer.c).
 */
function startForkServer<T>(binary: string, start: (argv: string[], stdio3: number) => T): T {
  const fd = openForkServer(binary);
  try {
    return start([HELD, String(process.pid)], fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** One frame of the protocol: "<length>\n" and the fields joined by NUL. */
function frame(fields: readonly string[]): Buffer {
  const payload = Buffer.from(fields.join('\0'), 'utf8');
  return Buffer.concat([Buffer.from(`${payload.length}\n`), payload]);
}

/** device:inode, as the fork server's fstat gives them (bigint: exact). */
function identity(fd: number): string {
  const st = fs.fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

const SIGNAL_NAMES = new Map(Object.entries(os.constants.signals).map(([name, n]) => [n, name]));
/** A NUL would shift every later field (and cannot be in argv or the environment anyway). */
const NUL = /\0/;

/** A stage the fork server started, shaped like the part of ChildProcess the supervisor uses (contract.ts). */
class ForkedStage extends EventEmitter implements LaunchedStage {
  exitCode: number | null = null;
  signalCode: string | null = null;
  private open = 0;
  /** The fork server reported its end (exitCode / signalCode are set); 'exit' follows on the next turn. */
  private reported = false;

  constructor(readonly pid: number, readonly stdin: net.Socket | null, readonly stdout: net.Socket | null, readonly stderr: net.Socket | null) {
    super();
    for (const s of [stdin, stdout, stderr]) {
      if (!s) continue;
      this.open++;
      s.once('close', () => {
        this.open--;
        this.closeIfDone();
      });
    }
  }

  /** Told on the next turn: the report can come in the same read as the start, before anyone listens. */
  ended(status: number, lost?: Error): void {
    if (this.reported) return;
    this.reported = true;
    const sig = status & 127;
    if (sig) this.signalCode = SIGNAL_NAMES.get(sig) ?? `SIG${sig}`;
    else this.exitCode = status >> 8;
    setImmediate(() => {
      if (lost) this.emit('error', lost);
      this.emit('exit', this.exitCode, this.signalCode);
      this.exited = true;
      this.closeIfDone();
    });
  }

  private exited = false;
  private closed = false;
  private closeIfDone(): void {
    if (this.closed || !this.exited || this.open > 0) return;
    this.closed = true;
    this.emit('close', this.exitCode, this.signalCode);
  }
}

interface Pending {
  resolve(stages: ForkedStage[]): void;
  reject(e: Error): void;
}

class ForkServer {
  private readonly proc: ChildProcess;
  private readonly pending = new Map<string, Pending>();
  private readonly live = new Map<string, ForkedStage[]>();
  private nextId = 1;
  private pid = 0;
  private buffer = '';
  private stderr = '';
  private gone: Error | undefined;
  readonly ready: Promise<void>;

  constructor(binary: string) {
    closeInheritedDescriptors();
    this.proc = startForkServer(binary, ([file, ...args], held) => spawn(file!, args, { stdio: ['pipe', 'pipe', 'pipe', held], env: { PATH: '/usr/bin:/bin' } }));
    this.proc.unref();
    (this.proc.stderr as net.Socket).unref();
    this.proc.stdin!.on('error', () => undefined); // a fork server that died says so by 'close'
    let ready: () => void = () => undefined;
    let failed: (e: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => ((ready = resolve), (failed = reject)));
    this.ready.catch(() => undefined);
    this.proc.stderr!.setEncoding('utf8').on('data', (t: string) => (this.stderr = (this.stderr + t).slice(-2000)));
    this.proc.stdout!.setEncoding('utf8').on('data', (text: string) => {
      this.buffer += text;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line === 'READY') {
          this.pid = this.proc.pid!;
          ready();
        } else this.onLine(line);
      }
      this.holdLoop();
    });
    this.proc.once('error', (e) => this.die(new Error(`the launcher's fork server cannot start: ${e.message}`), failed));
    this.proc.once('close', (code, signal) => this.die(new Error(`the launcher's fork server ended (${this.stderr.trim() || (signal ? `killed by ${signal}` : `exit status ${code}`)})`), failed));
    this.holdLoop();
  }

  get alive(): boolean {
    return this.gone === undefined;
  }

  /** An idle fork server must not keep a finished process alive; one starting or running calls must. */
  private holdLoop(): void {
    const out = this.proc.stdout as net.Socket;
    if (this.pending.size > 0 || this.live.size > 0 || this.pid === 0) out.ref();
    else out.unref();
  }

  /** `contain`: each stage in namespaces of its own; else run as is (a sandbox's stage, which contains itself). */
  start(call: LaunchCall, contain: boolean): Promise<ForkedStage[]> {
    if (this.gone) return Promise.reject(this.gone);
    const id = String(this.nextId++);
    let fields: string[];
    try {
      const out = call.stdout === 'pipe' ? ['pipe', '-', '0'] : [call.stdout.path, identity(call.stdout.fd), call.stdout.append ? '1' : '0'];
      const env = Object.entries(call.env).map(([k, v]) => `${k}=${v}`);
      fields = ['S', id, call.cwd.real, identity(call.cwd.fd!), call.stdin === 'pipe' ? 'pipe' : 'null', ...out, contain ? '1' : '0', String(env.length), ...env, String(call.stages.length), ...call.stages.flatMap((s) => [String(s.args.length + 1), s.file, ...s.args])];
    } catch (e) {
      return Promise.reject(e as Error);
    }
    const bad = fields.find((f) => NUL.test(f));
    if (bad !== undefined) return Promise.reject(new Error(`an argument or environment value contains a NUL byte: ${JSON.stringify(bad.slice(0, 40))}`));
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.stdin!.write(frame(fields));
      this.holdLoop();
    });
  }

  private onLine(line: string): void {
    const [kind, id, ...rest] = line.split(' ');
    if (kind === 'S') this.started(id!, rest);
    else if (kind === 'F') {
      const p = this.pending.get(id!);
      this.pending.delete(id!);
      const why = rest.join(' ');
      p?.reject(Object.assign(new Error(why.startsWith('refuse ') ? why.slice(7) : `cannot start the command: ${why}`), { code: why.startsWith('refuse ') ? 'EREFUSED' : 'EFORK' }));
    } else if (kind === 'X') {
      const stages = this.live.get(id!);
      stages?.[Number(rest[0])]?.ended(Number(rest[1]));
      if (stages?.every((s) => s.exitCode !== null || s.signalCode !== null)) this.live.delete(id!);
    }
  }

  /** The server's end of a pipe the fork server made, opened by its descriptor number there (non-blocking). */
  private openEnd(n: string, write: boolean): net.Socket {
    const fd = fs.openSync(`/proc/${this.pid}/fd/${n}`, (write ? fs.constants.O_WRONLY : fs.constants.O_RDONLY) | fs.constants.O_NONBLOCK);
    return new net.Socket({ fd, readable: !write, writable: write });
  }

  private started(id: string, [pids, stdin, stdout, stderrs]: string[]): void {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (!p) return;
    const opened: net.Socket[] = [];
    const end = (n: string | undefined, write: boolean): net.Socket | null => {
      if (n === undefined || n === '-') return null;
      const s = this.openEnd(n, write);
      opened.push(s);
      return s;
    };
    const stagePids = pids!.split(',').map(Number);
    const errs = stderrs!.split(',');
    try {
      const first = end(stdin, true);
      const last = end(stdout, false);
      const stages = stagePids.map((pid, i) => new ForkedStage(pid, i === 0 ? first : null, i === stagePids.length - 1 ? last : null, end(errs[i], false)));
      this.live.set(id, stages);
      p.resolve(stages);
    } catch (e) {
      for (const s of opened) s.destroy();
      for (const pid of stagePids) this.signalGroup(pid);
      // Its descriptors are gone only with the fork server itself (it keeps them until our 'A'): say that.
      const ended = (e as NodeJS.ErrnoException).code === 'ENOENT';
      p.reject(new Error(ended ? "the launcher's fork server ended before the command's pipes were taken" : `cannot take the command's pipes from the launcher's fork server: ${(e as Error).message}`));
    } finally {
      this.proc.stdin!.write(frame(['A', id]));
    }
  }

  private signalGroup(pgid: number): void {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }

  private die(error: Error, failed: (e: Error) => void): void {
    if (this.gone) return;
    this.gone = error;
    failed(error);
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    // Its stages died with it (their parent-death signals, and with them their namespaces): reported killed, and why.
    for (const stages of this.live.values()) for (const s of stages) s.ended(9, error);
    this.live.clear();
  }

  kill(): void {
    this.proc.kill('SIGKILL');
  }
}

let current: ForkServer | undefined;

/** This process's fork server, started (or restarted) when needed, once it is ready. */
async function forkServer(binary: string): Promise<ForkServer> {
  if (!current?.alive) current = new ForkServer(binary);
  const server = current;
  await server.ready;
  return server;
}

/** Starts a call's stages through this process's fork server (`contain`: in namespaces it makes for each). */
export async function startForked(binary: string, call: LaunchCall, contain = true): Promise<LaunchedStage[]> {
  return (await forkServer(binary)).start(call, contain);
}

/** The start-up probe's blocking trial: the fork server runs `program` (given its stage argv) once; its exit status. */
export function forkServerTrialSync(binary: string, stageArgv: readonly string[], timeoutMs = 5000): number | undefined {
  const root = fs.openSync('/', 'r');
  let order: Buffer;
  try {
    order = frame(['S', '1', '/', identity(root), 'null', 'pipe', '-', '0', '1', '1', 'PATH=/usr/bin:/bin', '1', String(stageArgv.length), ...stageArgv]);
  } finally {
    fs.closeSync(root);
  }
  const r = startForkServer(binary, ([file, ...args], held) => spawnSync(file!, args, { input: order, timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8', env: { PATH: '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe', held] }));
  const status = /^X 1 0 (\d+)$/m.exec(r.stdout ?? '')?.[1];
  return status === undefined ? undefined : Number(status) >> 8;
}

/** For tests: the running fork server's pid, and a way to kill it (the next call starts a new one). */
export function forkServerForTests(): { readonly pid: number | undefined; kill(): void } {
  const s = current?.alive ? (current as unknown as { pid: number }) : undefined;
  return { pid: s?.pid, kill: () => current?.kill() };
}
