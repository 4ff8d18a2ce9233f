/**
 * Keeps exactly the first `limit` bytes of a stream and counts the rest without holding it, so memory stays
 * flat however much a command writes. The first byte past the limit calls `onOverflow` once (the executor
 * then stops the command) and marks the capture truncated.
 */
export class BoundedCapture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Bytes the command wrote, including those dropped. */
  total = 0;
  truncated = false;

  constructor(
    private readonly limit: number,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.limit - this.kept;
    if (room > 0) {
      // Copy what we keep: a chunk may be a view into a larger allocation we must not pin.
      const part = Buffer.from(chunk.subarray(0, Math.min(room, chunk.length)));
      this.chunks.push(part);
      this.kept += part.length;
    }
    if (!this.truncated && this.total > this.limit) {
      this.truncated = true;
      this.onOverflow();
    }
  }

  /** UTF-8 text of the kept prefix; a character cut at the limit becomes U+FFFD. */
  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString('utf8');
  }
}
