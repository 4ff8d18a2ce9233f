import { describe, expect, it } from 'vitest';
import { AuditLog, memorySink } from '../../../src/core/audit';
import { BackgroundRuns, type Caps } from '../../../src/core/background/runs';
import { isToolError } from '../../../src/core/errors';

const caps = (maxRuns: number, perSession: number): Caps => ({ backgroundMaxRuns: maxRuns, backgroundMaxRunsPerSession: perSession, backgroundOutputBytes: 4096 });
const identity = (n: number) => ({ requestId: `r${n}`, tool: 'shell_execute', request: { command: ['sleep', String(n)] }, stages: [['sleep', String(n)]], cwd: '.', isolation: 'none' });
const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (isToolError(e)) return `${e.code} ${e.rule}: ${e.message}`;
    throw e;
  }
  return 'no refusal';
};

describe('the caps on background runs', () => {
  it('a flood of starts gets exactly the per-session cap, then clear refusals naming the cap and the runs holding it', () => {
    const runs = new BackgroundRuns();
    const got: string[] = [];
    const refused: string[] = [];
    for (let i = 0; i < 50; i++) {
      try {
        got.push(runs.reserve('s1', caps(8, 3)).id);
      } catch (e) {
        refused.push((e as Error).message);
      }
    }
    expect(got).toEqual(['b1', 'b2', 'b3']);
    expect(refused).toHaveLength(47);
    // Reserved places count before they run: a start approved meanwhile cannot pass the cap.
    expect(refused[0]).toMatch(/this session's 3 \(background\.maxRunsPerSession\)/);
  });

  it('the folder cap holds over sessions; another session\'s runs are invisible and not named', () => {
    const runs = new BackgroundRuns();
    const a = [runs.reserve('a', caps(4, 3)), runs.reserve('a', caps(4, 3)), runs.reserve('a', caps(4, 3))].map((p, i) => p.open(identity(i), false));
    runs.reserve('b', caps(4, 3)).open(identity(9), false);
    const why = refusal(() => runs.reserve('b', caps(4, 3)));
    expect(why).toMatch(/^LIMIT_REACHED background\.cap: .*this folder's 4 \(background\.maxRuns\).*Other sessions hold the rest/);
    expect(why).not.toMatch(/b1|b2|b3/);
    expect(runs.get('b', a[0]!.id)).toBeUndefined();
    expect(runs.get('a', a[0]!.id)).toBe(a[0]);
    expect(runs.list('b').map((r) => r.id)).toEqual(['b4']);
  });

  it('an ended run not yet read gives its place up to a new one; a running one never does', () => {
    const audit = new AuditLog();
    const sink = memorySink();
    audit.add(sink);
    const runs = new BackgroundRuns(audit);
    const first = runs.reserve('s', caps(2, 2)).open(identity(1), false);
    runs.reserve('s', caps(2, 2)).open(identity(2), false);
    expect(refusal(() => runs.reserve('s', caps(2, 2)))).toMatch(/running: b1, b2/);
    first.finish({ outcome: 'ok', exitCode: 0, signal: null, durationMs: 5 });
    const third = runs.reserve('s', caps(2, 2)).open(identity(3), false);
    expect(third.id).toBe('b3');
    expect(runs.get('s', 'b1')).toBeUndefined(); // collected: its log is gone
    // Its end went to the audit under its start's request id (at once, before the eviction could lose it), so the
    // history shows one line from start to exit.
    expect(sink.records).toContainEqual(expect.objectContaining({ event: 'shell_execution_audit', request_id: 'r1', background: 'b1', background_state: 'ended', result_type: 'success', return_code: 0 }));
  });

  it('0 runs turns background commands off with a message saying so', () => {
    expect(refusal(() => new BackgroundRuns().reserve('s', caps(0, 4)))).toMatch(/^LIMIT_REACHED background\.off: .*turned off.*background\.maxRuns is 0/);
  });

  it('a session\'s end stops its runs and forgets them; other sessions\' runs go on', async () => {
    const runs = new BackgroundRuns();
    const mine = runs.reserve('a', caps(4, 4)).open(identity(1), false);
    const theirs = runs.reserve('b', caps(4, 4)).open(identity(2), false);
    // No executor here: the stop is seen by the run's signal, and its end is what an executor reports.
    mine.signal.addEventListener('abort', () => mine.finish({ outcome: 'canceled', exitCode: null, signal: 'SIGTERM', durationMs: 1 }));
    await runs.endSession('a');
    expect(mine.end).toMatchObject({ outcome: 'canceled', stoppedBy: 'session' });
    expect(runs.list().map((r) => r.id)).toEqual([theirs.id]);
    expect(theirs.running).toBe(true);
  });

  it('a closed folder starts nothing more', async () => {
    const runs = new BackgroundRuns();
    await runs.close('server');
    expect(refusal(() => runs.reserve('s', caps(4, 4)))).toMatch(/^LIMIT_REACHED background\.closed/);
  });
});
