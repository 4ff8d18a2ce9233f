import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import type { HeldDirectory, HeldFile } from './launch/contract';
import { RUN_MARKER_NAME } from './processes';
import { buildResult, reap } from './reap';
import { holdWorkingDirectory, openStdinFile, openStdoutFile } from './redirects';
import { CallStages } from './stages';
import { safeCall, Supervisor, type StopReason } from './supervise';
import type { ExecOutcome, ExecResult, ExecSpec } from './types';

/**
 * One started command (a pipeline of stages): launch (its launcher starts the stages in the checked folder with
 * the checked redirects), supervise (supervise.ts: timeout, abort, limits), reap (reap.ts: the launcher ends what
 * is left, the result). Its `done` never rejects: every failure becomes an outcome.
 */

export type { StopReason } from './supervise';

export interface RunningCommand {
  readonly done: Promise<Omit<ExecResult, 'queueMs'>>;
  /** Kill the whole tree; the first reason given is the one reported. */
  stop(reason: StopReason): void;
}

export interface CommandOptions {
  readonly killGraceMs: number;
}

export function startCommand(spec: ExecSpec, opts: CommandOptions): RunningCommand {
  const startedAt = performance.now();
  const invalid = validate(spec);
  if (invalid !== undefined) return settled(emptyResult('error', startedAt, invalid));
  if (spec.signal?.aborted) return settled(emptyResult('canceled', startedAt));
  let held: Held;
  try {
    held = hold(spec);
  } catch (e) {
    return settled(emptyResult('error', startedAt, (e as Error).message));
  }
  // 24 hex digits, 90 of their bits random (a v4 UUID fixes 6): the marker every process of the call inherits.
  const runId = randomUUID().replace(/-/g, '').slice(0, 24);
  const sup: Supervisor = new Supervisor(spec, (stream) => call.closeOutput(stream));
  const call = new CallStages(sup, {
    ...(spec.stdin !== undefined && { text: spec.stdin }), ...(held.stdinFd !== undefined && { fileFd: held.stdinFd }), ...(spec.input && { stream: spec.input }),
  });

  const launched = (async () => {
    try {
      call.adopt(await spec.launcher.start({
        stages: spec.stages,
        env: { ...spec.env, [RUN_MARKER_NAME]: runId },
        cwd: held.cwd,
        stdin: held.stdinFd !== undefined || spec.stdin !== undefined || spec.input !== undefined ? 'pipe' : 'ignore',
        stdout: held.stdout ?? 'pipe',
      }));
    } catch (e) {
      sup.fail((e as Error).message);
    }
    if (sup.error === undefined && spec.onStart) safeCall(spec.onStart);
    if (call.list.every((s) => s.exited)) sup.exited();
  })();
  sup.begin();

  const done = (async (): Promise<Omit<ExecResult, 'queueMs'>> => {
    await launched; // a stop asked for meanwhile is acted on once there are processes to stop
    await sup.attention;
    sup.finish();
    try {
      await reap(spec.launcher, call, runId, sup, opts.killGraceMs);
      return buildResult(call, sup);
    } finally {
      held.release(call.pumped);
    }
  })();
  return { done, stop: (reason) => sup.stop(reason) };
}

/** What the call holds open from its check until it ends: the working directory and the redirect files. */
interface Held {
  readonly cwd: HeldDirectory;
  readonly stdinFd?: number;
  readonly stdout?: HeldFile;
  /** `pumped`: the input file's descriptor went to its pump, which closes it. */
  release(pumped: boolean): void;
}

function hold(spec: ExecSpec): Held {
  const cwd = holdWorkingDirectory(spec.cwd, spec.pathGuard);
  let stdinFd: number | undefined;
  try {
    if (spec.stdinFile !== undefined) stdinFd = openStdinFile(spec.stdinFile, spec.pathGuard);
    const out = spec.stdoutFile;
    const stdout = out && { fd: openStdoutFile(out.path, out.append, spec.pathGuard), path: out.path, append: out.append };
    return {
      cwd,
      ...(stdinFd !== undefined && { stdinFd }),
      ...(stdout && { stdout }),
      release: (pumped) => {
        if (stdinFd !== undefined && !pumped) fs.closeSync(stdinFd);
        if (stdout) fs.closeSync(stdout.fd);
        cwd.release();
      },
    };
  } catch (e) {
    if (stdinFd !== undefined) fs.closeSync(stdinFd);
    cwd.release();
    throw e;
  }
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

function validate(spec: ExecSpec): string | undefined {
  if (spec.stages.length === 0) return 'no command to run (empty pipeline)';
  if ([spec.stdin, spec.stdinFile, spec.input].filter((x) => x !== undefined).length > 1) return 'stdin, stdinFile and input are mutually exclusive';
  if (!Number.isFinite(spec.timeoutMs)) return `invalid timeout ${spec.timeoutMs}`;
  if (!Number.isInteger(spec.outputLimitBytes) || spec.outputLimitBytes < 0) return `invalid output limit ${spec.outputLimitBytes}`;
  return undefined;
}
