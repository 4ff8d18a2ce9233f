import { describe, expect, it } from 'vitest';
import { BoundedCapture } from '../../../src/core/exec/capture';
import { createExecutor } from '../../../src/core/exec/executor';
import { rssKb, stage, survivors, tagged } from './helpers';

const feed = (cap: BoundedCapture, text: string, chunk: number) => {
  const b = Buffer.from(text);
  for (let i = 0; i < b.length; i += chunk) cap.push(b.subarray(i, i + chunk));
};

describe('BoundedCapture: keep (head and tail)', () => {
  it('keeps everything up to the limit, whatever the chunking', () => {
    for (const chunk of [1, 3, 7, 100]) {
      const cap = new BoundedCapture(10, () => expect.unreachable(), 'keep');
      feed(cap, '0123456789', chunk);
      expect(cap.text()).toBe('0123456789');
      expect(cap.truncated).toBe(false);
    }
  });

  it('keeps the first and last half and marks the gap with its size, for every chunking', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join('');
    for (const chunk of [1, 5, 64, 4096, text.length]) {
      const cap = new BoundedCapture(100, () => expect.unreachable(), 'keep');
      feed(cap, text, chunk);
      expect(cap.total).toBe(text.length);
      expect(cap.truncated).toBe(true);
      expect(cap.text()).toBe(`${text.slice(0, 50)}\n[… ${text.length - 100} bytes left out …]\n${text.slice(-50)}`);
    }
  });

  it('never starts the tail inside a UTF-8 character (the cut bytes are counted as left out)', () => {
    const cap = new BoundedCapture(10, () => undefined, 'keep'); // tail of 5 bytes: starts mid-character
    feed(cap, 'aaaaa' + 'é'.repeat(20), 4);
    const out = cap.text();
    expect(out).not.toContain('\uFFFD');
    const n = Number(/\[… (\d+) bytes/.exec(out)![1]);
    expect(n + Buffer.byteLength(out.slice(out.indexOf('…]\n') + 3)) + 5).toBe(cap.total);
  });
});

describe('BoundedCapture: kill', () => {
  it('keeps the first limit bytes and calls onOverflow once', () => {
    let calls = 0;
    const cap = new BoundedCapture(10, () => calls++, 'kill');
    feed(cap, 'x'.repeat(25), 4);
    expect(cap.text()).toBe('x'.repeat(10));
    expect(calls).toBe(1);
  });
});

describe('executor: keep drains any amount with bounded memory', () => {
  it('500 MB grows the process no more than 50 MB does (memory does not follow the output size)', async () => {
    const ex = createExecutor({ concurrency: 1 });
    const growth: number[] = [];
    for (const total of [50_000_000, 500_000_000]) {
      const { tag, spec } = tagged([stage('head', '-c', String(total), '/dev/zero')], { outputLimitBytes: 1 << 20, outputLimitAction: 'keep' });
      const before = rssKb();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssKb())), 5);
      const r = await ex.run(spec);
      clearInterval(sampler);
      growth.push(peak - before);
      expect(r.outcome).toBe('ok');
      expect(r.stdoutBytes).toBe(total);
      expect(r.stdout.length).toBeLessThan((1 << 20) + 100);
      expect(survivors(tag)).toEqual([]);
    }
    console.log(`keep: peak RSS growth 50 MB ${growth[0]} kB, then 500 MB ${growth[1]} kB`);
    expect(growth[1]!).toBeLessThan(64 * 1024);
  }, 120_000);
});
