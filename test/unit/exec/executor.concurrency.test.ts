import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { ConcurrencyGate } from '../../../src/core/exec/gate';
import { sleep, stage, tagged } from './helpers';

describe('executor: concurrency gate', () => {
  it('never runs more than 2 of 6 slow calls at once, finishes all 6, and reports queue time', async () => {
    const ex = createExecutor({ concurrency: 2 });
    let startedCalls = 0;
    let peakActive = 0;
    // Each command prints its own start and end time (ns): the truth about which processes overlapped.
    const script = 'date +%s%N; sleep 0.4; date +%s%N';
    const calls = Array.from({ length: 6 }, () =>
      ex.run({
        ...tagged([stage('sh', '-c', script)]).spec,
        onStart: () => {
          startedCalls++;
          peakActive = Math.max(peakActive, ex.active);
        },
      }),
    );
    await sleep(100);
    expect(ex.active).toBe(2);
    expect(ex.queued).toBe(4);
    const results = await Promise.all(calls);
    expect(results.map((r) => r.outcome)).toEqual(Array(6).fill('ok'));
    expect(startedCalls).toBe(6);
    expect(peakActive).toBe(2);
    const spans = results.map((r) => r.stdout.trim().split('\n').map(BigInt) as [bigint, bigint]);
    const events = spans.flatMap(([a, b]) => [{ t: a, d: 1 }, { t: b, d: -1 }]).sort((x, y) => (x.t === y.t ? x.d - y.d : x.t < y.t ? -1 : 1));
    let now = 0;
    let overlap = 0;
    for (const e of events) overlap = Math.max(overlap, (now += e.d));
    expect(overlap).toBe(2);
    // The first call took a free slot; the last pair waited for others to end (an order of events, not a time).
    expect(results[0]!.queueMs).toBeLessThan(results[4]!.queueMs);
    // FIFO: the last pair waited for two rounds of ~400 ms.
    expect(results[4]!.queueMs).toBeGreaterThan(500);
    expect(results[5]!.queueMs).toBeGreaterThan(500);
    expect(ex.active).toBe(0);
  });

  it('does not count queue time against the timeout', async () => {
    const ex = createExecutor({ concurrency: 1 });
    const first = ex.run(tagged([stage('sleep', '1.2')]).spec);
    const second = ex.run(tagged([stage('sleep', '0.5')], { timeoutMs: 1000 }).spec);
    const [, r] = await Promise.all([first, second]);
    expect(r.queueMs).toBeGreaterThan(900);
    expect(r.outcome).toBe('ok');
  });

  it('applies setConcurrency to calls that start afterwards', async () => {
    const ex = createExecutor({ concurrency: 1 });
    const calls = [1, 2, 3].map(() => ex.run(tagged([stage('sleep', '0.5')]).spec));
    await sleep(100);
    expect(ex.active).toBe(1);
    ex.setConcurrency(3);
    expect(ex.active).toBe(3);
    await Promise.all(calls);
    expect(() => ex.setConcurrency(0)).toThrow(/concurrency/);
  });
});

describe('concurrency gate (unit)', () => {
  it('grants in FIFO order and lets an aborted waiter leave the queue', async () => {
    const gate = new ConcurrencyGate(1);
    expect(await gate.acquire()).toBe(true);
    const order: string[] = [];
    const ac = new AbortController();
    const a = gate.acquire().then((g) => order.push(`a:${g}`));
    const b = gate.acquire(ac.signal).then((g) => order.push(`b:${g}`));
    const c = gate.acquire().then((g) => order.push(`c:${g}`));
    ac.abort();
    await b;
    expect(gate.queued).toBe(2);
    gate.release();
    await a;
    gate.release();
    await c;
    expect(order).toEqual(['b:false', 'a:true', 'c:true']);
    gate.cancelAll();
    expect(gate.active).toBe(1);
  });
});
