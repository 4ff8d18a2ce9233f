import { ToolError } from '../errors';
import { isDenialCode } from '../files/types';
import { bytesText, headAndTail } from '../output/budget';
import { pageAt } from '../output/page';
import type { ExecProgress } from '../exec/types';
import { problemOf, type Denial, type GuardedCall, type GuardedDeps } from '../pipeline';
import { checkRange, guardedRead } from '../output/read';
import type { BackgroundRun, RunInfo, WaitResult } from './run';
import type { BackgroundRuns } from './runs';
import { endText } from './text';

/**
 * Reading a background run's output (readOutput with a run's id), on the guarded pipeline as a read: allowed in
 * every mode, audited as `output_audit` (never with the bytes).
 *
 * Without an offset a read returns what the agent has not read yet and moves its position to the end, so reads
 * one after another give back every byte once, in order: nothing twice, nothing lost, except bytes the run wrote
 * faster than the log keeps them (background.outputBytes), which the read counts and says. A read longer than
 * the answer's budget shows its first and last part with the gap marked at its absolute offset, where
 * readOutput {id, offset} reads it while the log still holds it. `wait` seconds wait for `until` (a plain text) in
 * the new output, or for the end.
 */

export interface RunReadInput {
  readonly id: string;
  /** An absolute byte position in the run's output: one page from there (the position of new reads moves past it). */
  readonly offset?: number;
  readonly length?: number;
  /** Seconds to wait for `until` to appear in the new output, or (without `until`) for the run to end. */
  readonly wait?: number;
  readonly until?: string;
}

export interface RunReadResult {
  readonly outcome: 'ok' | 'denied' | 'failed';
  /** The output shown (new output, or the page). */
  readonly text?: string;
  /** Where it is, the run's state, what a wait found: the answer's second part. */
  readonly message: string;
  readonly run?: RunInfo;
  readonly denial?: Denial;
  readonly error?: { readonly code: string; readonly message: string; readonly rule?: string };
}

/** A line cut by dropped bytes is left out when the next one starts within this many bytes. */
const LINE_SNAP = 1024;
/** Longest text `until` may be. */
const MAX_UNTIL = 1000;

export function readRun(
  deps: GuardedDeps, call: GuardedCall & { readonly onProgress?: (p: ExecProgress) => void }, bg: { readonly runs: BackgroundRuns; readonly session: string }, input: RunReadInput,
): Promise<RunReadResult> {
  let audited: Record<string, unknown> = {};
  return guardedRead<RunReadResult>(deps, call, input.id, {
    audited: () => audited,
    failed: (e) => problemOf(e, isDenialCode, 'background.read'),
    execute: async (policy) => {
      const run = bg.runs.get(bg.session, input.id);
      if (!run) throw new ToolError('PATH_NOT_FOUND', `"${input.id}" is not a background command of this session: it may have ended and been read to its end (then it is forgotten), or been pushed out by newer ones. shell_background {} lists this session's.`, 'background.unknown');
      checkInput(input);
      const budget = policy.outputBudgetBytes;
      let waited: WaitResult | undefined;
      // At most as long as a command may run: the call keeps the client's request open meanwhile.
      const waitSeconds = Math.min(input.wait ?? 0, policy.maxTimeoutSeconds);
      if (input.offset === undefined && waitSeconds > 0) {
        // Progress while it waits (a client that resets its timeout on progress then waits as long as asked).
        const t0 = performance.now();
        const report = call.onProgress;
        const ticker = report && setInterval(() => report({ elapsedMs: Math.round(performance.now() - t0), stdoutBytes: run.log.total, stderrBytes: 0 }), 1000);
        try {
          waited = await run.waitFor(input.until, waitSeconds * 1000, call.signal);
        } finally {
          if (ticker) clearInterval(ticker);
        }
      }
      const r = input.offset !== undefined ? pageRead(run, input.offset, input.length, budget) : newRead(run, budget);
      audited = { offset: r.from, bytes: r.bytes, total: run.log.total, ...(r.dropped && { dropped: r.dropped }) };
      const parts = [r.where];
      if (waited !== undefined) parts.push(waitText(waited, input.until, waitSeconds, run.id));
      if (run.end) {
        run.endReported = true;
        parts.push(endText(run.id, run.end));
      } else {
        parts.push(`${run.id} is running (${Math.round(run.info().elapsedMs / 1000)} s)`);
      }
      // Forgotten once it ended and a read showed the rest whole; an answer with a gap keeps it for reads by offset.
      const collected = !r.cut && input.offset === undefined && bg.runs.collectIfDone(run);
      if (collected) parts.push(`all of its output was read: ${run.id} is forgotten`);
      else if (!run.end || run.cursor < run.log.total) parts.push(`next: readOutput {"id":"${run.id}"}`);
      else parts.push(`its output stays readable by offset until a newer background command needs the place or the session ends`);
      return { outcome: 'ok', text: r.text, message: `[${parts.join('; ')}]`, run: run.info() };
    },
  });
}

function checkInput(input: RunReadInput): void {
  checkRange(input.offset, input.length);
  if (input.wait !== undefined && !(input.wait >= 0)) throw new ToolError('BAD_REQUEST', `wait must be seconds ≥ 0, got ${input.wait}.`, 'background.wait');
  if (input.until !== undefined && input.until.length > MAX_UNTIL) throw new ToolError('BAD_REQUEST', `until may be at most ${MAX_UNTIL} characters.`, 'background.until');
}

interface Read {
  readonly text: string;
  readonly from: number;
  readonly bytes: number;
  readonly dropped: number;
  readonly where: string;
  /** The answer shows head and tail with a gap. */
  readonly cut: boolean;
}

/** Everything not read yet (within the budget: head and tail, the gap marked), and the position moves to its end. */
function newRead(run: BackgroundRun, budget: number): Read {
  const log = run.log;
  let dropped = Math.max(0, log.start - run.cursor);
  let bytes = log.read(run.cursor + dropped, log.total - run.cursor - dropped);
  if (dropped > 0) {
    // The oldest kept line was cut by the drop: start at the next whole one (when one starts soon).
    const nl = bytes.subarray(0, LINE_SNAP).indexOf(10);
    if (nl >= 0 && nl + 1 < bytes.length) {
      dropped += nl + 1;
      bytes = bytes.subarray(nl + 1);
    }
  }
  const from = run.cursor + dropped;
  // A character the run is still in the middle of writing waits for the next read (never shown broken, never lost).
  if (run.running) bytes = bytes.subarray(0, completeLength(bytes));
  const text = bytes.toString('utf8');
  const fitted = headAndTail(text, budget, (gap) => `\n[… ${bytesText(gap.bytes)} bytes not shown; readOutput {"id":"${run.id}","offset":${from + gap.offset}} reads on while the log keeps them …]\n`);
  run.cursor = from + bytes.length;
  const lost = dropped ? `${bytesText(dropped)} bytes were dropped before this read (the log keeps the last ${bytesText(log.capacity)}); ` : '';
  const where = bytes.length === 0 ? `${lost}no new output` : `${lost}new output: bytes ${from}-${from + bytes.length - 1} of ${bytesText(log.total)}`;
  return { text: fitted.text, from, bytes: bytes.length, dropped, where, cut: fitted.cut };
}

/** One page from an absolute offset (readOutput's paging); new reads then start after it. */
function pageRead(run: BackgroundRun, offset: number, length: number | undefined, budget: number): Read {
  const log = run.log;
  const dropped = Math.max(0, log.start - offset);
  const source = { total: log.total, read: (at: number, n: number) => log.read(at, n) };
  const page = pageAt(source, offset + dropped, Math.min(length ?? budget, budget), budget);
  const end = page.offset + page.bytes;
  run.cursor = Math.max(run.cursor, end);
  const lost = dropped ? `bytes ${offset}-${offset + dropped - 1} are no longer kept (the log keeps the last ${bytesText(log.capacity)}); ` : '';
  const where = page.bytes === 0 ? `${lost}nothing at byte ${page.offset}` : `${lost}bytes ${page.offset}-${end - 1} of ${bytesText(log.total)}${page.next !== undefined ? `; next page: readOutput {"id":"${run.id}","offset":${page.next}}` : ''}`;
  return { text: page.text, from: page.offset, bytes: page.bytes, dropped, where, cut: page.next !== undefined };
}

/** The length of `bytes` without an incomplete UTF-8 character at its end. */
export function completeLength(bytes: Buffer): number {
  for (let k = 1; k <= Math.min(3, bytes.length); k++) {
    const b = bytes[bytes.length - k]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > k ? bytes.length - k : bytes.length;
  }
  return bytes.length;
}

function waitText(w: WaitResult, text: string | undefined, seconds: number, id: string): string {
  const until = text ? JSON.stringify(text) : undefined;
  switch (w) {
    case 'found': return `found ${until}`;
    case 'ended': return until ? `${until} did not appear before it ended` : 'waited for its end';
    case 'timeout': return `${until ?? `the end of ${id}`} did not come within ${seconds} s`;
    case 'canceled': return `the wait for ${until ?? `the end of ${id}`} was canceled`;
  }
}
