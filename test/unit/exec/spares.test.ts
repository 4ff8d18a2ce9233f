import * as fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PipeReader } from '../../../src/core/exec/zygote/pipeReader';
import { SpareSupply, SPARES, type Spare } from '../../../src/core/exec/zygote/spares';

// The spares' bookkeeping alone (src/core/exec/zygote/spares.ts); the real zygote and its spares are in
// zygote.test.ts. A spare's output ends here are stand-ins that only record being closed; its control end is a
// real descriptor.

function spare(n: number): Spare & { closed: () => number } {
  let destroyed = 0;
  const end = { destroy: () => void destroyed++ } as unknown as PipeReader;
  const control = fs.openSync('/dev/null', 'w'); // a real descriptor: the supply closes it
  const controlClosed = () => {
    try {
      fs.fstatSync(control);
      return 0;
    } catch {
      return 1;
    }
  };
  return { sid: `P${n}`, pid: 1000 + n, control, stdout: end, stderr: end, closed: () => destroyed + controlClosed() };
}

/** A supply on vitest's fake clock (Date.now and timers), which `tick(t)` moves to t ms after the start. */
function supply() {
  const asked: number[] = [];
  const s = new SpareSupply<string>((n) => asked.push(n), SPARES);
  const tick = (t: number) => vi.advanceTimersByTime(t - Date.now());
  return { s, asked, tick, pending: () => vi.getTimerCount() };
}

describe('spare supply', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('keeps two spares: a call takes a ready one, and topping up asks only for the missing ones', () => {
    const { s, asked } = supply();
    s.started(); // the zygote's first spare, unasked
    s.topUp();
    expect(asked).toEqual([1]);
    expect(s.arrived(spare(1))).toBeUndefined();
    expect(s.arrived(spare(2))).toBeUndefined();
    expect(s.pids).toEqual([1001, 1002]);
    s.topUp();
    expect(asked).toEqual([1]); // full: nothing asked
    expect(s.take()?.sid).toBe('P1');
    s.topUp();
    expect(asked).toEqual([1, 1]);
    expect(s.take()?.sid).toBe('P2');
    expect(s.take()).toBeUndefined();
  });

  it('lets a call wait only for a spare being forked, one call per such spare, oldest first', () => {
    const { s } = supply();
    expect(s.wait('no spare coming')).toBe(false);
    s.started();
    expect(s.wait('first')).toBe(true);
    expect(s.wait('second')).toBe(false); // one spare coming: the second call goes the zygote's own way
    expect(s.busy).toBe(true);
    expect(s.arrived(spare(1))).toBe('first');
    expect(s.busy).toBe(false);
    expect(s.pids).toEqual([]); // taken by the waiting call, not kept
  });

  it('sends the calls no spare will come for the zygote\'s own way when a spare\'s fork fails, and asks again once a second at most', () => {
    const { s, asked, tick } = supply();
    s.topUp(); // two coming
    expect(s.wait('a')).toBe(true);
    expect(s.wait('b')).toBe(true);
    expect(s.wait('c')).toBe(false);
    expect(s.failed()).toEqual(['b']); // one still coming, for 'a'
    expect(asked).toEqual([2, 1]); // the failed one asked again at once
    tick(10);
    expect(s.failed()).toEqual([]); // 'a' waits for the one asked again
    tick(20);
    expect(s.failed()).toEqual(['a']);
    expect(asked).toEqual([2, 1]); // not again within the second…
    tick(999);
    expect(asked).toEqual([2, 1]);
    tick(1000);
    expect(asked).toEqual([2, 1, 2]); // …but once it is over: the server is never left without spares for good
    expect(s.busy).toBe(false);
  });

  it('forgets an idle spare that died, closes its ends, and asks again at most once a second', () => {
    const { s, asked, tick } = supply();
    s.topUp();
    const [a, b] = [spare(1), spare(2)];
    s.arrived(a);
    s.arrived(b);
    expect(s.lost('P9')).toBe(false); // not an idle spare (a call's, or unknown)
    expect(s.lost('P1')).toBe(true);
    expect(a.closed()).toBe(3);
    expect(asked).toEqual([2, 1]);
    tick(500);
    s.arrived(spare(3));
    expect(s.lost('P2')).toBe(true);
    expect(asked).toEqual([2, 1]); // half a second later: not yet
    tick(1000);
    expect(asked).toEqual([2, 1, 1]); // a second after the last: the missing one
  });

  it('closes every idle spare, forgets a pending request, and returns the waiting calls when the zygote is gone', () => {
    const { s } = supply();
    s.topUp();
    const a = spare(1);
    s.arrived(a);
    expect(s.wait('w')).toBe(true); // for the one still coming
    expect(s.clear()).toEqual(['w']);
    expect(a.closed()).toBe(3);
    expect(s.pids).toEqual([]);
    expect(s.wait('after')).toBe(false); // nothing coming any more
    const other = supply();
    other.s.topUp();
    other.s.failed(); // asked again at once
    other.s.failed(); // asked again in a second: pending
    expect(other.pending()).toBe(1);
    other.s.clear();
    expect(other.pending()).toBe(0);
    other.tick(5000);
    expect(other.asked).toEqual([2, 1]);
  });
});
