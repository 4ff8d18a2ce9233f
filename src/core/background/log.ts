/**
 * The output of one background run as ONE log (stdout and stderr in the order their chunks arrived, as a terminal
 * shows them), addressed by absolute byte offsets from the run's start. Only the latest `capacity` bytes are kept:
 * older ones are dropped whole blocks at a time and still counted, so a reader learns exactly how many it missed.
 *
 * Memory is fixed blocks, allocated as the log grows and reused once dropped: a flood of one-byte writes costs
 * no more than one large write (a list of chunks would cost an object per write).
 */

const BLOCK = 64 * 1024;

export class OutputLog {
  private readonly blocks: Buffer[] = [];
  /** Free blocks, dropped from the front, reused at the back. */
  private readonly spare: Buffer[] = [];
  /** Absolute offset of the first byte of blocks[0]. */
  private base = 0;
  /** Bytes ever written. */
  private written = 0;
  private readonly maxBlocks: number;

  constructor(readonly capacity: number) {
    // One block more than the capacity needs: the kept bytes never fall below the capacity once it is reached.
    this.maxBlocks = Math.max(1, Math.ceil(capacity / BLOCK)) + 1;
  }

  /** Bytes the run ever wrote. */
  get total(): number {
    return this.written;
  }

  /** The offset of the oldest byte still kept (0 until something was dropped). */
  get start(): number {
    return Math.max(this.base, this.written - this.capacity);
  }

  append(chunk: Buffer): void {
    let src = chunk;
    while (src.length > 0) {
      // Every block but the last is full; the last holds `fill` bytes.
      let fill = this.written - this.base - (this.blocks.length - 1) * BLOCK;
      if (this.blocks.length === 0 || fill === BLOCK) {
        if (this.blocks.length === this.maxBlocks) {
          this.spare.push(this.blocks.shift()!);
          this.base += BLOCK;
        }
        this.blocks.push(this.spare.pop() ?? Buffer.allocUnsafe(BLOCK));
        fill = 0;
      }
      const n = src.copy(this.blocks[this.blocks.length - 1]!, fill, 0, Math.min(src.length, BLOCK - fill));
      this.written += n;
      src = src.subarray(n);
    }
  }

  /** Up to `length` kept bytes from absolute `offset` (moved up to `start` when older bytes were dropped). */
  read(offset: number, length: number): Buffer {
    const from = Math.max(offset, this.start);
    const to = Math.min(this.written, from + Math.max(0, length));
    if (to <= from) return Buffer.alloc(0);
    const out = Buffer.allocUnsafe(to - from);
    let done = 0;
    while (done < out.length) {
      const at = from + done - this.base;
      const block = this.blocks[Math.floor(at / BLOCK)]!;
      const inBlock = at % BLOCK;
      done += block.copy(out, done, inBlock, Math.min(BLOCK, inBlock + out.length - done));
    }
    return out;
  }

  /** The last `n` lines kept (each at most `width` characters), for a glance: the panel's card. */
  lastLines(n: number, width = 200): string[] {
    const tail = this.read(this.written - Math.min(this.written - this.start, 16 * 1024), 16 * 1024).toString('utf8');
    const lines = tail.split(/\r?\n/);
    if (lines[lines.length - 1] === '') lines.pop();
    // A line cut by a dropped block or the window's edge would mislead: shown only when it is all there is.
    if (lines.length > n) lines.splice(0, lines.length - n);
    return lines.map((l) => {
      const shown = l.includes('\r') ? l.slice(l.lastIndexOf('\r') + 1) : l; // a progress bar's last state
      return shown.length > width ? `${shown.slice(0, width - 1)}…` : shown;
    });
  }
}
