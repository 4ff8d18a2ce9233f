import { execFile, spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { LaunchCall, LaunchedStage } from './contract';

/**
 * The one place a process is started (eslint forbids `child_process` anywhere else, src/core/exec/launch/ aside):
 * a call's stages by Node's spawn, for every launcher that starts them that way; and the short programs the server
 * runs for itself (runHelper: GNU sed, the sandbox probe; trial runs at start).
 */

/**
 * Starts a call's stages with Node's spawn, stage i's stdout piped into stage i+1. Each stage leads its own session
 * and process group (the unit the launchers signal). A stage that cannot start ends the pipeline there: its
 * 'error' says why, and the stages started before it are the caller's to stop.
 *
 * `lifeline` (launchers without a namespace to end a call): each stage also gets a pipe as descriptor 3 that nobody
 * writes. Every descendant inherits it unless it closes it, so the stage's 'close' waits for an escaped (setsid)
 * process that keeps it, and the supervisor goes looking for it without a /proc scan on every call.
 */
export function spawnCall(call: LaunchCall, lifeline = false): ChildProcess[] {
  closeInheritedDescriptors();
  const started: ChildProcess[] = [];
  let previous: Readable | null = null;
  for (let i = 0; i < call.stages.length; i++) {
    const { file, args, argv0 } = call.stages[i]!;
    const last = i === call.stages.length - 1;
    const stdio: StdioOptions = [
      i > 0 ? (previous ?? 'ignore') : call.stdin,
      last && call.stdout !== 'pipe' ? call.stdout.fd : 'pipe',
      'pipe',
      ...(lifeline ? ['pipe' as const] : []),
    ];
    const child: ChildProcess = spawn(file, [...args], { ...(argv0 !== undefined && { argv0 }), cwd: call.cwd.path, env: call.env, stdio, shell: false, detached: true, windowsHide: true });
    started.push(child);
    (child.stdio[3] as Readable | null | undefined)?.resume(); // its end of file: every holder gone
    // The next stage holds the pipe now; our copy would keep it open and, read here, steal its data. Destroyed at
    // once, before the event loop could read a byte.
    previous?.destroy();
    previous = last ? null : child.stdout;
    if (child.pid === undefined) break; // its 'error' follows on the next tick
  }
  previous?.destroy();
  return started;
}

/** A stage that never started: its 'error' on the next tick, as from a failed spawn, and nothing else. */
export function unstarted(error: Error): LaunchedStage {
  const stage = Object.assign(new EventEmitter(), { pid: undefined, stdin: null, stdout: null, stderr: null, exitCode: null, signalCode: null }) as LaunchedStage;
  process.nextTick(() => stage.emit('error', error));
  return stage;
}

/**
 * Descriptors a process above the server left open without close-on-exec would reach every command it starts (Node
 * opens all of its own with it). Closed once, before the first start: nothing of this process uses them.
 */
let sealed = false;
export function closeInheritedDescriptors(): void {
  if (sealed || process.platform !== 'linux') return;
  sealed = true;
  let names: string[];
  try {
    names = fs.readdirSync('/proc/self/fdinfo');
  } catch {
    return;
  }
  for (const name of names) {
    const fd = Number(name);
    if (fd <= 2) continue;
    try {
      const flags = /^flags:\s+([0-7]+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) fs.closeSync(fd);
    } catch {
      // closed meanwhile (the directory's own descriptor)
    }
  }
}
/** O_CLOEXEC on every Linux ABI Node runs on but alpha/sparc/parisc (not supported there anyway). */
const O_CLOEXEC = 0o2000000;

/**
 * Short programs the server runs for ITSELF, not for the agent: GNU sed as a pure text transform and the sandbox
 * probe. No shell, a fixed environment, bounded time and output, killed with SIGKILL on timeout or abort, stdin
 * written and closed. (Agent commands go through a launcher, never through this.)
 */
export interface HelperResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  /** Set when the program could not start, failed, timed out (`killed`), was aborted or wrote too much. */
  readonly error?: NodeJS.ErrnoException & { killed?: boolean };
}

export interface HelperOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly input?: string | Buffer;
  readonly maxOutputBytes?: number;
  readonly signal?: AbortSignal;
}

export function runHelper(file: string, args: readonly string[], o: HelperOptions): Promise<HelperResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      [...args],
      { timeout: o.timeoutMs, killSignal: 'SIGKILL', maxBuffer: o.maxOutputBytes ?? 1024 * 1024, encoding: 'buffer', env: o.env, ...(o.signal && { signal: o.signal }) },
      (err, stdout, stderr) => resolve({ stdout, stderr: stderr.toString('utf8'), ...(err && { error: err as HelperResult['error'] }) }),
    );
    child.stdin?.on('error', () => {}); // a helper that exits without reading its input is answered by its exit status
    child.stdin?.end(o.input ?? '');
  });
}

/** A trial run at start (does this launcher work here?): bounded, no shell; the exit status, null when it could not start. */
export function trialRunSync(argv: readonly string[], timeoutMs = 5000, env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin' }): number | null {
  return spawnSync(argv[0]!, argv.slice(1), { timeout: timeoutMs, killSignal: 'SIGKILL', stdio: 'ignore', env }).status;
}

/** The same trial run, without blocking the event loop (start-up runs it beside the sandbox probe). */
export function trialRun(argv: readonly string[], timeoutMs = 5000, env: NodeJS.ProcessEnv = { PATH: '/usr/bin:/bin' }): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { timeout: timeoutMs, killSignal: 'SIGKILL', stdio: 'ignore', env });
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
}
