import { prefixWithin } from './jsonCost';

/**
 * One page of UTF-8 bytes, for readOutput and readFile's byte positions: it starts and ends on character
 * boundaries (so pages read one after another give back every byte, in order, and no page shows a broken
 * character) and its JSON cost stays within the budget.
 */

export interface ByteSource {
  readonly total: number;
  read(offset: number, length: number): Buffer;
}

export interface Page {
  readonly text: string;
  /** Where the page starts (the offset asked for, moved back to the start of a character it fell inside). */
  readonly offset: number;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
  readonly total: number;
  /** Where the next page starts; absent at the end. */
  readonly next?: number;
}

const isContinuation = (b: number | undefined) => b !== undefined && (b & 0xc0) === 0x80;

/** Bytes a UTF-8 sequence that starts with `lead` has (1 for ASCII or a stray byte). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

export function pageAt(source: ByteSource, offset: number, length: number, budget: number): Page {
  let start = Math.min(Math.max(0, offset), source.total);
  // Fell inside a character: start at its first byte (at most three bytes back).
  if (start > 0 && start < source.total) {
    const before = source.read(Math.max(0, start - 3), Math.min(start, 3) + 1);
    let back = 0;
    while (back < 3 && isContinuation(before[before.length - 1 - back])) back++;
    if (back > 0 && back < before.length) start -= back;
  }
  let bytes = source.read(start, Math.min(length, source.total - start));
  // Do not end inside a character: drop a sequence the page holds only the first bytes of.
  if (start + bytes.length < source.total) {
    for (let k = 1; k <= Math.min(3, bytes.length); k++) {
      const b = bytes[bytes.length - k]!;
      if (isContinuation(b)) continue;
      if (sequenceLength(b) > k) bytes = bytes.subarray(0, bytes.length - k);
      break;
    }
    // A length shorter than the first character still moves on by that character.
    if (bytes.length === 0) {
      const first = source.read(start, 1);
      bytes = source.read(start, Math.min(first.length ? sequenceLength(first[0]!) : 1, source.total - start));
    }
  }
  let text = bytes.toString('utf8');
  const fits = prefixWithin(text, budget);
  if (fits < text.length) {
    text = text.slice(0, fits);
    bytes = bytes.subarray(0, Buffer.byteLength(text, 'utf8'));
  }
  const end = start + bytes.length;
  return { text, offset: start, bytes: bytes.length, total: source.total, ...(end < source.total && { next: end }) };
}
