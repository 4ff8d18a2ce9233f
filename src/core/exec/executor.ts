import { emptyResult, startCommand, type RunningCommand } from './command';
import { MAX_QUEUED_COMMANDS } from '../limits';
import { ConcurrencyGate } from './gate';
import type { ExecResult, ExecSpec, Executor } from './types';

/**
 * The kill-safe executor: a FIFO concurrency gate in front of `startCommand`. Queue time is measured here and
 * is not part of the command's timeout (the timer starts when the processes do).
 */

export interface ExecutorOptions {
  readonly concurrency: number;
  /** Time between SIGTERM and SIGKILL when a command is stopped. */
  readonly killGraceMs?: number;
  /** Commands allowed to wait for a slot (default MAX_QUEUED_COMMANDS); one more is refused at once. */
  readonly maxQueued?: number;
}

export const DEFAULT_KILL_GRACE_MS = 2000;

export function createExecutor(options: ExecutorOptions): Executor {
  const gate = new ConcurrencyGate(options.concurrency);
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (!Number.isFinite(killGraceMs) || killGraceMs < 0) throw new RangeError(`killGraceMs must be >= 0, got ${killGraceMs}`);
  const maxQueued = options.maxQueued ?? MAX_QUEUED_COMMANDS;
  const running = new Map<RunningCommand, Promise<unknown>>();
  let shuttingDown = false;

  async function run(spec: ExecSpec): Promise<ExecResult> {
    const queuedAt = performance.now();
    if (!shuttingDown && gate.wouldWait && gate.queued >= maxQueued) {
      // A full queue refuses at once (clear error) instead of growing without bound; running calls go on.
      return { ...emptyResult('error', performance.now(), `The command queue is full (${maxQueued} commands are waiting for one of ${gate.active} running slots); nothing was started. Try again when some finish.`), durationMs: 0, queueMs: 0 };
    }
    const granted = shuttingDown ? false : await gate.acquire(spec.signal);
    const queueMs = Math.round(performance.now() - queuedAt);
    if (!granted) return canceled(queueMs, shuttingDown ? 'the executor is shutting down' : undefined);
    if (shuttingDown) {
      // Granted in the same tick shutdown began: do not start anything new.
      gate.release();
      return canceled(queueMs, 'the executor is shutting down');
    }
    const command = startCommand(spec, { killGraceMs });
    running.set(command, command.done);
    try {
      const result = await command.done;
      return { ...result, queueMs };
    } finally {
      running.delete(command);
      gate.release();
    }
  }

  async function shutdown(): Promise<void> {
    shuttingDown = true;
    gate.cancelAll();
    const pending = [...running.entries()];
    for (const [command] of pending) command.stop('canceled');
    await Promise.all(pending.map(([, done]) => done));
  }

  return {
    run,
    shutdown,
    get active() {
      return gate.active;
    },
    get queued() {
      return gate.queued;
    },
    setConcurrency(n: number) {
      gate.setLimit(n);
    },
  };
}

function canceled(queueMs: number, error?: string): ExecResult {
  return { ...emptyResult('canceled', performance.now(), error), durationMs: 0, queueMs };
}
