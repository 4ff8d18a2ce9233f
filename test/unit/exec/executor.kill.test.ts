import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { killAll, pidsWithCmdline, uniqueSeconds } from '../../helpers/procs';
import { sh, sleep, stage, survivors, tagged, tempDir } from './helpers';

/** Measured numbers, printed at the end so the report can quote them. */
const measured: Record<string, number> = {};
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  console.log('exec kill measurements (ms / count):', JSON.stringify(measured));
});
function dir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

describe('executor: nothing outlives a stopped call', () => {
  it('kills a command and its backgrounded grandchild on timeout, and answers soon after the timeout', async () => {
    const ex = createExecutor({ concurrency: 2 });
    const { tag, spec } = tagged([sh('sleep 300 & sleep 300')], { timeoutMs: 1000 });
    const t0 = Date.now();
    const r = await ex.run(spec);
    const elapsed = Date.now() - t0;
    measured.timeoutToResponseMs = elapsed;
    measured.timeoutSurvivors = survivors(tag).length;
    expect(r.outcome).toBe('timeout');
    // Ended by the SIGTERM, reported as the signal; or as 143 under the exec chain, whose namespace's init (coreutils'
    // timeout, which as PID 1 cannot die of a signal) reports its child's signal so.
    if (r.exitCode === null) expect(r.signal).toBe('SIGTERM');
    else expect(r.exitCode).toBe(143);
    // Not before the timeout; how soon after is a measured figure, not a threshold (the tree's sleep 300 would
    // otherwise keep the call past the test's own timeout).
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(survivors(tag)).toEqual([]);
  });

  // A command alone, with no handler for SIGTERM: no launcher makes it its namespace's PID 1, where the kernel would
  // drop the SIGTERM and leave it running for the whole grace.
  it('reports the SIGTERM a stopped command died of (or 143, where its namespace\'s init reports it so)', async () => {
    const ex = createExecutor({ concurrency: 2 });
    const { tag, spec } = tagged([stage('sleep', '300')], { timeoutMs: 500 });
    const r = await ex.run(spec);
    expect(r.outcome).toBe('timeout');
    expect(r.signal === 'SIGTERM' || r.exitCode === 143).toBe(true);
    expect(survivors(tag)).toEqual([]);
  });

  it('kills the whole tree when the caller aborts (client cancellation)', async () => {
    const ex = createExecutor({ concurrency: 2 });
    const ac = new AbortController();
    const { tag, spec } = tagged([sh('sleep 300 & sleep 300'), stage('cat')], { signal: ac.signal });
    setTimeout(() => ac.abort(), 500);
    const t0 = Date.now();
    const r = await ex.run(spec);
    measured.cancelToResponseMs = Date.now() - t0 - 500;
    expect(r.outcome).toBe('canceled'); // answering at all, before the sleep 300 ends, is the proof
    expect(survivors(tag)).toEqual([]);
  });

  it('stops yes at a 64 KiB output limit, keeps exactly the prefix and leaves no process', async () => {
    const ex = createExecutor({ concurrency: 2 });
    const { tag, spec } = tagged([stage('yes')], { outputLimitBytes: 64 * 1024 });
    const t0 = Date.now();
    const r = await ex.run(spec);
    measured.outputLimitToResponseMs = Date.now() - t0;
    expect(r.outcome).toBe('output_limit');
    expect(r.stdoutTruncated).toBe(true);
    expect(r.stdout.length).toBe(64 * 1024);
    expect(r.stdout).toBe('y\n'.repeat(32 * 1024));
    expect(r.stdoutBytes).toBeGreaterThan(64 * 1024);
    expect(r.stderrTruncated).toBe(false);
    expect(survivors(tag)).toEqual([]);
  });

  it('applies the output limit to stderr too, across pipeline stages', async () => {
    const ex = createExecutor({ concurrency: 2 });
    const { tag, spec } = tagged([sh('yes err >&2'), stage('cat')], { outputLimitBytes: 10_000 });
    const r = await ex.run(spec);
    expect(r.outcome).toBe('output_limit');
    expect(r.stderrTruncated).toBe(true);
    expect(Buffer.byteLength(r.stderr)).toBe(10_000);
    expect(survivors(tag)).toEqual([]);
  });

  it('kills running trees and cancels queued calls on shutdown()', async () => {
    const ex = createExecutor({ concurrency: 2 });
    const a = tagged([sh('sleep 300 & sleep 300')]);
    const b = tagged([sh('sleep 300'), stage('cat')]);
    const c = tagged([stage('echo', 'never')]);
    let started = 0;
    const runs = [a, b, c].map((t) => ex.run({ ...t.spec, onStart: () => started++ }));
    await sleep(300);
    expect(ex.active).toBe(2);
    expect(ex.queued).toBe(1);
    const t0 = Date.now();
    await ex.shutdown();
    measured.shutdownMs = Date.now() - t0;
    const results = await Promise.all(runs);
    expect(results.map((r) => r.outcome)).toEqual(['canceled', 'canceled', 'canceled']);
    expect(started).toBe(2);
    expect(results[2]!.stdout).toBe('');
    expect(survivors(a.tag)).toEqual([]);
    expect(survivors(b.tag)).toEqual([]);
    const after = await ex.run(tagged([stage('echo', 'late')]).spec);
    expect(after.outcome).toBe('canceled');
  });

  it('kills a grandchild that escaped the process group with setsid', async () => {
    const ex = createExecutor({ concurrency: 2 });
    const { tag, spec } = tagged([sh('setsid sleep 300 & sleep 300')], { timeoutMs: 1000 });
    const r = await ex.run(spec);
    expect(r.outcome).toBe('timeout');
    measured.setsidSurvivors = survivors(tag).length;
    expect(survivors(tag)).toEqual([]);
  });

  it('kills a setsid-escaped grandchild that also wiped its environment (found through parent links)', async () => {
    const ex = createExecutor({ concurrency: 2 });
    // `env -i` drops the run marker, so only the ppid walk (taken before any signal) can find it. Found
    // afterwards by its unique command line (a pid it printed would be its pid inside a PID namespace).
    const secs = uniqueSeconds();
    const { spec } = tagged([sh(`setsid env -i sleep ${secs} >/dev/null 2>&1 3>&- & sleep 300`)], { timeoutMs: 1000 });
    const r = await ex.run(spec);
    expect(r.outcome).toBe('timeout');
    const left = pidsWithCmdline(['sleep', secs]);
    killAll(left);
    expect(left).toEqual([]);
  });

  it('kills a command that ignores SIGTERM with SIGKILL after the grace', async () => {
    const ex = createExecutor({ concurrency: 2, killGraceMs: 800 });
    const { tag, spec } = tagged([sh('trap "" TERM; sleep 300')], { timeoutMs: 500 });
    const t0 = Date.now();
    const r = await ex.run(spec);
    const elapsed = Date.now() - t0;
    measured.ignoreTermToResponseMs = elapsed;
    expect(r.outcome).toBe('timeout');
    expect(r.signal).toBe('SIGKILL');
    expect(elapsed).toBeGreaterThanOrEqual(1200); // timeout + the whole grace: SIGTERM did nothing
    expect(survivors(tag)).toEqual([]);
  });

  it('leaves nothing behind after a NORMAL exit with background children, and answers at once', async () => {
    const ex = createExecutor({ concurrency: 2 });
    // One holds the stdout pipe, one holds nothing of ours but fd 3, one left the group and holds stdout.
    const cases = [
      sh('sleep 300 & echo done'),
      sh('sleep 300 >/dev/null 2>&1 </dev/null & echo done'),
      // The pause makes sure setsid() has happened before the shell exits (else the group kill wins the race).
      sh('setsid sleep 300 & sleep 0.3; echo done'),
      sh('setsid sleep 300 >/dev/null 2>&1 </dev/null & sleep 0.3; echo done'),
    ];
    for (const c of cases) {
      const { tag, spec } = tagged([c]);
      const t0 = Date.now();
      const r = await ex.run(spec);
      const elapsed = Date.now() - t0;
      measured.normalExitWithBackgroundMaxMs = Math.max(measured.normalExitWithBackgroundMaxMs ?? 0, elapsed);
      expect(r.outcome).toBe('ok');
      expect(r.stdout).toBe('done\n'); // answered while the background sleep 300 still held a pipe, or was killed
      expect(survivors(tag), c.args.join(' ')).toEqual([]);
    }
  });

  it('resolves a queued call that is aborted at once, without starting it', async () => {
    const ex = createExecutor({ concurrency: 1 });
    const slow = tagged([stage('sleep', '2')]);
    const first = ex.run(slow.spec);
    const ac = new AbortController();
    let started = false;
    const queued = ex.run({ ...tagged([stage('echo', 'x')]).spec, signal: ac.signal, onStart: () => (started = true) });
    await sleep(200);
    expect(ex.queued).toBe(1);
    let firstDone = false;
    void first.then(() => (firstDone = true));
    ac.abort();
    const r = await queued;
    // At once: before the call ahead of it (sleep 2) gave up its slot, which is the event that would free it.
    expect(firstDone).toBe(false);
    expect(r.outcome).toBe('canceled');
    expect(r.queueMs).toBeGreaterThanOrEqual(150);
    expect(started).toBe(false);
    expect(ex.queued).toBe(0);
    expect((await first).outcome).toBe('ok');
  });

  it('does not start a call whose signal is already aborted', async () => {
    const ex = createExecutor({ concurrency: 1 });
    const d = dir();
    const r = await ex.run({ ...tagged([stage('touch', 'x')], { cwd: d }).spec, signal: AbortSignal.abort() });
    expect(r.outcome).toBe('canceled');
    expect(fs.readdirSync(d)).toEqual([]);
  });
});
