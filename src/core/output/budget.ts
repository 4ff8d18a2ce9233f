import { jsonCost, prefixWithin, suffixWithin } from './jsonCost';

/**
 * The per-answer output budget (`outputBudgetBytes`): what one tool answer may carry of a command's output, a
 * file page or a fetched body, measured as it travels (jsonCost.ts). A model's context is the scarce thing, not
 * the pipe: a command may write megabytes, the executor keeps up to `outputLimitBytes`, and the answer shows the
 * beginning and the end within the budget, marking the gap with its size and where the rest can be read.
 */

/** A newline this close to a cut (in characters) moves the cut to it, so head and tail hold whole lines. */
const LINE_SNAP = 1024;
/** Of the room left after the gap's marker, the head gets this share and the tail the rest: errors and summaries are at the end. */
const HEAD_SHARE = 0.4;

export interface Gap {
  /** Byte offset (UTF-8) in the whole text where the part not shown starts. */
  readonly offset: number;
  /** Bytes not shown. */
  readonly bytes: number;
}

export interface Fitted {
  /** What the answer shows: the whole text, or its head, the marker and its tail. */
  readonly text: string;
  readonly cut: boolean;
  /** Where the gap is (absent when nothing was cut). */
  readonly gap?: Gap;
}

/** Shows `text` within `budget` (JSON cost), keeping head and tail and putting `marker(gap)` between them. */
export function headAndTail(text: string, budget: number, marker: (gap: Gap) => string): Fitted {
  if (jsonCost(text) <= budget) return { text, cut: false };
  const total = Buffer.byteLength(text, 'utf8');
  // The marker's room is reserved with the largest numbers it can show.
  const room = Math.max(0, budget - jsonCost(marker({ offset: total, bytes: total })));
  let headEnd = prefixWithin(text, Math.floor(room * HEAD_SHARE));
  let tailStart = suffixWithin(text, room - Math.floor(room * HEAD_SHARE));
  const nl = text.lastIndexOf('\n', headEnd - 1);
  if (nl >= 0 && headEnd - (nl + 1) <= LINE_SNAP) headEnd = nl + 1;
  const next = text.indexOf('\n', tailStart);
  if (next >= 0 && next + 1 < text.length && next + 1 - tailStart <= LINE_SNAP) tailStart = next + 1;
  if (tailStart < headEnd) tailStart = headEnd;
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  const offset = Buffer.byteLength(head, 'utf8');
  const gap = { offset, bytes: total - offset - Buffer.byteLength(tail, 'utf8') };
  return { text: head + marker(gap) + tail, cut: true, gap };
}

/**
 * Shares one budget between parts (stdout and stderr): each gets an equal share, and what a small part does not
 * use goes to the others. Returns each part's allowance, in the order given.
 */
export function shareBudget(costs: readonly number[], budget: number): number[] {
  const allowance = costs.map(() => 0);
  let left = budget;
  let open = costs.map((_, i) => i);
  while (open.length > 0) {
    const share = Math.floor(left / open.length);
    const small = open.filter((i) => costs[i]! <= share);
    if (small.length === 0) {
      for (const i of open) allowance[i] = share;
      break;
    }
    for (const i of small) {
      allowance[i] = costs[i]!;
      left -= costs[i]!;
    }
    open = open.filter((i) => !small.includes(i));
  }
  return allowance;
}

/** "1,048,576": byte counts an agent reads at a glance. */
export const bytesText = (n: number): string => n.toLocaleString('en-US');
