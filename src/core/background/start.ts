import type { CommandRequest } from '../commands/decide';
import type { ExecResult, ExecSpec, Executor } from '../exec/types';
import type { Policy } from '../policy';
import type { NetworkRecord } from '../network/record';
import type { BackgroundRun, RunEnd } from './run';
import type { BackgroundRuns } from './runs';

/**
 * What the command pipeline needs to start a run in the background: the folder's runs, the executor they run on
 * (its own, so a dev server never holds one of the foreground commands' concurrency slots; shut down with the
 * folder like the other), and the session that starts it.
 */
export interface BackgroundDeps {
  readonly runs: BackgroundRuns;
  readonly executor: Executor;
  /** This MCP session's key: its runs are its own, and end with it. */
  readonly session: string;
}

/** A background run's lifetime: the call's timeout when it names one, capped by the setting; the setting otherwise. */
export function lifetimeMs(request: Pick<CommandRequest, 'timeoutSeconds'>, policy: Pick<Policy, 'backgroundMaxSeconds'>): number {
  const asked = request.timeoutSeconds;
  return Math.min(asked !== undefined && Number.isFinite(asked) && asked > 0 ? asked : policy.backgroundMaxSeconds, policy.backgroundMaxSeconds) * 1000;
}

/**
 * What the executor is given for a run instead of a call's own settings: its lifetime as the timeout, its signal,
 * its log as the output (the executor keeps nothing: the log is bounded by its own setting), its open input.
 */
export function runSpec(run: BackgroundRun, lifetime: number, onStart: () => void): Partial<ExecSpec> {
  return {
    timeoutMs: lifetime,
    signal: run.signal,
    outputLimitBytes: 0,
    outputLimitAction: 'keep',
    onOutput: (_stream, chunk) => run.append(chunk),
    onStart,
    ...(run.input && { input: run.input }),
  };
}

/**
 * Waits for the run's processes to start. Undefined once they did (the run goes on, and `finish` is told its end);
 * the result when the call ended before anything started (a refusal found late, a program that could not start).
 */
export async function whenStarted<R extends { readonly outcome: string }>(
  task: Promise<R>, started: Promise<void>, finish: (r: R | undefined, e?: unknown) => void,
): Promise<R | undefined> {
  const first = await Promise.race([started.then(() => undefined), task]);
  if (first !== undefined) return first;
  task.then((r) => finish(r), (e: unknown) => finish(undefined, e));
  return undefined;
}

/** The fields of a run's end from the command's result (or a failure of the pipeline after the start). */
export function endOf(
  r: (Pick<ExecResult, 'outcome' | 'exitCode' | 'signal' | 'durationMs' | 'error'> & { readonly network?: NetworkRecord }) | undefined, e?: unknown, isolationNote?: string,
): Omit<RunEnd, 'stoppedBy'> {
  if (!r) return { outcome: 'error', exitCode: null, signal: null, durationMs: 0, error: (e as Error)?.message ?? String(e) };
  return {
    outcome: r.outcome, exitCode: r.exitCode, signal: r.signal, durationMs: r.durationMs, ...(r.error && { error: r.error }),
    ...(r.network && { network: r.network }), ...(isolationNote && { isolationNote }),
  };
}
