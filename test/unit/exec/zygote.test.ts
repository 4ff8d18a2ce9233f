import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { TRIAL_COMMAND, zygoteForTests } from '../../../src/core/exec/zygote/client';
import ZYGOTE_SCRIPT from '../../../src/core/exec/zygote/zygote.pl';
import './zygoteMode';
import { sh, sleep, stage, survivors, tagged } from './helpers';

// What is particular to the containment zygote (src/core/exec/zygote); the executor's suites also run through it
// (*.zygote.test.ts). Real Perl processes, real namespaces.
const ex = createExecutor({ concurrency: 4, killGraceMs: 200 });
afterAll(() => ex.shutdown());

describe('containment zygote', () => {
  it('runs each stage as PID 1 of its own PID namespace, and the same command twice in two namespaces', async () => {
    const r = await ex.run(tagged([sh('echo $$; readlink /proc/self/ns/pid')]).spec);
    const again = await ex.run(tagged([sh('readlink /proc/self/ns/pid')]).spec);
    const [pid, ns] = r.stdout.trim().split('\n');
    expect(pid).toBe('1');
    expect(ns).toMatch(/^pid:\[\d+\]$/);
    expect(again.stdout.trim()).not.toBe(ns);
    expect(ns).not.toBe(fs.readlinkSync('/proc/self/ns/pid'));
  });

  it('ends a call whose zygote is killed with a clear error, leaves none of its processes, and starts a new zygote for the next call', async () => {
    const { tag, spec } = tagged([sh('sleep 300 & sleep 300')]);
    const pending = ex.run(spec);
    for (let i = 0; i < 100 && survivors(tag).length < 2; i++) await sleep(20);
    const first = zygoteForTests().pid;
    expect(first).toBeGreaterThan(1);
    zygoteForTests().kill();
    const r = await pending;
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/containment process ended/);
    await sleep(100);
    expect(survivors(tag)).toEqual([]);
    const next = await ex.run(tagged([stage('echo', 'again')]).spec);
    expect(next.stdout).toBe('again\n');
    expect(zygoteForTests().pid).not.toBe(first);
  });

  it('refuses an argument with a NUL byte before anything starts (it would shift every later field)', async () => {
    const r = await ex.run(tagged([stage('echo', 'a\0b')]).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/NUL byte/);
  });

  it('hands a stage no descriptor but its stdin, stdout and stderr (no other call\'s pipes, not the zygote\'s channel)', async () => {
    const r = await ex.run(tagged([stage('ls', '-1', '/proc/self/fd')]).spec);
    expect(r.stdout.trim().split('\n')).toEqual(['0', '1', '2', '3']); // 3: the directory ls itself is reading
  });

  it('does not let one call hold another call\'s pipes open (a later call ends at once beside a long one)', async () => {
    const long = ex.run(tagged([sh('sleep 2')]).spec);
    const t0 = performance.now();
    const quick = await ex.run(tagged([stage('echo', 'quick')]).spec);
    expect(quick.stdout).toBe('quick\n');
    expect(performance.now() - t0).toBeLessThan(1500);
    expect((await long).outcome).toBe('ok');
  });

  // As root the zygote makes namespaces as is; an unprivileged server gets them inside a user namespace that maps
  // only its own uid and gid. Run the zygote as `nobody` to take that path here too.
  it.skipIf(process.getuid?.() !== 0)('as an unprivileged user, runs commands in a user namespace as that same user (files it creates are its own)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-zygote-userns-'));
    try {
      fs.chmodSync(dir, 0o777);
      const file = path.join(dir, 'made');
      const trial = spawnSync('/usr/bin/perl', ['-e', ZYGOTE_SCRIPT, '--', '--trial', '/bin/sh', '-c', `touch ${file}; ${TRIAL_COMMAND[2]}`], { uid: 65534, gid: 65534, timeout: 10_000 });
      expect(trial.status).toBe(3); // PID 1 of a new namespace
      expect(fs.statSync(file).uid).toBe(65534);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
