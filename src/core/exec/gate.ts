/**
 * A FIFO concurrency gate. `acquire` resolves true when a slot is free, or false when the caller's signal
 * aborts (or `cancelAll` runs) while it is still waiting — a queued call leaves the queue at once.
 */
interface Waiter {
  readonly grant: (granted: boolean) => void;
}

export class ConcurrencyGate {
  private readonly waiting: Waiter[] = [];
  private running = 0;

  constructor(private limit: number) {
    ConcurrencyGate.check(limit);
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** True when `acquire` would have to wait (every slot is taken, or others are already waiting). */
  get wouldWait(): boolean {
    return this.running >= this.limit || this.waiting.length > 0;
  }

  /** Takes effect for calls that start from now on; running ones are never interrupted. */
  setLimit(limit: number): void {
    ConcurrencyGate.check(limit);
    this.limit = limit;
    this.pump();
  }

  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.running < this.limit && this.waiting.length === 0) {
      this.running++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      };
      const waiter: Waiter = {
        grant: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(granted);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(): void {
    this.running = Math.max(0, this.running - 1);
    this.pump();
  }

  /** Refuses every waiting call (shutdown). */
  cancelAll(): void {
    for (const waiter of this.waiting.splice(0)) waiter.grant(false);
  }

  private pump(): void {
    while (this.running < this.limit && this.waiting.length > 0) {
      this.running++;
      this.waiting.shift()!.grant(true);
    }
  }

  private static check(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a whole number >= 1, got ${limit}`);
  }
}
