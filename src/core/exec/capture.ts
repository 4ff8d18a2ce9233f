/**
 * What happens when a stream writes more than the limit:
 * - `keep` (the default of the policy): the command runs on; the first half of the limit and the LAST half are
 *   kept, and the text says how many bytes were left out in the middle. A test run's summary is at its end.
 * - `kill`: the first `limit` bytes are kept and `onOverflow` is called once (the executor stops the command).
 */
export type OutputLimitAction = 'keep' | 'kill';

/**
 * Keeps a bounded part of a stream and counts the rest without holding it, so memory stays flat however much a
 * command writes: at most `limit` bytes plus one chunk are held at any time.
 */
export class BoundedCapture {
  private readonly head: Buffer[] = [];
  private headKept = 0;
  private readonly headLimit: number;
  /**
   * The tail: one ring buffer, allocated once when the head is full, so draining a large output allocates
   * nothing per chunk (garbage would grow the process however flat the live data is).
   */
  private ring: Buffer | undefined;
  /** Bytes ever written to the ring; the next write goes at ringWritten % tailLimit. */
  private ringWritten = 0;
  private readonly tailLimit: number;
  /** Bytes the command wrote, including those dropped. */
  total = 0;
  truncated = false;

  constructor(
    private readonly limit: number,
    private readonly onOverflow: () => void,
    private readonly action: OutputLimitAction = 'kill',
  ) {
    this.headLimit = action === 'kill' ? limit : Math.ceil(limit / 2);
    this.tailLimit = limit - this.headLimit;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    const room = this.headLimit - this.headKept;
    if (room > 0) {
      // Copy what we keep: a chunk may be a view into a larger allocation we must not pin.
      const part = Buffer.from(rest.subarray(0, Math.min(room, rest.length)));
      this.head.push(part);
      this.headKept += part.length;
      rest = rest.subarray(part.length);
    }
    if (rest.length > 0 && this.tailLimit > 0) {
      const ring = (this.ring ??= Buffer.alloc(this.tailLimit));
      const skip = Math.max(0, rest.length - this.tailLimit);
      this.ringWritten += skip;
      let src = rest.subarray(skip);
      while (src.length > 0) {
        const at = this.ringWritten % this.tailLimit;
        const n = src.copy(ring, at, 0, Math.min(src.length, this.tailLimit - at));
        this.ringWritten += n;
        src = src.subarray(n);
      }
    }
    if (!this.truncated && this.total > this.limit) {
      this.truncated = true;
      if (this.action === 'kill') this.onOverflow();
    }
  }

  /** The ring's content in write order (the last min(written, tailLimit) bytes). */
  private tailBytes(ring: Buffer): Buffer {
    if (this.ringWritten <= this.tailLimit) return ring.subarray(0, this.ringWritten);
    const at = this.ringWritten % this.tailLimit;
    return Buffer.concat([ring.subarray(at), ring.subarray(0, at)]);
  }

  /** Bytes written but not kept (in the middle for `keep`, at the end for `kill`). */
  get omitted(): number {
    return Math.max(0, this.total - this.headKept - Math.min(this.ringWritten, this.tailLimit));
  }

  /**
   * UTF-8 text of what was kept; a character cut at an edge becomes U+FFFD. With `keep`, a gap is marked in the
   * text itself, where it is: `[… N bytes left out …]`.
   */
  text(): string {
    const headBytes = Buffer.concat(this.head, this.headKept);
    if (!this.ring) return headBytes.toString('utf8');
    const tail = this.tailBytes(this.ring);
    const omitted = this.omitted;
    // Nothing left out: one buffer, so a character split between head and tail stays whole.
    if (omitted === 0) return Buffer.concat([headBytes, tail]).toString('utf8');
    const head = headBytes.toString('utf8');
    // Start the tail on a character boundary: skip at most three UTF-8 continuation bytes.
    let start = 0;
    while (start < 3 && start < tail.length && (tail[start]! & 0xc0) === 0x80) start++;
    return `${head}\n[… ${omitted + start} bytes left out …]\n${tail.subarray(start).toString('utf8')}`;
  }
}
