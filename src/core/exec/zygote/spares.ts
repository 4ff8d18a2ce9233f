import * as fs from 'node:fs';
import type { PipeReader } from './pipeReader';

/**
 * A spare (zygote.pl): its pid on the host (its process group), and the server ends of its pipes: the control
 * pipe's as a bare descriptor (written once, with the order), the command's output and errors as readers that
 * hold bare descriptors until the command ends or runs on.
 */
export interface Spare {
  readonly sid: string;
  readonly pid: number;
  readonly control: number;
  readonly stdout: PipeReader;
  readonly stderr: PipeReader;
}

/**
 * How many spares the zygote keeps forked ahead. Two, because a spare's fork takes about as long as a client's
 * turn between two calls (~0.8 ms here): with one, a client that calls again at once finds it still being forked;
 * with two, one is always ready while the other is made, and the refill can wait until the call's answer is out
 * (a fork beside the call's way back competes with it for the CPUs). Each costs ~1 MB of PSS and three pipes.
 */
export const SPARES = 2;

/**
 * The bookkeeping of the zygote's spares, apart from any process: which are ready, how many are being forked,
 * which calls wait for one, and when to ask for more. `ask(n)` sends n requests for a spare ("N") to the zygote.
 * A call waits only for a spare already being forked (one call per such spare): a request to the zygote would
 * queue behind that fork and then fork again, two forks on the call's way instead of none.
 */
export class SpareSupply<Waiter> {
  private readonly ready: Spare[] = [];
  private coming = 0;
  private readonly waiting: Waiter[] = [];
  private lastReplaced = -Infinity;
  private replaceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ask: (n: number) => void,
    private readonly target = SPARES,
  ) {}

  /** The ready spares' pids on the host (for tests and diagnostics). */
  get pids(): number[] {
    return this.ready.map((s) => s.pid);
  }

  /** Calls are waiting for a spare being forked (the server's event loop must stay alive for them). */
  get busy(): boolean {
    return this.waiting.length > 0;
  }

  /** zygote.pl forks its first spare unasked, right after READY. */
  started(): void {
    this.coming = 1;
  }

  /** A ready spare for a call, if there is one. */
  take(): Spare | undefined {
    return this.ready.shift();
  }

  /** Queues `w` for a spare being forked; false when none is coming for it (it goes the zygote's own way). */
  wait(w: Waiter): boolean {
    if (this.waiting.length >= this.coming) return false;
    this.waiting.push(w);
    return true;
  }

  /** Asks for as many spares as are missing (after a call on one, off its way back). */
  topUp(): void {
    const missing = this.target - this.ready.length - this.coming;
    if (missing <= 0) return;
    this.coming += missing;
    this.ask(missing);
  }

  /** "P": a spare is ready. Returns the call that waited longest for it, which takes it; else it is kept. */
  arrived(spare: Spare): Waiter | undefined {
    this.coming = Math.max(0, this.coming - 1);
    const w = this.waiting.shift();
    if (w === undefined) this.ready.push(spare);
    return w;
  }

  /**
   * A spare asked for will not come (its fork failed, or its ends could not be opened): another is asked for (see
   * `replace`); returns the calls waiting beyond the spares still coming, which go the zygote's own way.
   */
  failed(): Waiter[] {
    this.coming = Math.max(0, this.coming - 1);
    const left = this.waiting.splice(this.coming);
    this.replace();
    return left;
  }

  /**
   * An idle spare ended before any call took it (killed from outside): it is forgotten and its ends here closed,
   * and another is asked for (see `replace`). False when `sid` is not an idle spare.
   */
  lost(sid: string): boolean {
    const i = this.ready.findIndex((s) => s.sid === sid);
    if (i < 0) return false;
    closeEnds(this.ready.splice(i, 1)[0]!);
    this.replace();
    return true;
  }

  /**
   * Asks again for a spare that failed or was lost, but not more than once a second (spares that cannot live must
   * not turn into a loop of forks): within the second, once it is over. Never not at all: spares are otherwise
   * topped up only after a call on one, so a failure left alone would leave the server without spares for good.
   */
  private replace(): void {
    if (this.replaceTimer) return;
    const wait = this.lastReplaced + 1000 - Date.now();
    const go = (): void => {
      this.replaceTimer = undefined;
      this.lastReplaced = Date.now();
      this.topUp();
    };
    if (wait <= 0) go();
    else this.replaceTimer = setTimeout(go, wait).unref();
  }

  /** The zygote is gone: every idle spare's ends are closed; returns the calls that were waiting. */
  clear(): Waiter[] {
    clearTimeout(this.replaceTimer);
    this.replaceTimer = undefined;
    for (const s of this.ready.splice(0)) closeEnds(s);
    this.coming = 0;
    return this.waiting.splice(0);
  }
}

function closeEnds(s: Spare): void {
  fs.closeSync(s.control);
  for (const e of [s.stdout, s.stderr]) e.destroy();
}
