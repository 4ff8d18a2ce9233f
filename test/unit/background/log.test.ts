import { describe, expect, it } from 'vitest';
import { OutputLog } from '../../../src/core/background/log';
import { completeLength } from '../../../src/core/background/read';

describe('a background run\'s output log', () => {
  it('keeps every byte at its absolute offset while under its capacity', () => {
    const log = new OutputLog(200_000);
    let all = '';
    for (let i = 0; i < 5000; i++) {
      const line = `line ${i}\n`;
      log.append(Buffer.from(line));
      all += line;
    }
    expect(log.total).toBe(all.length);
    expect(log.start).toBe(0);
    expect(log.read(0, log.total).toString()).toBe(all);
    expect(log.read(1000, 50).toString()).toBe(all.slice(1000, 1050));
  });

  it('keeps exactly the latest capacity bytes of a flood, counts the rest, and reads across block edges', () => {
    const cap = 100_000;
    const log = new OutputLog(cap);
    const chunk = Buffer.alloc(7919); // a prime: writes straddle every 64 KiB block edge
    let total = 0;
    for (let i = 0; i < 300; i++) {
      chunk.fill(i % 251);
      log.append(chunk);
      total += chunk.length;
    }
    expect(log.total).toBe(total);
    expect(log.start).toBe(total - cap);
    const kept = log.read(0, Number.MAX_SAFE_INTEGER); // an offset below start is moved up to it
    expect(kept.length).toBe(cap);
    // Byte at absolute offset o was written by chunk floor(o / 7919).
    for (const o of [total - cap, total - cap + 65_536, total - 1, total - 7919]) {
      expect(log.read(o, 1)[0]).toBe(Math.floor(o / 7919) % 251);
    }
    expect(log.read(total, 10).length).toBe(0);
  });

  it('a million one-byte writes cost no more memory than the blocks the capacity needs', () => {
    const log = new OutputLog(4096);
    const one = Buffer.from('x');
    for (let i = 0; i < 1_000_000; i++) log.append(one);
    expect(log.total).toBe(1_000_000);
    expect(log.read(0, 1e9).length).toBe(4096);
    // Two 64 KiB blocks at most: the spare list reuses dropped blocks instead of allocating.
    expect((log as unknown as { blocks: Buffer[]; spare: Buffer[] }).blocks.length + (log as unknown as { spare: Buffer[] }).spare.length).toBeLessThanOrEqual(3);
  });

  it('shows its last lines for a glance, a progress bar by its last state', () => {
    const log = new OutputLog(10_000);
    log.append(Buffer.from('one\ntwo\nthree\n'));
    log.append(Buffer.from('progress 10%\rprogress 50%\rprogress 90%\n'));
    log.append(Buffer.from('x'.repeat(500) + '\n'));
    const lines = log.lastLines(3, 20);
    expect(lines).toEqual(['three', 'progress 90%', `${'x'.repeat(19)}…`]);
  });

  it('holds back a character the run is still in the middle of writing', () => {
    const euro = Buffer.from('a€', 'utf8'); // 61 e2 82 ac
    expect(completeLength(euro)).toBe(4);
    expect(completeLength(euro.subarray(0, 3))).toBe(1);
    expect(completeLength(euro.subarray(0, 2))).toBe(1);
    expect(completeLength(Buffer.from('abc'))).toBe(3);
  });
});
