import { spawn, type ChildProcess, type IOType, type StdioOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import type { Readable, Stream } from 'node:stream';
import { BoundedCapture } from './capture';
import { killLeftoverGroups, killProcessTrees } from './kill';
import { RUN_MARKER_NAME } from './processes';
import { holdWorkingDirectory, openStdinFile, openStdoutFile } from './redirects';
import type { ExecOutcome, ExecResult, ExecSpec, StageStatus } from './types';
import { launchContained, type ZygoteChild } from './zygote/client';
import type { OutputStream } from './zygote/pipeReader';

/**
 * One started command (a pipeline of stages). It owns the processes from spawn until every one of them is
 * reaped, and its `done` promise never rejects: every failure becomes an outcome.
 */

export type StopReason = 'timeout' | 'canceled' | 'output_limit';

export interface RunningCommand {
  readonly done: Promise<Omit<ExecResult, 'queueMs'>>;
  /** Kill the whole tree; the first reason given is the one reported. */
  stop(reason: StopReason): void;
}

export interface CommandOptions {
  readonly killGraceMs: number;
}

type StdioEntry = IOType | Stream | number;

interface Stage {
  child: ChildProcess | ZygoteChild | undefined;
  pid: number | undefined;
  exited: boolean;
  closed: boolean;
  exitCode: number | null;
  signal: string | null;
}

/** After a normal exit, how long stdio may stay open before we go looking for an escaped holder. */
const CLOSE_AFTER_EXIT_MS = 300;
/** After the final SIGKILL, how long we wait for the pipes to close before abandoning them. */
const CLOSE_AFTER_KILL_MS = 1000;
const PROGRESS_MS = 1000;
/** setTimeout fires at once for delays above 2^31-1 ms; clamp so a huge timeout is not a zero one. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function startCommand(spec: ExecSpec, opts: CommandOptions): RunningCommand {
  const startedAt = performance.now();
  // 24 hex digits, 90 of their bits random (a v4 UUID fixes 6 bits there): randomUUID draws from a buffered
  // batch of the CSPRNG, where randomBytes asked the CSPRNG anew on every call.
  const runId = randomUUID().replace(/-/g, '').slice(0, 24);
  const stages: Stage[] = [];
  let stopReason: StopReason | undefined;
  let spawnError: string | undefined;
  let phase: 'running' | 'finishing' = 'running';

  let wake: () => void = () => undefined;
  const attention = new Promise<void>((resolve) => (wake = resolve));
  let closedWaiters: Array<() => void> = [];
  const checkClosed = (): void => {
    if (stages.every((s) => s.closed)) for (const w of closedWaiters.splice(0)) w();
  };
  const checkExited = (): void => {
    if (stages.every((s) => s.exited)) wake();
  };

  const stop = (reason: StopReason): void => {
    // Once everything has exited only a late output overflow is still worth reporting (the text is cut).
    if (stopReason !== undefined || (phase !== 'running' && reason !== 'output_limit')) return;
    stopReason = reason;
    wake();
  };

  // Past the limit we close our read end at once: the writer gets EPIPE/SIGPIPE (as under `| head`) and no
  // more bytes cross into this process, so memory stays flat even while a stubborn writer awaits SIGKILL.
  const stdoutCap = new BoundedCapture(spec.outputLimitBytes, () => {
    stages[stages.length - 1]?.child?.stdout?.destroy();
    stop('output_limit');
  }, spec.outputLimitAction);
  const stderrCap = new BoundedCapture(spec.outputLimitBytes, () => {
    for (const s of stages) s.child?.stderr?.destroy();
    stop('output_limit');
  }, spec.outputLimitAction);

  const invalid = validate(spec);
  if (invalid !== undefined) return settled(errorResult(invalid, startedAt));
  if (spec.signal?.aborted) return settled(emptyResult('canceled', startedAt));

  let stdinFd: number | undefined;
  let stdoutFd: number | undefined;
  let workdir: ReturnType<typeof holdWorkingDirectory>;
  try {
    workdir = holdWorkingDirectory(spec.cwd, spec.pathGuard);
  } catch (e) {
    return settled(errorResult((e as Error).message, startedAt));
  }
  try {
    if (spec.stdinFile !== undefined) stdinFd = openStdinFile(spec.stdinFile, spec.pathGuard);
    if (spec.stdoutFile !== undefined) stdoutFd = openStdoutFile(spec.stdoutFile.path, spec.stdoutFile.append, spec.pathGuard);
  } catch (e) {
    if (stdinFd !== undefined) fs.closeSync(stdinFd);
    workdir.release();
    return settled(errorResult((e as Error).message, startedAt));
  }

  const env = { ...spec.env, [RUN_MARKER_NAME]: runId };
  let stdinPumped = false;
  /** Of the zygote's stages, the ones kill.ts ended with SIGKILL in place of SIGTERM's default action. */
  const termEmulated = new Set<number>();
  let held = true;
  const closeHeld = (): void => {
    if (!held) return;
    held = false;
    // Once the pump owns the input descriptor it closes it itself (autoClose).
    if (stdinFd !== undefined && !stdinPumped) fs.closeSync(stdinFd);
    if (stdoutFd !== undefined) fs.closeSync(stdoutFd);
    workdir.release();
  };
  // Every stage through the containment zygote (one fork each, in a new PID namespace), or each spawned by Node.
  // Stages that disagree are refused, never started the weaker way.
  const zygotes = new Set(spec.stages.map((s) => s.zygote));
  const zygote = spec.stages[0]!.zygote;
  const launched =
    zygotes.size > 1 ? refuse('the stages of one call disagree on how they are contained') : zygote !== undefined ? launchThroughZygote(zygote) : launchByNode();

  function refuse(why: string): Promise<void> {
    spawnError = why;
    closeHeld();
    return Promise.resolve();
  }

  function launchByNode(): Promise<void> {
    try {
      let previousStdout: Readable | undefined;
      for (let i = 0; i < spec.stages.length; i++) {
        const last = i === spec.stages.length - 1;
        const stdin: StdioEntry =
          // An input file is PUMPED through a pipe, never handed over as a descriptor: reopening a passed
          // descriptor through /proc/self/fd/0 for writing would reach the file on the host's mount, past a
          // read-only sandbox mount (`cmd < .git/config`).
          i > 0 ? previousStdout! : stdinFd !== undefined || spec.stdin !== undefined || spec.input !== undefined ? 'pipe' : 'ignore';
        const stdout: StdioEntry = last && stdoutFd !== undefined ? stdoutFd : 'pipe';
        // fd 3 is a "lifeline": every descendant inherits it unless it closes it, so the stage's 'close' waits
        // for an escaped (setsid) process that keeps it, and the normal-exit path notices it without a /proc scan.
        // fd 4 (WORKDIR_FD) is the checked working directory, only for the no-sandbox launcher that asks for it.
        const withDir = spec.stages[i]!.workdirFd === true && workdir.fd !== undefined;
        const stage = spawnStage(spec, i, env, [stdin, stdout, 'pipe', 'pipe', ...(withDir ? [workdir.fd!] : [])]);
        stages.push(stage);
        // The next stage (or nobody) holds the pipe now; the parent's copy would keep it open and, read by us,
        // would steal the data. Destroyed synchronously, before the event loop could read a single byte.
        previousStdout?.destroy();
        previousStdout = undefined;
        if (stage.pid === undefined) break;
        wire(stage, i === 0, last);
        if (!last) previousStdout = (stage.child as ChildProcess).stdout ?? undefined;
      }
    } finally {
      closeHeld();
    }
    return Promise.resolve();
  }

  /**
   * The zygote makes the pipes between the stages itself and opens the working directory and an output file
   * again, accepting them only as the very objects this process holds open (device and inode), which stay open
   * until the call ends. Its stages are PID 1 of their namespaces: kill.ts gives them the SIGTERM they would have
   * died of (`inits`).
   */
  async function launchThroughZygote(perl: string): Promise<void> {
    try {
      if (workdir.fd === undefined) throw Object.assign(new Error(`spawn ${spec.stages[0]!.file} ENOENT`), { code: 'ENOENT' });
      const children = await launchContained(perl, {
        stages: spec.stages.map((s) => ({ file: s.file, argv0: s.argv0 ?? s.file, args: s.args })),
        env,
        cwd: { path: workdir.real, fd: workdir.fd },
        stdin: stdinFd !== undefined || spec.stdin !== undefined || spec.input !== undefined ? 'pipe' : 'null',
        stdout: stdoutFd !== undefined ? { path: spec.stdoutFile!.path, fd: stdoutFd, append: spec.stdoutFile!.append } : 'pipe',
      });
      children.forEach((child, i) => {
        const stage: Stage = { child, pid: child.pid, exited: false, closed: false, exitCode: null, signal: null };
        child.on('error', (err: Error) => {
          // A program that could not start (as a failed Node spawn), or the zygote lost: the call ends, and the
          // stages still running are stopped.
          spawnError ??= describeSpawnError(err, spec.cwd);
          wake();
        });
        stages.push(stage);
        wire(stage, i === 0, i === children.length - 1);
      });
    } catch (e) {
      spawnError ??= describeSpawnError(e as Error, spec.cwd);
      closeHeld();
    }
    // Otherwise held until the call ends (`done`): a spare checks the folder and an output file after the launch
    // (zygote.pl), against these very objects, which must not be freed (nor their inode numbers reused) before.
  }

  function spawnStage(s: ExecSpec, index: number, childEnv: Record<string, string>, stdio: StdioOptions): Stage {
    const { file, args, argv0 } = s.stages[index]!;
    const stage: Stage = { child: undefined, pid: undefined, exited: false, closed: false, exitCode: null, signal: null };
    try {
      const child = spawn(file, [...args], {
        ...(argv0 !== undefined && { argv0 }),
        cwd: workdir.path,
        env: childEnv,
        stdio,
        shell: false,
        detached: true, // own process group (and session): the unit we kill
        windowsHide: true,
      });
      stage.child = child;
      stage.pid = child.pid;
      child.on('error', (err) => {
        // Spawn failures (ENOENT, EACCES) arrive here on the next tick; later errors (kill failing) are moot.
        // Only one stage can fail to spawn (we stop there), so its detail replaces the placeholder below.
        if (stage.pid === undefined) spawnError = describeSpawnError(err, s.cwd);
      });
    } catch (e) {
      spawnError ??= describeSpawnError(e as Error, s.cwd);
    }
    if (stage.pid === undefined) {
      spawnError ??= `spawn ${file} failed`;
      // Nothing runs for this stage: release whatever pipes were created for it.
      for (const stream of stage.child?.stdio ?? []) (stream as Readable | null)?.destroy();
      stage.exited = true;
      stage.closed = true;
      wake();
    }
    return stage;
  }

  function wire(stage: Stage, first: boolean, last: boolean): void {
    const child = stage.child!;
    const stderr: OutputStream | null = child.stderr;
    const stdout: OutputStream | null = child.stdout;
    const onOutput = spec.onOutput;
    stderr?.on('data', (chunk: Buffer) => {
      stderrCap.push(chunk);
      if (onOutput) safeCall(() => onOutput('stderr', chunk));
    });
    // Nobody writes the lifeline; reading it lets its EOF (= every holder gone) be seen.
    (child.stdio[3] as Readable | null | undefined)?.resume();
    if (last) {
      stdout?.on('data', (chunk: Buffer) => {
        stdoutCap.push(chunk);
        if (onOutput) safeCall(() => onOutput('stdout', chunk));
      });
    }
    if (first && child.stdin && stdinFd !== undefined) {
      const pump = fs.createReadStream('', { fd: stdinFd, autoClose: true, start: 0 });
      stdinPumped = true;
      // A command that stops reading (head, or its death) closes the pipe: stop reading the file then.
      child.stdin.on('error', () => pump.destroy());
      pump.on('error', () => child.stdin?.destroy());
      child.once('close', () => pump.destroy());
      pump.pipe(child.stdin);
    } else if (first && child.stdin && spec.stdin !== undefined) {
      // A command that never reads its stdin closes the pipe: EPIPE here is normal, not a failure.
      child.stdin.on('error', () => undefined);
      child.stdin.end(typeof spec.stdin === 'string' ? spec.stdin : Buffer.from(spec.stdin));
    } else if (first && child.stdin && spec.input !== undefined) {
      // Input that arrives while it runs; a command that stops reading (or dies) closes the pipe: stop feeding it.
      const input = spec.input;
      const stdin = child.stdin;
      stdin.on('error', () => input.unpipe(stdin));
      child.once('close', () => input.unpipe(stdin));
      input.pipe(stdin);
    }
    child.on('exit', (code, signal) => {
      stage.exited = true;
      stage.exitCode = code;
      stage.signal = signal;
      checkExited();
    });
    child.on('close', () => {
      stage.exited = true;
      stage.closed = true;
      checkClosed();
    });
  }

  const timer = setTimeout(() => stop('timeout'), Math.min(Math.max(0, spec.timeoutMs), MAX_TIMER_MS));
  const onAbort = (): void => stop('canceled');
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  const progress = spec.onProgress
    ? setInterval(() => {
        safeCall(() =>
          spec.onProgress!({ elapsedMs: Math.round(performance.now() - startedAt), stdoutBytes: stdoutCap.total, stderrBytes: stderrCap.total }),
        );
      }, PROGRESS_MS)
    : undefined;
  void launched.then(() => {
    if (spawnError === undefined && spec.onStart) safeCall(spec.onStart);
    checkExited();
  });

  const allClosed = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      if (stages.every((s) => s.closed)) return resolve(true);
      const t = setTimeout(() => resolve(false), ms);
      closedWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });

  const done = (async (): Promise<Omit<ExecResult, 'queueMs'>> => {
    await launched; // a stop requested meanwhile is acted on once there are processes to stop
    await attention; // all stages exited, a stop was requested, or a stage failed to spawn
    // A zygote's stage that was reported reaped is gone, and its namespace with everything in it: there is no group
    // of it to signal, and its pid may be another process's group by now. (An output limit can be passed after
    // that: a stage that ended within STREAM_AFTER_MS has its output read at its end, zygote/client.ts.) The run's
    // marker is still looked for (kill.ts).
    const pgids = stages
      .filter((s) => zygote === undefined || !(s.child as ZygoteChild | undefined)?.reaped)
      .map((s) => s.pid)
      .filter((p): p is number => p !== undefined);
    // The zygote's stages are PID 1 of their namespaces: no default action for a signal sent from outside.
    const inits = zygote !== undefined ? pgids : [];
    const killing = stopReason !== undefined || spawnError !== undefined;
    phase = 'finishing';
    clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
    if (progress) clearInterval(progress);

    if (spawnError !== undefined) await new Promise((resolve) => setImmediate(resolve)); // let 'error' tell why
    // Nothing to look for when no process of the call ever started (its first stage could not be spawned).
    if (killing && stages.some((s) => s.pid !== undefined)) {
      await killProcessTrees({ pgids, runId, inits }, spawnError !== undefined ? 0 : opts.killGraceMs, termEmulated);
    } else if (zygote === undefined) {
      // Normal exit: background children (`sleep 300 &`) may still hold the pipes. One signal per group.
      killLeftoverGroups(pgids);
    }
    // A zygote's stage is reported ended once reaped, and the init of a PID namespace is reaped only after the
    // kernel killed and reaped everything else in it: nothing of the call is left to signal, and its group id
    // may already be another process's.
    if (!(await allClosed(killing ? CLOSE_AFTER_KILL_MS : CLOSE_AFTER_EXIT_MS))) {
      // Someone outside the groups (setsid) holds a pipe: find them by marker / ancestry and kill them.
      await killProcessTrees({ pgids, runId, inits }, 0);
      if (!(await allClosed(CLOSE_AFTER_KILL_MS))) {
        for (const s of stages) for (const stream of s.child?.stdio ?? []) (stream as Readable | null)?.destroy();
      }
    }
    closedWaiters = [];
    closeHeld();
    return buildResult();
  })();

  function buildResult(): Omit<ExecResult, 'queueMs'> {
    for (const s of stages) if (s.pid !== undefined && termEmulated.has(s.pid) && s.signal === 'SIGKILL') s.signal = 'SIGTERM';
    const statuses: StageStatus[] = stages.map((s) => ({ exitCode: s.exitCode, signal: s.signal }));
    const last = stages[stages.length - 1];
    const exitCode = last?.exitCode ?? null;
    let outcome: ExecOutcome;
    if (spawnError !== undefined) outcome = 'error';
    else if (stopReason !== undefined) outcome = stopReason;
    else outcome = exitCode === 0 ? 'ok' : 'failed';
    return {
      outcome,
      exitCode,
      signal: last?.signal ?? null,
      stages: statuses,
      stdout: stdoutCap.text(),
      stderr: stderrCap.text(),
      stdoutBytes: stdoutCap.total,
      stderrBytes: stderrCap.total,
      stdoutTruncated: stdoutCap.truncated,
      stderrTruncated: stderrCap.truncated,
      durationMs: Math.round(performance.now() - startedAt),
      ...(spawnError !== undefined && { error: spawnError }),
    };
  }

  return { done, stop };
}

function settled(result: Omit<ExecResult, 'queueMs'>): RunningCommand {
  return { done: Promise.resolve(result), stop: () => undefined };
}

/** A result with no process behind it (refused before or without starting anything). */
export function emptyResult(outcome: ExecOutcome, startedAt: number, error?: string): Omit<ExecResult, 'queueMs'> {
  return {
    outcome,
    exitCode: null,
    signal: null,
    stages: [],
    stdout: '',
    stderr: '',
    stdoutBytes: 0,
    stderrBytes: 0,
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: Math.round(performance.now() - startedAt),
    ...(error !== undefined && { error }),
  };
}

function errorResult(error: string, startedAt: number): Omit<ExecResult, 'queueMs'> {
  return emptyResult('error', startedAt, error);
}

function validate(spec: ExecSpec): string | undefined {
  if (spec.stages.length === 0) return 'no command to run (empty pipeline)';
  if ([spec.stdin, spec.stdinFile, spec.input].filter((x) => x !== undefined).length > 1) return 'stdin, stdinFile and input are mutually exclusive';
  if (!Number.isFinite(spec.timeoutMs)) return `invalid timeout ${spec.timeoutMs}`;
  if (!Number.isInteger(spec.outputLimitBytes) || spec.outputLimitBytes < 0) return `invalid output limit ${spec.outputLimitBytes}`;
  return undefined;
}

/** Node reports a missing working directory as `spawn <file> ENOENT`, which blames the wrong thing. */
function describeSpawnError(err: Error, cwd: string): string {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
    try {
      if (!fs.statSync(cwd).isDirectory()) return `working directory ${cwd} is not a directory`;
    } catch {
      return `working directory ${cwd} does not exist`;
    }
  }
  return err.message;
}

/** A throwing progress/start callback must not take the executor down with it. */
function safeCall(fn: () => void): void {
  try {
    fn();
  } catch {
    // ignored on purpose
  }
}
