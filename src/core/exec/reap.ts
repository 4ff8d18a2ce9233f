import type { CallProcesses, Launcher } from './launch/contract';
import type { CallStages } from './stages';
import type { Supervisor } from './supervise';
import type { ExecOutcome, ExecResult, StageStatus } from './types';

/**
 * Winding a call up once the supervisor says so: the launcher ends everything of it (or, after a normal exit, sweeps
 * what a weaker launcher may have left), the pipes are waited for, and the result is built.
 */

/** After a normal exit, how long stdio may stay open before we go looking for an escaped holder. */
const CLOSE_AFTER_EXIT_MS = 300;
/** After the final SIGKILL, how long we wait for the pipes to close before abandoning them. */
const CLOSE_AFTER_KILL_MS = 1000;

export async function reap(launcher: Launcher, stages: CallStages, runId: string, sup: Supervisor, graceMs: number): Promise<void> {
  const call: CallProcesses = { stages: stages.list.map((s) => s.child), runId };
  const stop = (grace: number) => launcher.stop(call, grace);
  // Nothing to stop when no process of the call ever started (its first stage could not start).
  if (sup.killing && stages.started) await stop(sup.error !== undefined ? 0 : graceMs);
  else if (!sup.killing) launcher.sweep(call);
  if (!(await stages.allClosed(sup.killing ? CLOSE_AFTER_KILL_MS : CLOSE_AFTER_EXIT_MS))) {
    // Someone outside the stages' groups (setsid) holds a pipe: the launcher finds and ends them.
    await stop(0);
    if (!(await stages.allClosed(CLOSE_AFTER_KILL_MS))) stages.abandon();
  }
}

export function buildResult(stages: CallStages, sup: Supervisor): Omit<ExecResult, 'queueMs'> {
  const statuses: StageStatus[] = stages.list.map((s) => ({ exitCode: s.exitCode, signal: s.signal }));
  const last = statuses[statuses.length - 1];
  const exitCode = last?.exitCode ?? null;
  let outcome: ExecOutcome;
  if (sup.error !== undefined) outcome = 'error';
  else if (sup.stopReason !== undefined) outcome = sup.stopReason;
  else outcome = exitCode === 0 ? 'ok' : 'failed';
  return {
    outcome,
    exitCode,
    signal: last?.signal ?? null,
    stages: statuses,
    stdout: sup.stdout.text(),
    stderr: sup.stderr.text(),
    stdoutBytes: sup.stdout.total,
    stderrBytes: sup.stderr.total,
    stdoutTruncated: sup.stdout.truncated,
    stderrTruncated: sup.stderr.truncated,
    durationMs: Math.round(performance.now() - sup.startedAt),
    ...(sup.error !== undefined && { error: sup.error }),
  };
}
