import { BoundedCapture } from './capture';
import type { ExecSpec } from './types';

/**
 * Supervising a running call: its timeout, the caller's abort, the output limits and the progress reports. It
 * decides WHEN the call ends and why; it starts and signals nothing (the launcher does, reap.ts asks it to).
 */

export type StopReason = 'timeout' | 'canceled' | 'output_limit';

const PROGRESS_MS = 1000;
/** setTimeout fires at once for delays above 2^31-1 ms; clamp so a huge timeout is not a zero one. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Supervisor {
  readonly startedAt = performance.now();
  readonly stdout: BoundedCapture;
  readonly stderr: BoundedCapture;
  stopReason: StopReason | undefined;
  /** Why the call could not start (or its launcher failed): it ends as an error. */
  error: string | undefined;
  /** Resolved once the call needs attention: every stage exited, a stop was asked for, or a start failed. */
  readonly attention: Promise<void>;
  private wake: () => void = () => undefined;
  private finishing = false;
  private timer: NodeJS.Timeout | undefined;
  private progress: NodeJS.Timeout | undefined;
  private readonly onAbort = (): void => this.stop('canceled');

  /** `onOverflow`: the stream passed its limit (action `kill`): close our read end at once. */
  constructor(private readonly spec: ExecSpec, onOverflow: (stream: 'stdout' | 'stderr') => void) {
    this.attention = new Promise<void>((resolve) => (this.wake = resolve));
    const cap = (stream: 'stdout' | 'stderr') =>
      new BoundedCapture(spec.outputLimitBytes, () => {
        onOverflow(stream);
        this.stop('output_limit');
      }, spec.outputLimitAction);
    this.stdout = cap('stdout');
    this.stderr = cap('stderr');
  }

  /** The processes started: the timeout runs from now, and so do the progress reports. */
  begin(): void {
    this.timer = setTimeout(() => this.stop('timeout'), Math.min(Math.max(0, this.spec.timeoutMs), MAX_TIMER_MS));
    this.spec.signal?.addEventListener('abort', this.onAbort, { once: true });
    const report = this.spec.onProgress;
    if (report) {
      this.progress = setInterval(() => {
        safeCall(() => report({ elapsedMs: Math.round(performance.now() - this.startedAt), stdoutBytes: this.stdout.total, stderrBytes: this.stderr.total }));
      }, PROGRESS_MS);
    }
  }

  /** The first reason given is the one reported; once everything exited, only a late output overflow counts. */
  stop(reason: StopReason): void {
    if (this.stopReason !== undefined || (this.finishing && reason !== 'output_limit')) return;
    this.stopReason = reason;
    this.wake();
  }

  fail(error: string): void {
    this.error ??= error;
    this.wake();
  }

  /** Every stage exited. */
  exited(): void {
    this.wake();
  }

  /** The call is being wound up: no timer or abort may stop it any more. */
  finish(): void {
    this.finishing = true;
    clearTimeout(this.timer);
    if (this.progress) clearInterval(this.progress);
    this.spec.signal?.removeEventListener('abort', this.onAbort);
  }

  get killing(): boolean {
    return this.stopReason !== undefined || this.error !== undefined;
  }
}

/** A throwing progress/start callback must not take the executor down with it. */
export function safeCall(fn: () => void): void {
  try {
    fn();
  } catch {
    // ignored on purpose
  }
}
