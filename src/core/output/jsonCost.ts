/**
 * What a piece of text costs inside a JSON answer: the UTF-8 bytes of its escaped form (without the quotes).
 * An answer is sent as JSON, so a budget measured in raw bytes would let a stream of control characters (each
 * `\u0001`, six bytes) or of quotes grow the answer several times past it; measured this way, a budget of N bytes
 * of output is at most N bytes of the answer, whatever the output holds.
 */

/** The cost of one UTF-16 code unit at `i`, and how many units it covers (2 for a surrogate pair). */
function unitCost(s: string, i: number): [cost: number, units: number] {
  const c = s.charCodeAt(i);
  if (c < 0x20) return [c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6, 1];
  if (c === 0x22 || c === 0x5c) return [2, 1];
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = s.charCodeAt(i + 1);
    // A pair is one 4-byte character; a lone surrogate is written as a \uXXXX escape by JSON.stringify.
    return next >= 0xdc00 && next <= 0xdfff ? [4, 2] : [6, 1];
  }
  if (c >= 0xdc00 && c <= 0xdfff) return [6, 1];
  return [3, 1];
}

/** The JSON cost of `s` (bytes of `JSON.stringify(s)` in UTF-8, minus the two quotes). */
export function jsonCost(s: string): number {
  let cost = 0;
  for (let i = 0; i < s.length; ) {
    const [c, n] = unitCost(s, i);
    cost += c;
    i += n;
  }
  return cost;
}

/** The largest prefix of `s` (in UTF-16 units, never splitting a pair) whose JSON cost is at most `max`. */
export function prefixWithin(s: string, max: number): number {
  let cost = 0;
  let i = 0;
  while (i < s.length) {
    const [c, n] = unitCost(s, i);
    if (cost + c > max) break;
    cost += c;
    i += n;
  }
  return i;
}

/** The start of the largest suffix of `s` whose JSON cost is at most `max` (never splitting a pair). */
export function suffixWithin(s: string, max: number): number {
  let cost = 0;
  let i = s.length;
  while (i > 0) {
    const low = s.charCodeAt(i - 1);
    const high = i >= 2 ? s.charCodeAt(i - 2) : 0;
    const start = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? i - 2 : i - 1;
    const [c] = unitCost(s, start);
    if (cost + c > max) break;
    cost += c;
    i = start;
  }
  return i;
}
