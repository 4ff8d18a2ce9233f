import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import { O_PATH } from '../../paths/fdpath';
import { killLeftoverGroups } from '../kill';
import { PipeReader } from './pipeReader';
import { SpareSupply, type Spare } from './spares';
import ZYGOTE_SCRIPT from './zygote.pl';

/**
 * The containment zygote (zygote.pl): one small Perl process per server that starts each stage of a call in a new
 * PID namespace by fork, instead of one more launcher exec per command (bwrap / unshare, contain.ts). It is the
 * same guarantee — nothing of a call outlives it, nothing outlives the server — at the cost of a fork of a small
 * process (no Perl module: ~1 MB of heap) instead of an exec: Node cannot call unshare() or prctl() itself.
 *
 * The zygote opens again what the server checked and holds open (the working directory, an output file) and
 * accepts each only when it is that very object (device and inode equal; anything swapped in meanwhile is
 * refused), makes the pipes, starts the stages and tells the server the descriptor numbers of its ends, which
 * the server opens through /proc/<zygote>/fd/N and acknowledges. (The zygote cannot read /proc/<server>/fd
 * itself when it lives in a user namespace: the kernel keeps a child namespace out of its parent's processes.)
 */

/** One program of a call as the zygote starts it. */
export interface ZygoteStage {
  readonly file: string;
  readonly argv0: string;
  readonly args: readonly string[];
}

/** A file or folder the server checked and holds open: the zygote opens `path` and accepts only this object. */
export interface HeldObject {
  readonly path: string;
  readonly fd: number;
}

export interface ZygoteCall {
  readonly stages: readonly ZygoteStage[];
  readonly env: Readonly<Record<string, string>>;
  /** The checked working directory. */
  readonly cwd: HeldObject;
  readonly stdin: 'null' | 'pipe';
  /** The last stage's stdout: a pipe to the server, or a checked output file. */
  readonly stdout: 'pipe' | (HeldObject & { readonly append: boolean });
}

/** device:inode, as perl's stat prints them (exact: bigint). */
function identity(fd: number): string {
  const st = fs.fstatSync(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

/** How long a call on a spare may run before the spares are topped up beside it. */
const NEXT_SPARE_MS = 20;

/**
 * How long a stage may run before its output is streamed (PipeReader): most commands end sooner, and their output
 * is read at once when they have. A command that fills its pipe before then waits this long once.
 */
const STREAM_AFTER_MS = 10;
/** STREAM_AFTER_MS, unless a test needs a stage's output to be read only at its end (zygoteForTests). */
let streamAfterMs = STREAM_AFTER_MS;

/** How long the zygote may keep its copies of a finished hand-over's pipe ends when no request follows. */
const ACK_DELAY_MS = 50;

const SIGNAL_NAMES = new Map(Object.entries(os.constants.signals).map(([name, n]) => [n, name]));
/** The zygote reports a failed step's errno as a number (this machine's): its name, as Node's errors give it. */
const ERRNO_NAMES = new Map(Object.entries(os.constants.errno).map(([name, n]) => [String(n), name]));

/**
 * A stage started by the zygote, shaped like the part of ChildProcess the executor uses: `pid` (the stage's
 * process group on the host), its streams, 'exit' (code, signal), then 'close' once its streams closed too, and
 * 'error' when the program could not be started (before exec). Its output ends are PipeReaders: read when the
 * stage has ended, or streamed once it has run for STREAM_AFTER_MS.
 */
export class ZygoteChild extends EventEmitter {
  readonly stdio: ReadonlyArray<net.Socket | PipeReader | null>;
  private readonly streamTimer: NodeJS.Timeout | undefined;
  private exited = false;
  /** 'exit' was emitted. */
  private reported = false;
  private closed = false;
  private open = 0;
  private code: number | null = null;
  private signal: string | null = null;

  constructor(
    readonly pid: number,
    readonly stdin: net.Socket | null,
    readonly stdout: PipeReader | null,
    readonly stderr: PipeReader | null,
  ) {
    super();
    this.stdio = [stdin, stdout, stderr];
    for (const stream of this.stdio) {
      if (!stream) continue;
      this.open++;
      stream.once('close', () => {
        this.open--;
        this.maybeClose();
      });
    }
    if (stdout || stderr) this.streamTimer = setTimeout(() => this.streamOutput(), streamAfterMs).unref();
  }

  /**
   * The zygote reported the stage reaped (or died, and its namespace, with the stage, with it): nothing of it is
   * left to signal. Known before 'exit' is emitted, on the next turn.
   */
  get reaped(): boolean {
    return this.exited;
  }

  /**
   * The zygote saw the stage end: `raw` is a wait status; `startError` when exec (or what precedes it) failed.
   * Told on the next turn of the event loop: the line can arrive in the same read as the start, before whoever
   * awaited the launch has attached its listeners.
   */
  ended(raw: number, file: string, startError?: string, lost?: Error): void {
    if (this.exited) return;
    this.exited = true;
    // A program that never started has no exit status (as with Node's spawn), only the error.
    const sig = startError === undefined ? raw & 127 : 0;
    this.code = sig || startError !== undefined ? null : raw >> 8;
    this.signal = sig ? (SIGNAL_NAMES.get(sig) ?? `SIG${sig}`) : null;
    clearTimeout(this.streamTimer);
    setImmediate(() => {
      // Reaped, and everything in its namespace with it: an output still held here is whole in its pipe, unless
      // a process outside was handed the pipe (then it is streamed from here on).
      for (const s of [this.stdout, this.stderr]) if (s && !s.drain()) s.attach();
      if (lost) this.emit('error', lost);
      if (startError !== undefined) {
        // The same words Node uses for a failed spawn (`spawn /usr/bin/x ENOENT`), with the errno as `code`.
        // A spare's refusal (the working directory or output file is not the checked one) is said as it is.
        const [step, n] = startError.split(' ');
        const errno = ERRNO_NAMES.get(n!) ?? `errno${n}`;
        const message = step === 'refuse' ? startError.slice(7) : step === 'exec' ? `spawn ${file} ${errno}` : `cannot start ${file}: ${step} ${errno}`;
        const error = Object.assign(new Error(message), { code: step === 'refuse' ? 'EREFUSED' : errno, beforeExec: true });
        this.emit('error', error);
      }
      this.emit('exit', this.code, this.signal);
      this.reported = true;
      this.maybeClose();
    });
  }

  /** The stage runs on: its output is streamed from now on. */
  private streamOutput(): void {
    this.stdout?.attach();
    this.stderr?.attach();
  }

  private maybeClose(): void {
    if (this.closed || !this.reported || this.open > 0) return;
    this.closed = true;
    this.emit('close', this.code, this.signal);
  }
}

const PERL_DIRS = ['/usr/bin', '/bin', '/usr/local/bin'];

/** The perl that runs the zygote: a fixed system location, never the agent-influenced PATH. */
export function findPerl(): string | undefined {
  for (const dir of PERL_DIRS) {
    try {
      fs.accessSync(`${dir}/perl`, fs.constants.X_OK);
      return `${dir}/perl`;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/**
 * The open() flags the zygote uses, this machine's numbers (they differ between architectures; Perl's own come
 * from a module that would cost the zygote 300 KB of heap): O_PATH, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK,
 * O_APPEND, O_WRONLY.
 */
const OPEN_FLAGS = `--flags=${[O_PATH, fs.constants.O_DIRECTORY, fs.constants.O_NOFOLLOW, fs.constants.O_NONBLOCK, fs.constants.O_APPEND, fs.constants.O_WRONLY].join(',')}`;

/**
 * argv of the zygote; with `trial` (DIR ID CMD…: the working directory, its device:inode or '-', the command)
 * it runs that one command as every call would and exits with its exit status (125: it did not start).
 */
export function zygoteArgv(perl: string, trial?: readonly string[]): string[] {
  return [perl, '-e', ZYGOTE_SCRIPT, '--', OPEN_FLAGS, ...(trial ? ['--trial', ...trial] : [])];
}

/** A command that exits 3 only when it runs as PID 1 of a new PID namespace. */
export const TRIAL_COMMAND = ['/bin/sh', '-c', 'exit $(($$ + 2))'];
const MINIMAL_ENV = { PATH: '/usr/bin:/bin' };
/**
 * The zygote's own environment: its handles unbuffered (the :unix layer alone; it only uses sysread and
 * syswrite). Perl flushes every buffered handle before each fork, which writes to each one's buffer, pages the
 * zygote then has to copy as the spares share them.
 */
const ZYGOTE_ENV = { ...MINIMAL_ENV, PERLIO: ':unix' };

export function zygoteTrialSync(perl: string, timeoutMs = 5000): boolean {
  const [file, ...args] = zygoteArgv(perl, ['/', '-', ...TRIAL_COMMAND]);
  return spawnSync(file!, args, { stdio: 'ignore', env: ZYGOTE_ENV, timeout: timeoutMs, killSignal: 'SIGKILL' }).status === 3;
}

/**
 * The same trial through the long-lived zygote the calls will use (started now, so the first call finds it
 * ready): the probe at server start pays one Perl start, not two.
 */
export async function zygoteTrial(perl: string, timeoutMs = 5000): Promise<boolean> {
  let root: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    root = fs.openSync('/', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    const [file, ...args] = TRIAL_COMMAND;
    const trial = launchContained(perl, { stages: [{ file: file!, argv0: file!, args }], env: MINIMAL_ENV, cwd: { path: '/', fd: root }, stdin: 'null', stdout: 'pipe' }).then(
      ([child]) =>
        new Promise<boolean>((resolve) => {
          for (const s of child!.stdio) s?.resume();
          child!.once('error', () => resolve(false));
          child!.once('close', (code) => resolve(code === 3));
        }),
    );
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const works = await Promise.race([trial, late]);
    if (!works) current?.stop(); // another launcher will be used: no idle zygote left behind
    return works;
  } catch {
    return false;
  } finally {
    if (timer) clearTimeout(timer);
    if (root !== undefined) fs.closeSync(root);
  }
}

/** One frame of the zygote's protocol: "<length>\n" and the fields joined by NUL. */
function frame(fields: readonly string[]): Buffer {
  const payload = Buffer.from(fields.join('\0'), 'utf8');
  return Buffer.concat([Buffer.from(`${payload.length}\n`), payload]);
}

interface Pending {
  readonly call: ZygoteCall;
  readonly resolve: (children: ZygoteChild[]) => void;
  readonly reject: (error: Error) => void;
}

/** One running zygote and the calls it is starting or running. */
class Zygote {
  private readonly proc: ChildProcess;
  private readonly pending = new Map<string, Pending>();
  private readonly live = new Map<string, { children: ZygoteChild[]; files: string[]; left: number }>();
  private nextId = 1;
  /** Calls whose pipe ends this process has opened: the zygote may close its copies (see `acknowledge`). */
  private acks: string[] = [];
  private ackTimer: NodeJS.Timeout | undefined;
  private buffer = '';
  private stderr = '';
  private gone: Error | undefined;
  private isReady = false;
  /** Forked stages waiting for one-stage calls (zygote.pl, "spares"), their pipe ends already open here. */
  private readonly spares = new SpareSupply<Pending & { readonly fields: readonly string[] }>((n) => this.send(...Array.from({ length: n }, () => ['N'])));
  /** The process that holds the pipe ends (Z0's child, PID 1 of its namespace), by its pid on the host. */
  private zygotePid = 0;
  readonly ready: Promise<void>;

  constructor(perl: string) {
    const [file, ...args] = zygoteArgv(perl);
    this.proc = spawn(file!, args, { stdio: ['pipe', 'pipe', 'pipe'], env: ZYGOTE_ENV });
    this.proc.unref();
    for (const s of [this.proc.stdin, this.proc.stderr] as Array<net.Socket | null>) s?.unref();
    let started: () => void = () => undefined;
    let failed: (e: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    this.ready.catch(() => undefined);
    this.proc.stdin!.on('error', () => undefined); // a dead zygote is reported by 'close'
    this.proc.stderr!.setEncoding('utf8').on('data', (t: string) => (this.stderr = (this.stderr + t).slice(-2000)));
    this.proc.stdout!.setEncoding('utf8').on('data', (text: string) => {
      this.buffer += text;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.startsWith('READY ')) {
          this.zygotePid = Number(line.split(' ')[2]);
          this.isReady = true;
          this.spares.started();
          this.holdLoop();
          started();
        } else if (line.startsWith('FAIL ')) failed(new Error(`the containment process cannot start: ${line.slice(5)}`));
        else this.onLine(line);
      }
    });
    this.proc.once('error', (e) => this.die(new Error(`the containment process cannot start: ${e.message}`), failed));
    this.proc.once('close', (code, signal) => {
      const why = this.stderr.trim() || (signal ? `killed by ${signal}` : `exit status ${code}`);
      this.die(new Error(`the containment process ended (${why})`), failed);
    });
  }

  /**
   * An idle zygote must not keep the server's event loop alive (a CLI that is done exits); one that is starting
   * or running calls must, or an await on it could end the process.
   */
  private holdLoop(): void {
    const busy = this.pending.size > 0 || this.live.size > 0 || this.spares.busy || !this.isReady;
    const out = this.proc.stdout as net.Socket | null;
    if (busy) out?.ref();
    else out?.unref();
  }

  get alive(): boolean {
    return this.gone === undefined;
  }

  launch(call: ZygoteCall): Promise<ZygoteChild[]> {
    if (this.gone) return Promise.reject(this.gone);
    const id = String(this.nextId++);
    const env = Object.entries(call.env).map(([k, v]) => `${k}=${v}`);
    let held: string[];
    try {
      held = [call.cwd.path, identity(call.cwd.fd), call.stdin, ...(call.stdout === 'pipe' ? ['pipe', '-', '0'] : [call.stdout.path, identity(call.stdout.fd), call.stdout.append ? '1' : '0'])];
    } catch (e) {
      return Promise.reject(e as Error);
    }
    const fields = [
      'S',
      id,
      ...held,
      String(env.length),
      ...env,
      String(call.stages.length),
      ...call.stages.flatMap((s) => [s.file, s.argv0, String(s.args.length), ...s.args]),
    ];
    // A NUL cannot be passed in argv or the environment (Node's spawn refuses it too); here it would also shift
    // every later field.
    const bad = fields.find((f) => f.includes('\0'));
    if (bad !== undefined) return Promise.reject(new Error(`an argument or environment value contains a NUL byte: ${JSON.stringify(bad.slice(0, 40))}`));
    const oneStage = call.stages.length === 1 && call.stdin === 'null';
    const spare = oneStage ? this.spares.take() : undefined;
    if (spare) return Promise.resolve([this.startOnSpare(spare, call, fields.slice(2))]);
    return new Promise((resolve, reject) => {
      const pending = { call, resolve, reject };
      if (!(oneStage && this.spares.wait({ ...pending, fields }))) this.sendCall(id, pending, fields);
      this.holdLoop();
    });
  }

  /** The zygote's own way: it forks the call's stages and answers "S" (or "F"). */
  private sendCall(id: string, pending: Pending, fields: readonly string[]): void {
    this.pending.set(id, pending);
    this.send(fields);
  }

  /** A spare asked for will not come: the calls that waited for it take the zygote's own way. */
  private spareFailed(): void {
    for (const w of this.spares.failed()) this.sendCall(w.fields[1]!, w, w.fields);
    this.holdLoop();
  }

  /** Writes requests, after the acknowledgements still owed (one write, one wake-up of the zygote). */
  private send(...requests: ReadonlyArray<readonly string[]>): void {
    this.proc.stdin!.write(Buffer.concat([...(this.acks.length ? [this.takeAcks()] : []), ...requests].map(frame)));
  }

  /**
   * A one-stage call given no input goes straight to the spare: the request is the same fields as for the zygote
   * (the spare's id in place of the call's); the spare checks and execs, and ends as a stage of that id.
   */
  private startOnSpare(spare: Spare, call: ZygoteCall, fields: readonly string[]): ZygoteChild {
    const child = new ZygoteChild(spare.pid, null, call.stdout === 'pipe' ? spare.stdout : null, spare.stderr);
    // Output to a file: the spare's end of this pipe closes at its exec.
    if (call.stdout !== 'pipe') spare.stdout.destroy();
    this.order(spare.control, frame([spare.sid, ...fields]));
    this.live.set(spare.sid, { children: [child], files: [call.stages[0]!.file], left: 1 });
    // The spares are topped up once this call's answer is on its way (a turn after the command's 'close': a fork
    // beside the call's way back competes with it for the CPUs), or after NEXT_SPARE_MS if it runs on.
    const topUp = () => this.gone || this.spares.topUp();
    const timer = setTimeout(topUp, NEXT_SPARE_MS).unref();
    child.once('close', () => {
      clearTimeout(timer);
      setImmediate(topUp);
    });
    this.holdLoop();
    return child;
  }

  /** "P <sid> <pid> <ctl> <out> <err>": a spare is ready; its server ends are opened now, off any call's path. */
  private onSpare(sid: string, [pid, ctl, ...outputs]: string[]): void {
    let control: number | undefined;
    const ends: PipeReader[] = [];
    try {
      // The control pipe is written once, with the order: a bare descriptor (no stream made for one write). The
      // command's output and errors: bare descriptors too, read when it ends or streamed if it runs on.
      control = this.openFd(ctl!, true);
      for (const n of outputs) ends.push(new PipeReader(this.openFd(n, false)));
    } catch {
      if (control !== undefined) fs.closeSync(control);
      for (const e of ends) e.destroy();
      this.acknowledge(sid, true);
      this.spareFailed();
      return; // no spare then: calls take the zygote's own way
    }
    // With the next request (the "N" after the call that takes this spare, at the latest).
    this.acknowledge(sid, false);
    const [stdout, stderr] = ends as [PipeReader, PipeReader];
    const spare = { sid, pid: Number(pid), control, stdout, stderr };
    const waited = this.spares.arrived(spare);
    if (waited) waited.resolve([this.startOnSpare(spare, waited.call, waited.fields.slice(2))]);
    this.holdLoop();
  }

  /** The server's end of a pipe the zygote made, by its descriptor number there (non-blocking). */
  private openFd(n: string, write: boolean): number {
    return fs.openSync(`/proc/${this.zygotePid}/fd/${n}`, (write ? fs.constants.O_WRONLY : fs.constants.O_RDONLY) | fs.constants.O_NONBLOCK);
  }

  /**
   * Writes a spare's order and closes its control pipe. The pipe is empty and non-blocking: an order that fits
   * (all but the largest) goes in one write, without a stream; the rest of a larger one through a stream. A spare
   * gone meanwhile (EPIPE) says so itself, by its 'X'.
   */
  private order(control: number, bytes: Buffer): void {
    let written = 0;
    try {
      written = fs.writeSync(control, bytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return fs.closeSync(control);
    }
    if (written === bytes.length) return fs.closeSync(control);
    const rest = new net.Socket({ fd: control, readable: false, writable: true });
    rest.on('error', () => undefined);
    rest.end(bytes.subarray(written));
  }

  private takeAcks(): string[] {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    return ['A', ...this.acks.splice(0)];
  }

  /**
   * Tells the zygote it may close its copies of a call's server-side pipe ends. Owed acknowledgements ride on
   * the next request, or go alone after ACK_DELAY_MS: one wake-up of the zygote less per call. Except for a
   * call that is given input: the zygote's copy of the input pipe's write end would keep the command from ever
   * seeing its end of input, so that one goes at once.
   */
  private acknowledge(id: string, now: boolean): void {
    this.acks.push(id);
    if (now) this.send(this.takeAcks());
    else this.ackTimer ??= setTimeout(() => this.acks.length && this.send(this.takeAcks()), ACK_DELAY_MS).unref();
  }

  private onLine(line: string): void {
    const [kind, id, ...rest] = line.split(' ');
    if (kind === 'S') this.started(id!, rest);
    else if (kind === 'P') this.onSpare(id!, rest);
    else if (kind === 'F') {
      if (id!.startsWith('P')) return this.spareFailed(); // a spare could not be forked
      const p = this.pending.get(id!);
      this.pending.delete(id!);
      this.holdLoop();
      p?.reject(new Error(rest.join(' ')));
    } else if (kind === 'X') {
      if (this.spares.lost(id!)) return; // an idle spare died (killed from outside)
      const call = this.live.get(id!);
      const stage = Number(rest[0]);
      const child = call?.children[stage];
      if (!call || !child) return; // a call we gave up on
      child.ended(Number(rest[1]), call.files[stage]!, rest.length > 2 ? rest.slice(2).join(' ') : undefined);
      if (--call.left === 0) {
        this.live.delete(id!);
        this.holdLoop();
      }
    }
  }

  private started(id: string, [pids, stdin, stdout, stderr]: string[]): void {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (!p) return;
    const opened: Array<net.Socket | PipeReader> = [];
    const input = (n: string | undefined): net.Socket | null => {
      if (n === undefined || n === '-') return null;
      const socket = new net.Socket({ fd: this.openFd(n, true), readable: false, writable: true });
      opened.push(socket);
      return socket;
    };
    const output = (n: string | undefined): PipeReader | null => {
      if (n === undefined || n === '-') return null;
      const reader = new PipeReader(this.openFd(n, false));
      opened.push(reader);
      return reader;
    };
    const stagePids = (pids ?? '').split(',').map(Number);
    const errs = (stderr ?? '').split(',');
    let children: ZygoteChild[];
    try {
      const first = input(stdin);
      const last = output(stdout);
      children = stagePids.map((pid, i) => new ZygoteChild(pid, i === 0 ? first : null, i === stagePids.length - 1 ? last : null, output(errs[i])));
    } catch (e) {
      for (const s of opened) s.destroy();
      killLeftoverGroups(stagePids);
      this.acknowledge(id, true);
      this.holdLoop();
      p.reject(new Error(`cannot take the command's pipes from the containment process: ${(e as Error).message}`));
      return;
    }
    this.acknowledge(id, p.call.stdin === 'pipe');
    this.live.set(id, { children, files: p.call.stages.map((s) => s.file), left: children.length });
    this.holdLoop();
    p.resolve(children);
  }

  private die(error: Error, failed: (e: Error) => void): void {
    if (this.gone) return;
    this.gone = error;
    failed(error);
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    for (const w of this.spares.clear()) w.reject(error);
    // Its stages died with it (its namespace, and theirs inside it, ended): report them killed, and why.
    for (const call of this.live.values()) for (const child of call.children) child.ended(9, '', undefined, error);
    this.live.clear();
  }

  stop(): void {
    this.proc.kill('SIGKILL');
  }
}

let current: Zygote | undefined;

/**
 * Starts a call's stages through this process's zygote, starting (or restarting) it when needed. Rejects when
 * nothing was started; the children's 'exit' / 'close' say how each stage ended.
 */
export async function launchContained(perl: string, call: ZygoteCall): Promise<ZygoteChild[]> {
  if (!current?.alive) current = new Zygote(perl);
  const zygote = current;
  await zygote.ready;
  return zygote.launch(call);
}

/**
 * For tests: the running zygote's pid, a way to kill it (the next call starts a new one), and how long a stage
 * runs before its output is streamed (`streamAfter(ms)`, for stages started from then on; no argument: the
 * default again).
 */
export function zygoteForTests(): { readonly pid: number | undefined; readonly spares: number[]; kill(): void; streamAfter(ms?: number): void } {
  const z = current?.alive ? (current as unknown as { zygotePid: number; spares: SpareSupply<unknown> }) : undefined;
  return { pid: z?.zygotePid, spares: z?.spares.pids ?? [], kill: () => current?.stop(), streamAfter: (ms = STREAM_AFTER_MS) => void (streamAfterMs = ms) };
}
