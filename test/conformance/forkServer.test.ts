import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createExecutor } from '../../src/core/exec/executor';
import { forkServerForTests } from '../../src/core/exec/launch/forkServer';
import { O_PATH } from '../../src/core/paths/fdpath';
import { describeWith } from '../helpers/needs';
import { conformancePath, makeWorkspace } from './paths';
import './modes/forkServer';
import { sh, sleep, stage, survivors, tagged } from '../unit/exec/helpers';

// What is particular to the Linux launcher's fork server (src/core/exec/launch/forkServer.ts): its spare, and its
// own end. The conformance suite runs everything else through it (executor.forkServer.test.ts, basics, container).
const ex = createExecutor({ concurrency: 2, killGraceMs: 300 });
const ws = makeWorkspace();
afterAll(async () => {
  await ex.shutdown();
  ws.remove();
});

/** Polls `cond` for up to `ms` (a spare is made by three execs and a perl: slow on a busy machine). */
const until = async (cond: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(20);
  return cond();
};

describeWith('fork-server')('the launcher\'s fork server', () => {
  it('runs a one-stage call with no input on the spare it made ahead, then makes the next one', async () => {
    await ex.run(tagged([stage('true')]).spec);
    expect(await until(() => forkServerForTests().spare !== undefined)).toBe(true);
    const spare = forkServerForTests().spare!;
    const r = await ex.run(tagged([sh('echo $$; ls /proc | grep -c "^[0-9]"')]).spec);
    expect(r.stdout.trim().split('\n')[0]).toBe('1'); // PID 1 of a namespace of its own, as any stage
    expect(await until(() => forkServerForTests().spare !== undefined && forkServerForTests().spare !== spare)).toBe(true);
  });

  it('runs pipelines and calls with input the fork server\'s own way (a fork per stage), in namespaces of their own', async () => {
    const r = await ex.run(tagged([sh('echo $$'), stage('cat')], { stdin: undefined }).spec);
    expect(r.stdout).toBe('1\n');
    const withInput = await ex.run(tagged([sh('cat; echo $$')], { stdin: 'in\n' }).spec);
    expect(withInput.stdout).toBe('in\n1\n');
  });

  it('refuses, on the spare, a folder swapped for a link after the check: nothing runs', async () => {
    await ex.run(tagged([stage('true')]).spec);
    expect(await until(() => forkServerForTests().spare !== undefined)).toBe(true);
    const way = await conformancePath('fork-server', ws);
    const dir = path.join(ws.root, 'swapped');
    fs.mkdirSync(dir);
    const fd = fs.openSync(dir, O_PATH | fs.constants.O_DIRECTORY);
    try {
      fs.renameSync(dir, `${dir}.moved`);
      fs.symlinkSync('/etc', dir);
      const [s] = await way.launcher.start({ stages: [way.prepare({ file: '/usr/bin/touch', args: ['ran'] }, dir)], env: { PATH: '/usr/bin:/bin' }, cwd: { real: dir, path: dir, fd }, stdin: 'ignore', stdout: 'pipe' });
      const why = await new Promise<string>((resolve) => s!.once('error', (e: Error) => resolve(e.message)));
      expect(why).toMatch(/is not the one that was checked/);
      expect(fs.existsSync('/etc/ran') || fs.existsSync(path.join(`${dir}.moved`, 'ran'))).toBe(false);
    } finally {
      fs.closeSync(fd);
    }
  });

  it('replaces a spare killed while it waits, and the next call still runs', async () => {
    await ex.run(tagged([stage('true')]).spec);
    expect(await until(() => forkServerForTests().spare !== undefined)).toBe(true);
    const dead = forkServerForTests().spare!;
    process.kill(dead, 'SIGKILL');
    expect(await until(() => forkServerForTests().spare !== undefined && forkServerForTests().spare !== dead)).toBe(true);
    expect((await ex.run(tagged([stage('echo', 'after')]).spec)).stdout).toBe('after\n');
  });

  it('ends a call whose fork server is killed with a clear error, leaves none of its processes, and starts a new one for the next call', async () => {
    const { tag, spec } = tagged([sh('sleep 300 & sleep 300')]);
    const pending = ex.run(spec);
    expect(await until(() => survivors(tag).length >= 2)).toBe(true);
    const first = forkServerForTests().pid;
    forkServerForTests().kill();
    const r = await pending;
    expect(r.outcome, JSON.stringify(r)).toBe('error');
    expect(r.error).toMatch(/fork server ended/);
    expect(await until(() => survivors(tag).length === 0)).toBe(true);
    expect((await ex.run(tagged([stage('echo', 'again')]).spec)).stdout).toBe('again\n');
    expect(forkServerForTests().pid).not.toBe(first);
  });

  it('refuses an argument with a NUL byte before anything starts (it would shift every later field)', async () => {
    const r = await ex.run(tagged([sh('echo a\0b'), stage('cat')]).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/NUL byte/);
  });
});
