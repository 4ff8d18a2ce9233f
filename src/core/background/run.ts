import { PassThrough } from 'node:stream';
import { ToolError } from '../errors';
import type { CommandRequest } from '../commands/decide';
import type { ExecOutcome } from '../exec/types';
import type { PortPublisher } from '../network/ports';
import type { NetworkRecord } from '../network/record';
import { OutputLog } from './log';

/**
 * One background run: a command started through the guarded pipeline that outlives the call that started it,
 * never its session, its folder or the server (runs.ts ends it then). It holds its output log, the reader's
 * position in it, its input when it was started with input open, and once it ended, how.
 */

/** Who or what ended a run before it ended by itself. */
export type StoppedBy = 'agent' | 'person' | 'lifetime' | 'session' | 'server';

export interface RunEnd {
  readonly outcome: ExecOutcome;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly stoppedBy?: StoppedBy;
  /** Why it could not start or failed (outcome error). */
  readonly error?: string;
  /** The hosts it tried through its egress proxy (network: domains, fetch or deny in a sandbox). */
  readonly network?: NetworkRecord;
  /** What the sandbox had to undo after it (a new root .git), for the audit. */
  readonly isolationNote?: string;
}

/** What a run is, as the panel and the agent's list see it (no output beyond the last lines). */
export interface RunInfo {
  readonly id: string;
  /** The argv of each stage, literally. */
  readonly stages: readonly (readonly string[])[];
  /** Working directory relative to the workspace. */
  readonly cwd: string;
  readonly isolation: string;
  /** Epoch ms. */
  readonly startedAt: number;
  readonly running: boolean;
  readonly elapsedMs: number;
  /** Bytes written so far (stdout and stderr together), and how many of them the agent has read. */
  readonly outputBytes: number;
  readonly readBytes: number;
  /** Its input is open: the agent may send more (shell_background input). */
  readonly inputOpen: boolean;
  /** Ports a later command of the folder reaches it on (sandboxed runs: through the folder's port bridge). */
  readonly ports?: readonly number[];
  readonly end?: RunEnd;
  readonly lastLines: readonly string[];
}

export interface RunIdentity {
  readonly id: string;
  /** The session that started it: only that session sees it. */
  readonly session: string;
  /** The request id of the start: the audit events of its start and its end share it. */
  readonly requestId: string;
  readonly tool: string;
  /** What started it: checked again, under the policy of the moment, for each input sent (control.ts). */
  readonly request: CommandRequest;
  readonly stages: readonly (readonly string[])[];
  readonly cwd: string;
  readonly isolation: string;
}

/** Input one send may carry, and input a run may hold unread by its command. */
export const MAX_INPUT_BYTES = 64 * 1024;
const MAX_PENDING_INPUT = 256 * 1024;

export type WaitResult = 'found' | 'ended' | 'timeout' | 'canceled';

export class BackgroundRun {
  readonly log: OutputLog;
  /** The next byte the agent has not read (reads without an offset start here). */
  cursor = 0;
  readonly startedAt = Date.now();
  private readonly startedMs = performance.now();
  private readonly abort = new AbortController();
  readonly input: PassThrough | undefined;
  private ended: RunEnd | undefined;
  private stopper: StoppedBy | undefined;
  /** The agent was told how it ended (a read or a stop after its end): it may be collected once all is read. */
  endReported = false;
  /** The ports it listened on when last asked (a sandboxed run, through its publisher). */
  ports: readonly number[] = [];
  /** A sandboxed run's end of the folder's port bridge (network/ports.ts): closed when it ends. */
  publisher: PortPublisher | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly endWaiters: Array<() => void> = [];

  constructor(
    readonly identity: RunIdentity,
    logBytes: number,
    openInput: boolean,
    private readonly changed: (run: BackgroundRun) => void,
    /** Told at once when it ended (before anything can collect it). */
    private readonly onEnd: (run: BackgroundRun) => void = () => undefined,
  ) {
    this.log = new OutputLog(logBytes);
    this.input = openInput ? new PassThrough() : undefined;
  }

  get id(): string {
    return this.identity.id;
  }

  /** Aborts when the run is to stop: the executor ends its whole process tree. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get end(): RunEnd | undefined {
    return this.ended;
  }

  get running(): boolean {
    return this.ended === undefined;
  }

  get stoppedBy(): StoppedBy | undefined {
    return this.stopper;
  }

  /** Output as the executor reads it. */
  append(chunk: Buffer): void {
    this.log.append(chunk);
    this.wake();
    this.changed(this);
  }

  /** Asks the run to end (its whole process tree). False when it already ended. The first asker is the one named. */
  stop(by: StoppedBy): boolean {
    if (this.ended) return false;
    this.stopper ??= by;
    this.abort.abort();
    return true;
  }

  /** The executor reported the end: every process of it is gone. */
  finish(end: Omit<RunEnd, 'stoppedBy'>): void {
    if (this.ended) return;
    // A lifetime that ran out is the executor's timeout; any other stop is ours and was named when asked.
    const by = this.stopper ?? (end.outcome === 'timeout' ? 'lifetime' : undefined);
    this.ended = { ...end, ...(by && { stoppedBy: by }) };
    this.input?.destroy();
    this.onEnd(this);
    this.wake();
    for (const w of this.endWaiters.splice(0)) w();
    this.changed(this);
  }

  /** Resolves once the run ended. */
  whenEnded(): Promise<void> {
    return this.ended ? Promise.resolve() : new Promise((resolve) => this.endWaiters.push(resolve));
  }

  /**
   * Waits until `text` appears in the output the agent has not read, the run ends, `ms` pass or `signal` aborts.
   * A plain text, never a pattern: a pattern from the agent run over megabytes could hold the server's one thread.
   */
  async waitFor(text: string | undefined, ms: number, signal?: AbortSignal): Promise<WaitResult> {
    let searched = this.cursor;
    const found = (): boolean => {
      if (text === undefined || text === '') return false;
      const needle = Buffer.from(text, 'utf8');
      // Look again only at what arrived since, with an overlap so a text split between two chunks is found.
      const from = Math.max(this.log.start, this.cursor, searched - needle.length + 1);
      const hay = this.log.read(from, this.log.total - from);
      searched = this.log.total;
      return hay.includes(needle);
    };
    if (found()) return 'found';
    if (this.ended) return 'ended';
    if (signal?.aborted) return 'canceled';
    return new Promise<WaitResult>((resolve) => {
      const done = (r: WaitResult) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const check = () => {
        if (found()) done('found');
        else if (this.ended) done('ended');
      };
      const onAbort = () => done('canceled');
      const timer = setTimeout(() => done('timeout'), Math.max(0, ms));
      this.waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Sends input to the command (started with its input open); `close` ends its stdin afterwards. */
  send(text: string, close: boolean): void {
    const input = this.input;
    if (!input) throw new ToolError('BAD_REQUEST', `${this.id} was started without open input; start it with "openInput": true to send input later.`, 'background.no-input');
    if (this.ended) throw new ToolError('BAD_REQUEST', `${this.id} has ended; its input is closed.`, 'background.ended');
    if (input.writableEnded) throw new ToolError('BAD_REQUEST', `The input of ${this.id} was closed.`, 'background.input-closed');
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > MAX_INPUT_BYTES) throw new ToolError('BAD_REQUEST', `One input may carry at most ${MAX_INPUT_BYTES} bytes (got ${bytes}).`, 'background.input-size');
    if (input.writableLength + input.readableLength + bytes > MAX_PENDING_INPUT) {
      throw new ToolError('LIMIT_REACHED', `${this.id} has not read the ${input.writableLength + input.readableLength} bytes of input it was sent; nothing more is taken until it does.`, 'background.input-pending');
    }
    if (text !== '') input.write(text);
    if (close) input.end();
    this.changed(this);
  }

  info(): RunInfo {
    const i = this.identity;
    return {
      id: i.id, stages: i.stages, cwd: i.cwd, isolation: i.isolation, startedAt: this.startedAt, running: this.running,
      elapsedMs: Math.round((this.ended ? this.ended.durationMs : performance.now() - this.startedMs)),
      outputBytes: this.log.total, readBytes: this.cursor,
      inputOpen: this.input !== undefined && !this.input.writableEnded && !this.ended,
      ...(this.ports.length && { ports: this.ports }),
      ...(this.ended && { end: this.ended }),
      lastLines: this.log.lastLines(5),
    };
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
