import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createExecutor } from '../../src/core/exec/executor';
import { findForkServer, forkServerForTests } from '../../src/core/exec/launch/forkServer';
import { createLinuxLauncher } from '../../src/core/exec/launch/linux';
import { O_PATH } from '../../src/core/paths/fdpath';
import { descendantsOf, readProcStat } from '../../src/core/exec/processes';
import { describeWith } from '../helpers/needs';
import './modes/forkServer';
import { sh, sleep, stage, survivors, tagged } from '../unit/exec/helpers';
import { commOf } from '../helpers/procs';

// What is particular to the Linux launcher's fork server (src/core/exec/launch/forkServer.ts): its own end, and what
// it refuses. The conformance suite runs everything else through it (executor.forkServer.test.ts, basics, container).
const ex = createExecutor({ concurrency: 2, killGraceMs: 300 });
afterAll(() => ex.shutdown());

/**
 * Polls `cond` for up to `ms` (slow on a busy machine); true once it held. Not evaluated again at the end: a count of
 * processes read from /proc moves while a shell forks and execs, and a second look could miss what the first saw.
 */
const until = async (cond: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (cond()) return true;
  return cond();
};

describeWith('fork-server')('the launcher\'s fork server', () => {
  it('runs a stage as PID 2 of a namespace of its own (under an init it cannot reach), forked by the running fork server', async () => {
    const r = await ex.run(tagged([sh('echo $$; cat /proc/1/comm; ls /proc | grep -c "^[0-9]"')]).spec);
    // Its init (by the name reach-container signals), the shell, ls and grep: nothing else is in sight.
    expect(r.stdout).toBe('2\nguarded-shell-i\n4\n');
    expect(forkServerForTests().pid).toBeGreaterThan(1);
  });

  it('runs every stage of a pipeline, and a call with input, each in namespaces of its own', async () => {
    const r = await ex.run(tagged([sh('echo $$'), stage('cat')], { stdin: undefined }).spec);
    expect(r.stdout).toBe('2\n');
    const withInput = await ex.run(tagged([sh('cat; echo $$')], { stdin: 'in\n' }).spec);
    expect(withInput.stdout).toBe('in\n2\n');
  });

  it('runs a long pipeline (80 stages, each in namespaces of its own) and reports every stage', async () => {
    const r = await ex.run(tagged([sh('echo through'), ...Array.from({ length: 79 }, () => stage('cat'))], { timeoutMs: 60_000 }).spec);
    expect([r.outcome, r.stdout, r.stages.length]).toEqual(['ok', 'through\n', 80]);
  }, 90_000);

  it('lets a pipeline\'s writer die of SIGPIPE when its reader ends, as in a shell (yes | head -n 1), and a command without a handler die of SIGTERM at once', async () => {
    // A command that is its namespace's PID 1 would outlive both: the kernel drops an init's SIGPIPE (yes would print
    // "Broken pipe" and exit 1) and a SIGTERM it has no handler for (sleep would run on for the whole grace).
    const r = await ex.run(tagged([stage('yes'), stage('head', '-n', '1')]).spec);
    expect([r.outcome, r.stdout, r.stderr]).toEqual(['ok', 'y\n', '']);
    expect(r.stages[0]).toEqual({ exitCode: null, signal: 'SIGPIPE' });
    const slow = createExecutor({ concurrency: 1, killGraceMs: 60_000 });
    try {
      const started = Date.now();
      const stopped = await slow.run(tagged([stage('sleep', '300')], { timeoutMs: 300 }).spec);
      expect([stopped.outcome, stopped.signal]).toEqual(['timeout', 'SIGTERM']);
      expect(Date.now() - started).toBeLessThan(30_000); // far below the 60 s grace: the SIGTERM itself ended it
    } finally {
      await slow.shutdown();
    }
  });

  it('keeps nothing of a call once it ended, and no process of its own between calls (even while a background call runs)', async () => {
    // A stage's process, its namespace's init and its command are the fork server's only descendants, while they run.
    const below = () => {
      const server = forkServerForTests().pid;
      return server ? descendantsOf([server]).map(commOf) : [];
    };
    const { tag, spec } = tagged([stage('sleep', '300')], { timeoutMs: 60_000 });
    const ac = new AbortController();
    const long = ex.run({ ...spec, signal: ac.signal });
    try {
      expect(await until(() => survivors(tag).length === 1, 40_000)).toBe(true);
      expect((await ex.run(tagged([stage('echo', 'short')]).spec)).stdout).toBe('short\n');
      // The long call's stage process (a fork of the fork server, by its name), its init and its sleep: the short
      // call left nothing, and no spare waits.
      expect(await until(() => below().length === 3, 40_000), `below: ${below()}`).toBe(true);
      expect(below().filter((n) => n === 'guarded-shell-i')).toHaveLength(1);
      // It leads a session of its own (field 6 of its stat): not the server's, so never the server's terminal.
      const [stageProcess] = descendantsOf([forkServerForTests().pid!]).filter((pid) => readProcStat(pid)?.ppid === forkServerForTests().pid);
      const session = Number(fs.readFileSync(`/proc/${stageProcess}/stat`, 'latin1').split(') ')[1]!.split(' ')[3]);
      expect([session, readProcStat(stageProcess!)?.pgid]).toEqual([stageProcess, stageProcess]);
    } finally {
      ac.abort();
      await long;
    }
    expect(await until(() => below().length === 0, 40_000), `below: ${below()}`).toBe(true);
  }, 90_000);

  it('ends a call whose fork server is killed with a clear error, leaves none of its processes, and starts a new one for the next call', async () => {
    const { tag, spec } = tagged([sh('sleep 300 & sleep 300')], { timeoutMs: 60_000 });
    const pending = ex.run(spec);
    // Both sleeps run (or the call ended early: then say how, for the log). A machine with every core taken by
    // other jobs can take seconds to start a call: the wait is long, the test is not about speed.
    const early = pending.then((r) => `the call ended before its fork server was killed: ${JSON.stringify(r)}`);
    const shown = until(() => survivors(tag).length >= 2, 40_000).then((ok) => (ok ? 'running' : `its processes never showed (${survivors(tag).length} of 2; fork server ${forkServerForTests().pid})`));
    expect(await Promise.race([shown, early])).toBe('running');
    const first = forkServerForTests().pid;
    forkServerForTests().kill();
    const r = await pending;
    expect(r.outcome, JSON.stringify(r)).toBe('error');
    expect(r.error).toMatch(/fork server ended/);
    expect(await until(() => survivors(tag).length === 0)).toBe(true);
    expect((await ex.run(tagged([stage('echo', 'again')]).spec)).stdout).toBe('again\n');
    expect(forkServerForTests().pid).not.toBe(first);
  }, 90_000);

  it('writes a pipeline\'s output to the checked file (appending when told), and refuses a file swapped for another after the check', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-fork-server-out-')));
    const file = path.join(dir, 'out.txt');
    const folder = fs.openSync(dir, O_PATH | fs.constants.O_DIRECTORY);
    try {
      fs.writeFileSync(file, 'old\n');
      const r = await ex.run({ ...tagged([stage('echo', 'one'), stage('cat')]).spec, cwd: dir, stdoutFile: { path: file, append: true } });
      expect([r.outcome, fs.readFileSync(file, 'utf8')]).toEqual(['ok', 'old\none\n']);
      // The server checked and holds this file; then another takes its name. The fork server opens the name again,
      // finds another file and refuses: nothing runs, neither file is written.
      const held = fs.openSync(file, 'a');
      fs.renameSync(file, `${file}.checked`);
      fs.writeFileSync(file, '');
      const launcher = createLinuxLauncher({ containment: { kind: 'fork-server', binary: findForkServer()! } });
      const started = launcher.start({
        stages: [launcher.prepare({ file: '/bin/echo', args: ['swapped'] }), launcher.prepare({ file: '/bin/cat', args: [] })],
        env: { PATH: '/usr/bin:/bin' },
        cwd: { real: dir, path: dir, fd: folder },
        stdin: 'ignore',
        stdout: { fd: held, path: file, append: true },
      });
      await expect(started).rejects.toThrow(/out\.txt is not the one that was checked/);
      fs.closeSync(held);
      expect([fs.readFileSync(`${file}.checked`, 'utf8'), fs.readFileSync(file, 'utf8')]).toEqual(['old\none\n', '']);
    } finally {
      fs.closeSync(folder);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts only a binary no one but its owner can change, and runs the very file it checked (by its descriptor)', async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-fork-server-bin-')));
    const copy = path.join(dir, 'guarded-shell-launcher');
    const folder = fs.openSync(dir, O_PATH | fs.constants.O_DIRECTORY);
    try {
      fs.copyFileSync(findForkServer()!, copy);
      fs.chmodSync(copy, 0o775); // group-writable: another user could put their program in its place
      const launcher = createLinuxLauncher({ containment: { kind: 'fork-server', binary: copy } });
      const call = { stages: [launcher.prepare({ file: '/bin/echo', args: ['x'] })], env: { PATH: '/usr/bin:/bin' }, cwd: { real: dir, path: dir, fd: folder }, stdin: 'ignore' as const, stdout: 'pipe' as const };
      forkServerForTests().kill(); // the next call starts a fork server from this binary
      await sleep(100);
      await expect(launcher.start(call)).rejects.toThrow(/is not a fork server this server may run/);
      fs.chmodSync(copy, 0o755);
      const [stage] = await launcher.start(call);
      stage!.stdout?.resume();
      stage!.stderr?.resume();
      await new Promise((resolve) => stage!.once('close', resolve));
      const server = forkServerForTests().pid!;
      // The process runs the file that was checked, started through the descriptor the server held ("/proc/self/fd/3").
      expect(fs.statSync(`/proc/${server}/exe`).ino).toBe(fs.statSync(copy).ino);
      expect(fs.readdirSync(`/proc/${server}/fd`).map(Number).filter((fd) => fd > 2 && fs.readlinkSync(`/proc/${server}/fd/${fd}`) === copy)).toEqual([]);
    } finally {
      forkServerForTests().kill(); // the next test starts the usual one again
      fs.closeSync(folder);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an argument with a NUL byte before anything starts (it would shift every later field)', async () => {
    const r = await ex.run(tagged([sh('echo a\0b'), stage('cat')]).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/NUL byte/);
  });
});
