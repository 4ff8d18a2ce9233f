import type { PathGuard } from '../paths/guard';
import type { OutputLimitAction } from './capture';
import type { Launcher, PreparedStage } from './launch/contract';

/** One program of a pipeline as its launcher prepared it (launch/contract.ts). Never a shell string. */
export type ExecStage = PreparedStage;

export interface ExecProgress {
  readonly elapsedMs: number;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
}

export interface ExecSpec {
  /** One or more stages; stage i's stdout feeds stage i+1's stdin through a real OS pipe. */
  readonly stages: readonly ExecStage[];
  /** Starts, contains and stops the stages (the one that prepared them). */
  readonly launcher: Launcher;
  /** Absolute working directory, already confined. */
  readonly cwd: string;
  /** The COMPLETE child environment (already minimal); nothing of the server's is added. */
  readonly env: Readonly<Record<string, string>>;
  /** Text or bytes written to the first stage's stdin, then closed. Mutually exclusive with stdinFile. */
  readonly stdin?: string | Uint8Array;
  /** Absolute path (already confined) opened for reading as the first stage's stdin. */
  readonly stdinFile?: string;
  /** Absolute path (already confined) that receives the last stage's stdout instead of the capture. */
  readonly stdoutFile?: { readonly path: string; readonly append: boolean };
  /**
   * Re-confines the redirect files when they are opened (root, hidden / read-only / protected paths). Without
   * it the walk starts at "/" with no lists (symbolic links are still refused on every component).
   */
  readonly pathGuard?: PathGuard;
  readonly timeoutMs: number;
  /** Captured bytes per stream; what happens past it is `outputLimitAction`. */
  readonly outputLimitBytes: number;
  /**
   * `keep`: the command runs on and the first and last parts are kept; `kill` (when absent, this layer's
   * original behaviour): the command is stopped and the kept prefix returned. The policy's default is `keep`.
   */
  readonly outputLimitAction?: OutputLimitAction;
  /** Abort = client cancellation: the whole process tree is killed. */
  readonly signal?: AbortSignal;
  /** Called about once a second while the command runs. */
  readonly onProgress?: (p: ExecProgress) => void;
  /** Called once when the command leaves the queue and its processes are started. */
  readonly onStart?: () => void;
}

export type ExecOutcome = 'ok' | 'failed' | 'timeout' | 'canceled' | 'output_limit' | 'error';

export interface StageStatus {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

export interface ExecResult {
  readonly outcome: ExecOutcome;
  /** Exit code of the last stage (as a shell reports a pipeline), null when killed by a signal. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stages: readonly StageStatus[];
  readonly stdout: string;
  readonly stderr: string;
  /** Bytes the command wrote to each captured stream (may exceed what was kept). */
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly durationMs: number;
  /** Time spent waiting for a concurrency slot; not counted against the timeout. */
  readonly queueMs: number;
  /** For outcome 'error': why the process could not run (e.g. `spawn ENOENT`). */
  readonly error?: string;
}

export interface Executor {
  run(spec: ExecSpec): Promise<ExecResult>;
  /** Kills every running command's process tree and rejects queued ones; resolves when all are reaped. */
  shutdown(): Promise<void>;
  readonly active: number;
  readonly queued: number;
  /** Changes the concurrency limit for calls that start from now on. */
  setConcurrency(n: number): void;
}
