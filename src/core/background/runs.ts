import type { AuditLog } from '../audit';
import { auditedAttempts } from '../network/record';
import { ToolError } from '../errors';
import type { Policy } from '../policy';
import { BackgroundRun, type RunIdentity, type RunInfo, type StoppedBy } from './run';

/**
 * Every background run of one folder (one server context), whichever session started it. It enforces the caps
 * (runs kept per folder and per session, bytes kept per run), ends a session's runs with the session and every
 * run with the folder or the server, and forgets a run once it is collected: ended, its end told to the agent and
 * all its output read — or pushed out by a newer run, or its session gone. Nothing of a run is kept after that.
 *
 * A run counts against the caps from the moment its start is reserved (after the approval, before anything is
 * started) until it is collected, so a flood of starts cannot pass a cap between the check and the start.
 */

export type Caps = Pick<Policy, 'backgroundMaxRuns' | 'backgroundMaxRunsPerSession' | 'backgroundOutputBytes'>;

/** A place for one run, taken before it starts; `release` gives it back when the start did not happen. */
export interface Reservation {
  readonly id: string;
  /** Makes the run (it then holds the place until it is collected). */
  open(identity: Omit<RunIdentity, 'id' | 'session'>, openInput: boolean): BackgroundRun;
  release(): void;
}

/** How many background commands are kept, in a folder and in a session. */
export interface RunCounts {
  readonly running: number;
  readonly kept: number;
}

export class BackgroundRuns {
  private readonly runs = new Map<string, BackgroundRun>();
  private readonly discarded = new WeakSet<BackgroundRun>();
  /** Reserved places not yet opened: id → session. */
  private readonly reserved = new Map<string, string>();
  private next = 1;
  private closed = false;
  private readonly listeners = new Set<() => void>();
  private changeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly audit?: AuditLog) {}

  /**
   * Takes a place for a new run of `session`, or throws LIMIT_REACHED naming the cap and the runs that hold it.
   * Ended runs the agent has not collected give their place up first, oldest first; running ones never do.
   */
  reserve(session: string, caps: Caps): Reservation {
    if (this.closed) throw new ToolError('LIMIT_REACHED', 'The server is stopping: no background command can start.', 'background.closed');
    this.checkRoom(session, caps, true);
    const id = `b${this.next++}`;
    this.reserved.set(id, session);
    return {
      id,
      open: (identity, openInput) => {
        if (!this.reserved.delete(id)) throw new ToolError('LIMIT_REACHED', `The place reserved for ${id} was given up.`, 'background.closed');
        const run = new BackgroundRun({ ...identity, id, session }, caps.backgroundOutputBytes, openInput, () => this.changed(), (r) => this.ended(r));
        this.runs.set(id, run);
        this.changed();
        return run;
      },
      release: () => {
        if (this.reserved.delete(id)) this.changed();
      },
    };
  }

  /**
   * Is there room for one more run of `session`? Throws LIMIT_REACHED when not; with `evict`, ended runs are
   * collected to make room. Also the plan's check, before anyone is asked to approve a start that cannot happen.
   */
  checkRoom(session: string, caps: Caps, evict = false): void {
    if (caps.backgroundMaxRuns === 0) {
      throw new ToolError('LIMIT_REACHED', 'Background commands are turned off here (background.maxRuns is 0).', 'background.off');
    }
    const fits = () => {
      const mine = this.kept(session);
      return this.keptAll() < caps.backgroundMaxRuns && mine < caps.backgroundMaxRunsPerSession;
    };
    while (!fits()) {
      const inSession = this.kept(session) >= caps.backgroundMaxRunsPerSession;
      // The oldest ended run that frees what is short: the session's own when the session is at its cap.
      const victim = [...this.runs.values()].find((r) => !r.running && (!inSession || r.identity.session === session));
      if (!victim || !evict) break;
      this.forget(victim);
    }
    if (fits()) return;
    const inSession = this.kept(session) >= caps.backgroundMaxRunsPerSession;
    const holders = [...this.runs.values()].filter((r) => r.running && (!inSession || r.identity.session === session)).map((r) => r.id);
    const cap = inSession ? `this session's ${caps.backgroundMaxRunsPerSession} (background.maxRunsPerSession)` : `this folder's ${caps.backgroundMaxRuns} (background.maxRuns)`;
    const mine = inSession ? ` Stop one with shell_background {"id":"…","stop":true}${holders.length ? ` (running: ${holders.join(', ')})` : ''}.` : ' Other sessions hold the rest.';
    throw new ToolError('LIMIT_REACHED', `No room for another background command: ${cap} are running or not yet read to their end.${mine}`, 'background.cap');
  }

  /** A run of `session` by id; another session's run is not found (nor named). */
  get(session: string, id: string): BackgroundRun | undefined {
    const run = this.runs.get(id);
    return run && run.identity.session === session ? run : undefined;
  }

  /** For the person (the panel's Stop): any run of the folder. */
  byId(id: string): BackgroundRun | undefined {
    return this.runs.get(id);
  }

  /** A session's runs, oldest first; every run of the folder without a session. */
  list(session?: string): BackgroundRun[] {
    return [...this.runs.values()].filter((r) => session === undefined || r.identity.session === session);
  }

  /** The panel's view: every run of the folder still running. */
  running(): RunInfo[] {
    return [...this.runs.values()].filter((r) => r.running).map((r) => r.info());
  }

  counts(): RunCounts {
    return { running: [...this.runs.values()].filter((r) => r.running).length, kept: this.keptAll() };
  }

  /**
   * Forgets a run whose end the agent was told and whose output it read to the end: its log's memory is freed.
   * Returns true when it was collected.
   */
  collectIfDone(run: BackgroundRun): boolean {
    if (run.running || !run.endReported || run.cursor < run.log.total) return false;
    this.forget(run);
    return true;
  }

  /** A run whose processes never started (the start's own result says why): forgotten, no end recorded. */
  discard(run: BackgroundRun): void {
    this.discarded.add(run);
    this.forget(run);
    run.finish({ outcome: 'error', exitCode: null, signal: null, durationMs: 0 });
  }

  /** The session ended: its runs are stopped and forgotten. Resolves once every one of them ended. */
  async endSession(session: string): Promise<void> {
    for (const [id, s] of this.reserved) if (s === session) this.reserved.delete(id);
    const mine = this.list(session);
    for (const r of mine) r.stop('session');
    await Promise.all(mine.map((r) => r.whenEnded()));
    for (const r of mine) this.forget(r);
  }

  /** The folder or the server stops: nothing new starts, every run is stopped. Resolves once all ended. */
  async close(by: StoppedBy = 'server'): Promise<void> {
    this.closed = true;
    this.reserved.clear();
    const all = [...this.runs.values()];
    for (const r of all) r.stop(by);
    await Promise.all(all.map((r) => r.whenEnded()));
    if (this.changeTimer) clearTimeout(this.changeTimer);
    this.changeTimer = undefined;
  }

  /** Called (at most about twice a second) when a run starts, ends or writes output. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private keptAll(): number {
    return this.runs.size + this.reserved.size;
  }

  private kept(session: string): number {
    let n = 0;
    for (const r of this.runs.values()) if (r.identity.session === session) n++;
    for (const s of this.reserved.values()) if (s === session) n++;
    return n;
  }

  private forget(run: BackgroundRun): void {
    if (this.runs.get(run.id) === run) this.runs.delete(run.id);
    this.changed();
  }

  /** Its end, in the audit under its start's request id: the history shows one line from start to exit. */
  private ended(run: BackgroundRun): void {
    if (this.discarded.has(run)) return; // it never started: the start's own result said why
    const end = run.end!;
    this.audit?.record({
      event: 'shell_execution_audit', tool: run.identity.tool, request_id: run.identity.requestId, background: run.id, background_state: 'ended',
      result_type: resultTypeOf(end.outcome), return_code: end.exitCode, signal: end.signal, duration: end.durationMs / 1000,
      output_bytes: run.log.total, ...(end.stoppedBy && { stopped_by: end.stoppedBy }), ...(end.error && { error_type: end.error }),
      ...(end.network && auditedAttempts(end.network)), ...(end.isolationNote && { isolation_note: end.isolationNote }),
    });
    this.changed();
  }

  private changed(): void {
    if (this.changeTimer || this.listeners.size === 0) return;
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      for (const l of this.listeners) l();
    }, 500);
    this.changeTimer.unref?.();
  }
}

function resultTypeOf(outcome: string) {
  switch (outcome) {
    case 'ok': return 'success' as const;
    case 'error': return 'process_error' as const;
    case 'failed': case 'timeout': case 'canceled': case 'output_limit': return outcome;
    default: return 'process_error' as const;
  }
}
