import { isDenialCode } from '../files/types';
import { ToolError } from '../errors';
import { problemOf, runGuarded, type Denial, type GuardedCall, type GuardedDeps } from '../pipeline';
import type { Policy } from '../policy';
import { bytesText } from './budget';
import { pageAt, type Page } from './page';
import type { OutputStore } from './spill';

export interface ReadOutputInput {
  readonly id: string;
  /** Byte position in the kept output (default 0). */
  readonly offset?: number;
  /** Most bytes (default and maximum: the output budget). */
  readonly length?: number;
}

export interface ReadOutputResult {
  readonly outcome: 'ok' | 'denied' | 'failed';
  /** Where this page is and where the next one starts, for a person and the agent. */
  readonly message: string;
  readonly page?: Page;
  readonly denial?: Denial;
  readonly error?: { readonly code: string; readonly message: string; readonly rule?: string };
}

/**
 * A read of kept output on the guarded pipeline, like every tool's call: allowed in every mode (it only looks),
 * never asked, audited as `output_audit` with its id and the range read, never with the bytes. readOutput's pages
 * and a background command's reads (src/core/background/read.ts) both go through it.
 */
export function guardedRead<R extends { readonly outcome: string; readonly denial?: Denial }>(
  deps: GuardedDeps, call: GuardedCall, id: string,
  o: { readonly audited: (r: R) => Record<string, unknown>; readonly failed: (e: unknown) => R; readonly execute: (policy: Policy) => Promise<R> },
): Promise<R> {
  return runGuarded<R>(deps, call, {
    event: 'output_audit',
    audited: o.audited,
    failed: o.failed,
    refused: (d) => ({ outcome: 'denied', message: d.message, denial: d }) as unknown as R,
    plan: (policy) => ({
      actions: ['read'],
      checks: [],
      what: 'this read',
      subject: { output_id: id },
      request: () => {
        throw new Error('reads are never asked');
      },
      execute: () => o.execute(policy),
    }),
  });
}

/** A byte range as the agent gave it: a position ≥ 0 and a length ≥ 1, or a clear refusal. */
export function checkRange(offset: number | undefined, length: number | undefined): void {
  if (offset !== undefined && (!Number.isInteger(offset) || offset < 0)) throw new ToolError('BAD_REQUEST', `offset must be a byte position ≥ 0, got ${offset}.`, 'output.offset');
  if (length !== undefined && (!Number.isInteger(length) || length < 1)) throw new ToolError('BAD_REQUEST', `length must be a whole number of bytes ≥ 1, got ${length}.`, 'output.length');
}

/**
 * readOutput: one page of an output this session kept (src/core/output/spill.ts). Pages start and end on characters
 * and stay within the output budget, so reading from offset 0 along `next` gives back every byte of the output in order.
 */
export function readOutputTool(deps: GuardedDeps, call: GuardedCall, store: OutputStore, input: ReadOutputInput): Promise<ReadOutputResult> {
  return guardedRead<ReadOutputResult>(deps, call, input.id, {
    audited: (r) => (r.page ? { offset: r.page.offset, bytes: r.page.bytes, total: r.page.total } : {}),
    failed: (e) => problemOf(e, isDenialCode, 'output.denied'),
    execute: async (policy) => {
      checkRange(input.offset, input.length);
      const budget = policy.outputBudgetBytes;
      const offset = input.offset ?? 0;
      const total = store.read(input.id, 0, 0)?.total;
      if (total === undefined) {
        const why = store.issued(input.id)
          ? 'is no longer kept: the oldest kept outputs are dropped when the server holds too many'
          : 'is not an output of this session (ids come from a result\'s stdoutId, stderrId, contentId, entriesId, diffId or bodyId, or from its text)';
        throw new ToolError('PATH_NOT_FOUND', `Output "${input.id}" ${why}. Run the command again to see its output.`, 'output.unknown');
      }
      const page = pageAt({ total, read: (at, n) => store.read(input.id, at, n)!.bytes }, offset, Math.min(input.length ?? budget, budget), budget);
      const end = page.offset + page.bytes;
      const where = page.bytes === 0 ? `nothing at byte ${page.offset}` : `bytes ${page.offset}-${end - 1}`;
      const next = page.next !== undefined ? `; next: readOutput {"id":"${input.id}","offset":${page.next}}` : '; the end of it';
      return { outcome: 'ok', page, message: `[output ${input.id}: ${where} of ${bytesText(total)}${next}]` };
    },
  });
}
