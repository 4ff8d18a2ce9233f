/** Small statistics helpers: percentiles over raw samples (nearest-rank), means, rates. */

export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/** Nearest-rank percentile (no interpolation: every reported value is one that was really measured). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.length ? sum / sorted.length : NaN,
    min: sorted[0] ?? NaN,
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

export const median = (xs: readonly number[]): number => summarize(xs).p50;

/** Milliseconds with a precision that suits the magnitude. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return 'n/a';
  return x >= 100 ? `${x.toFixed(0)} ms` : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`;
}

/** A difference with its sign, to two decimals ("+0.57", "-0.10"). */
export const signed = (x: number): string => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;

export function ratio(x: number, base: number): string {
  return Number.isFinite(x) && Number.isFinite(base) && base > 0 ? `${(x / base).toFixed(2)}x` : 'n/a';
}

export function mb(kb: number): string {
  return `${(kb / 1024).toFixed(1)} MB`;
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Runs `fn` `n` times one after another and returns each call's wall time in ms. */
export async function timeSequential(n: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** Runs `total` calls with `inFlight` of them outstanding at any time; returns calls per second. */
export async function timeParallel(total: number, inFlight: number, fn: (i: number, lane: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, lane) => {
      while (next < total) await fn(next++, lane);
    }),
  );
  return total / ((performance.now() - t) / 1000);
}
