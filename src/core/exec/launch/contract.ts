import type { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { SandboxContext } from '../../isolation/types';

/**
 * The launcher contract: the one way a process is started for an agent's call, with ONE implementation per
 * platform (linux.ts, darwin.ts, windows.ts; index.ts picks). A launcher
 *  - prepares a stage: the argv that runs the judged program inside the platform's sandbox and containment (pure,
 *    so the argv is tested as data, and a context it cannot confine is refused before anything starts);
 *  - starts every stage of a call with its environment, the checked working directory (held open since the
 *    check), stdin / stdout (a pipe, or a checked output file) and stderr pipes;
 *  - reports each stage's exit code or signal ('exit', then 'close' once its pipes closed);
 *  - ends everything of the call (`stop`), and after a normal exit whatever a weaker launcher may have left (`sweep`).
 * The supervisor (command.ts) owns timers, limits and the result; it never starts or signals a process itself.
 *
 * What every launcher must guarantee, or say it does not (`limitation`), is the conformance suite
 * (test/conformance): nothing of a call outlives it or a SIGKILL of the server; the checked working directory is the
 * one used; exit status and signals come back; and a command cannot see, signal, trace, read or write the server or
 * any helper process.
 */

/** The program of one stage, judged by the command rules: what the launcher wraps. */
export interface Program {
  readonly file: string;
  readonly args: readonly string[];
  /** argv[0] the program sees, when it differs from `file` (a launcher that cannot set it runs it under `file`). */
  readonly argv0?: string;
}

/** A stage as the launcher prepared it: the argv to start, the command at its end. */
export interface PreparedStage extends Program {
  /** Which of its ways the launcher prepared it for: a call starts that way only, never some of it another way. */
  readonly launcher?: string;
  /** The judged program at the end of the argv (start errors name it, as Node's spawn would). */
  readonly program?: Program;
}

/** The working directory of a call, held open from the check to the start (src/core/exec/redirects.ts). */
export interface HeldDirectory {
  /** Its real path, as checked. */
  readonly real: string;
  /** A path that names exactly the held folder (`/proc/self/fd/N` where /proc exists; else the real path). */
  readonly path: string;
  /** The held descriptor (O_PATH on Linux). */
  readonly fd: number | undefined;
}

/** A checked output file, held open: the last stage's stdout. */
export interface HeldFile {
  readonly fd: number;
  readonly path: string;
  readonly append: boolean;
}

/** Everything of a call a launcher starts. */
export interface LaunchCall {
  readonly stages: readonly PreparedStage[];
  /** The complete environment of every stage (the run marker included); nothing of the server's is added. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: HeldDirectory;
  /** The first stage's stdin: a pipe the supervisor writes (text, or a file pumped through it), or nothing. */
  readonly stdin: 'pipe' | 'ignore';
  /** The last stage's stdout: a pipe the supervisor reads, or a checked output file. */
  readonly stdout: 'pipe' | HeldFile;
}

/**
 * A started stage: the part of Node's ChildProcess the supervisor uses (a ChildProcess is one). Events: 'exit'
 * (code, signal) when the stage ended, 'close' once its pipes closed too, 'error' when it could not start (before
 * any 'exit'; the words of Node's spawn errors, `spawn <file> ENOENT`) or its launcher failed while it ran.
 */
export interface LaunchedStage extends EventEmitter {
  /** Its process (and process group) on this host; undefined when it did not start. */
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** Set once it exited by itself (as Node's ChildProcess has them); both null while it runs. */
  readonly exitCode: number | null;
  readonly signalCode: string | null;
}

/** What `stop` and `sweep` act on: the stages of one call and its run marker (GUARDED_SHELL_RUN). */
export interface CallProcesses {
  readonly stages: readonly LaunchedStage[];
  readonly runId: string;
}

export interface Launcher {
  /** Its name in status lines and the docs: 'bwrap', 'namespaces', 'fork-server', 'plain', 'seatbelt', 'windows'. */
  readonly name: string;
  /** True when nothing of a call can outlive it or the server; false is said with `limitation`. */
  readonly contained: boolean;
  /** What this launcher does not guarantee here, in words a person can act on. */
  readonly limitation?: string;
  /**
   * The stage to start for `program`: inside the sandbox `sandbox` describes, or (undefined) contained without one.
   * Pure apart from looking at the paths the sandbox names; throws a ToolError when the context cannot be confined.
   */
  prepare(program: Program, sandbox?: SandboxContext): PreparedStage;
  /**
   * Starts every stage of the call, stage i's stdout feeding stage i+1's stdin. Resolves with the stages that
   * started (a stage that could not start emits 'error'); rejects when nothing was started.
   */
  start(call: LaunchCall): Promise<LaunchedStage[]>;
  /**
   * Ends every process of the call: SIGTERM (or what the platform has), at most `graceMs` for it to act, then
   * SIGKILL. Resolves once nothing of the call is left.
   */
  stop(call: CallProcesses, graceMs: number): Promise<void>;
  /** After every stage exited by itself: ends what may be left of the call (nothing, where a namespace took it). */
  sweep(call: CallProcesses): void;
}
