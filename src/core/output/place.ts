import { bytesText, headAndTail, shareBudget, type Gap } from './budget';
import { jsonCost } from './jsonCost';

/**
 * Where the bytes of an answer go. Clients differ in what they hand the model: VS Code (1.139), Claude Code,
 * Copilot CLI and Codex give it ONLY `structuredContent` when a result has one; others read only the text. So
 * the bytes go in one place, structuredContent, within the output budget (head and tail, the gap marked); the
 * text repeats a part only when it is short (INLINE_BYTES) and otherwise says where it is: the whole of it is
 * kept for the session and readOutput {id} reads it in pages, which every client can show (its answer is text
 * only). Nothing large travels twice.
 */

/** A part at most this long (JSON cost) is repeated in the text: short answers read the same in every client. */
export const INLINE_BYTES = 2048;

export interface PartIn {
  /** `stdout`, `stderr`, `content`, `body`: the structuredContent field, named in the text's reference. */
  readonly field: string;
  readonly text: string;
}

export interface PartOut {
  readonly field: string;
  /** What structuredContent carries: the whole part, or its head and tail within its share of the budget. */
  readonly shown: string;
  /** The shown text is not the whole part. */
  readonly cut: boolean;
  /** The text repeats the part (it is short). */
  readonly inText: boolean;
  /** readOutput's id for the whole part, when it is not all in the text. */
  readonly id?: string;
  /** UTF-8 bytes of the whole part. */
  readonly bytes: number;
}

/** Keeps a part for readOutput; undefined when it cannot (the answer then says so). */
export type Keep = (text: string) => string | undefined;

/** The gap marker: its size, and where readOutput continues (a stable shape an agent can act on). */
export function gapMarker(gap: Gap, id: string | undefined): string {
  const where = id ? `; readOutput {"id":"${id}","offset":${gap.offset}} reads on` : ' (not kept)';
  return `\n[… ${bytesText(gap.bytes)} bytes not shown${where} …]\n`;
}

/** Places the parts of one answer within `budget` (shared between them). */
export function placeParts(parts: readonly PartIn[], budget: number, keep: Keep): PartOut[] {
  const costs = parts.map((p) => jsonCost(p.text));
  const allowance = shareBudget(costs, budget);
  return parts.map((p, i) => {
    const inText = costs[i]! <= INLINE_BYTES && costs[i]! <= allowance[i]!;
    const id = inText || p.text === '' ? undefined : keep(p.text);
    const fitted = headAndTail(p.text, allowance[i]!, (gap) => gapMarker(gap, id));
    return { field: p.field, shown: fitted.text, cut: fitted.cut, inText, ...(id !== undefined && { id }), bytes: Buffer.byteLength(p.text, 'utf8') };
  });
}

/** The text's line for a part it does not repeat: where the bytes are, and how to read all of them. */
export function referenceLine(p: PartOut, label = p.field): string {
  const shown = p.cut ? 'its first and last part' : 'all of it';
  const read = p.id ? `; readOutput {"id":"${p.id}"} reads all of it in pages` : '; the rest is not kept';
  return `[${label}: ${bytesText(p.bytes)} bytes, not repeated in this text: structuredContent.${p.field} holds ${shown}${read}]`;
}
