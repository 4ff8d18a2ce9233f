import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { launchContained, TRIAL_COMMAND, zygoteArgv, zygoteForTests } from '../../../src/core/exec/zygote/client';
import { KERNEL_HEADERS } from '../../helpers/capabilities';
import { skipWithout } from '../../helpers/needs';
import './zygoteMode';
import { sh, sleep, stage, survivors, tagged } from './helpers';

// What is particular to the containment zygote (src/core/exec/zygote); the executor's suites also run through it
// (*.zygote.test.ts). Real Perl processes, real namespaces.
const ex = createExecutor({ concurrency: 4, killGraceMs: 200 });
/** Who an unprivileged server is here: `nobody` when the tests run as root, else the user running them. */
const unprivileged = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
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

  // The zygote blocks SIGCHLD (it reads it through a signalfd) and ignores SIGPIPE; a command inheriting either
  // would misbehave (a shell that never sees its children end, a writer that never dies of a closed pipe).
  it('starts every command with no signal blocked or ignored, on a spare and on the zygote\'s own way', async () => {
    // grep itself, not through sh: dash clears its signal mask when it starts.
    const status = () => stage('grep', '-E', '^Sig(Blk|Ign):', '/proc/self/status');
    const onSpare = await ex.run(tagged([status()]).spec);
    const ownWay = await ex.run(tagged([status(), stage('cat')]).spec);
    const withInput = await ex.run(tagged([status()], { stdin: 'x' }).spec);
    for (const r of [onSpare, ownWay, withInput]) expect(r.stdout).toBe('SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n');
  });

  it('refuses an argument with a NUL byte before anything starts (it would shift every later field)', async () => {
    const r = await ex.run(tagged([stage('echo', 'a\0b')]).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/NUL byte/);
  });

  it('refuses a pipeline whose stages disagree on their containment, instead of starting it uncontained', async () => {
    const { tag, spec } = tagged([stage('echo', 'x'), { file: 'cat', args: [] }]);
    const r = await ex.run(spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/disagree on how they are contained/);
    expect(survivors(tag)).toEqual([]);
  });

  it('gives a command its end of input at once, and closes its own copies of every call\'s pipes soon after each call', async () => {
    const fds = () => fs.readdirSync(`/proc/${zygoteForTests().pid}/fd`).length;
    await ex.run(tagged([stage('echo', 'warm')]).spec);
    await sleep(200);
    const idle = fds();
    // The copy of the input pipe's write end is closed at once: `cat` sees the end of its input, no delay.
    const t0 = performance.now();
    const cat = await ex.run({ ...tagged([{ file: 'cat', args: [] }]).spec, stdin: 'typed\n' });
    expect(cat.stdout).toBe('typed\n');
    expect(performance.now() - t0).toBeLessThan(1000);
    // The others ride on the next request or follow alone a moment later: nothing is left held.
    for (let i = 0; i < 5; i++) await ex.run(tagged([stage('echo', String(i))]).spec);
    await sleep(300);
    expect(fds()).toBe(idle);
  });

  it('runs on perl alone, without loading a module (a fork copies and faults on every page of its heap)', () => {
    const status = fs.readFileSync(`/proc/${zygoteForTests().pid}/status`, 'utf8');
    const anonKb = Number(/^RssAnon:\s+(\d+) kB/m.exec(status)?.[1]);
    // ~0.8 MB here; POSIX alone would add 2 MB. Loose enough for another perl build, tight enough for a module.
    expect(anonKb).toBeLessThan(1800);
  });

  it('is given this machine\'s open() flags, which are perl\'s own (Fcntl) for them', () => {
    const args = zygoteArgv('/usr/bin/perl');
    const flags = args.find((a) => a.startsWith('--flags='))!.slice(8).split(',').map(Number);
    const perl = spawnSync('/usr/bin/perl', ['-MFcntl', '-e', 'print join(",", 010000000, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_APPEND, O_WRONLY)'], { encoding: 'utf8' });
    expect(flags).toEqual(perl.stdout.split(',').map(Number));
  });

  // The system call numbers are a table per ABI in the script: checked here against the kernel's own headers for
  // the ABIs whose headers this machine has (linux-libc-dev); the others come from the kernel's syscall.tbl.
  it('uses the kernel\'s system call numbers for each ABI it knows (checked against the headers here)', (ctx) => {
    skipWithout(ctx, 'kernel-headers');
    const available = Object.entries(KERNEL_HEADERS).filter(([, file]) => fs.existsSync(file));
    const script = fs.readFileSync(path.join(__dirname, '../../../src/core/exec/zygote/zygote.pl'), 'utf8');
    const NAMES = ['unshare', 'prctl', 'setns', 'exit_group', 'setsid', 'dup3', 'rt_sigprocmask', 'close', 'execve', 'pipe2', 'signalfd4'];
    for (const [abi, file] of available) {
      const row = new RegExp(`'${abi}' => \\[([\\d, ]+)\\]`).exec(script);
      expect(row, abi).not.toBeNull();
      const header = fs.readFileSync(file, 'utf8');
      const nr = (name: string) => Number(new RegExp(`#define __NR_${name}\\s+(\\d+)`).exec(header)?.[1]);
      expect(row![1]!.split(',').map(Number), `${abi} (${file})`).toEqual(NAMES.map(nr));
      expect(nr('close_range')).toBe(436);
    }
    // The zygote's one constant for pipe2(): the generic O_CLOEXEC (02000000), which every ABI it knows uses.
    const fcntl = ['/usr/include/asm-generic/fcntl.h'].filter((f) => fs.existsSync(f));
    for (const f of fcntl) expect(/#define O_CLOEXEC\s+(\d+)/.exec(fs.readFileSync(f, 'utf8'))?.[1]).toBe('02000000');
    expect(script).toMatch(/\$O_CLOEXEC\) = \(436, 0x80000\)/);
    // And the signals it blocks and resets by number: the same on every ABI it knows.
    expect(script).toMatch(/\$SIG_BLOCK, \$SIG_SETMASK, \$SIGCHLD\) = \([^)]*0, 2, 17\)/);
    expect(os.constants.signals.SIGCHLD).toBe(17);
  });

  it('refuses to start without its open() flags, saying what is missing', () => {
    const [perl, ...args] = zygoteArgv('/usr/bin/perl', ['/', '-', ...TRIAL_COMMAND]);
    const r = spawnSync(perl!, args.filter((a) => !a.startsWith('--flags=')), { encoding: 'utf8', timeout: 10_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL no open\(\) flags given/);
  });

  it('starts a command by its path with exactly the given environment, and a script without #! through /bin/sh as Node\'s spawn does', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-zygote-exec-'));
    try {
      const script = path.join(dir, 'no-shebang');
      fs.writeFileSync(script, 'echo "from sh: $ONLY"\n', { mode: 0o755 });
      const { spec } = tagged([{ file: script, args: [] }]);
      const r = await ex.run({ ...spec, env: { ONLY: 'this', PATH: '/usr/bin:/bin' } });
      expect(r.stdout).toBe('from sh: this\n');
      const env = await ex.run({ ...tagged([{ file: '/usr/bin/env', args: [] }]).spec, env: { ONLY: 'this', PATH: '/usr/bin:/bin' } });
      expect(env.stdout.split('\n').filter((l) => l && !l.startsWith('GUARDED_SHELL_RUN=')).sort()).toEqual(['ONLY=this', 'PATH=/usr/bin:/bin']);
      const missing = await ex.run(tagged([{ file: path.join(dir, 'missing'), args: [] }]).spec);
      expect(missing.outcome).toBe('error');
      expect(missing.error).toMatch(/ENOENT/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // A one-stage call is handed to a spare that was forked ahead (zygote.pl, "spares"), which checks the folder
  // itself after the launch: a folder swapped meanwhile (here: the held folder is another one than the path) is
  // refused there too, and nothing runs in it.
  it('refuses a working directory that is not the one the server holds, also on a spare, and runs nothing there', async () => {
    const held = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-zygote-held-'));
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-zygote-other-'));
    const fd = fs.openSync(held, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    try {
      await ex.run(tagged([stage('echo', 'a spare is forked after this')]).spec);
      for (let i = 0; i < 50 && zygoteForTests().spares.length === 0; i++) await sleep(20);
      expect(zygoteForTests().spares.length).toBeGreaterThan(0);
      const outcome = await launchContained('/usr/bin/perl', {
        stages: [{ file: '/usr/bin/touch', argv0: 'touch', args: ['made-here'] }],
        env: { PATH: '/usr/bin:/bin' },
        cwd: { path: other, fd },
        stdin: 'null',
        stdout: 'pipe',
      }).then(
        ([child]) => new Promise<string>((resolve) => {
          for (const s of child!.stdio) s?.resume();
          child!.once('error', (e: Error) => resolve(e.message));
          child!.once('close', (code) => resolve(`ran, exit ${code}`));
        }),
        (e: Error) => e.message,
      );
      expect(outcome).toBe(`cannot use the working directory ${other}: it is not the one that was checked (it changed meanwhile)`);
      expect(fs.readdirSync(other)).toEqual([]);
      expect(fs.readdirSync(held)).toEqual([]);
    } finally {
      fs.closeSync(fd);
      fs.rmSync(held, { recursive: true, force: true });
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  // Two spares (spares.ts, SPARES): a client that calls again at once, or two calls in flight, find one ready
  // while the other is forked. `readlink /proc/self` prints the host pid of the process that runs it: the spare
  // itself, exec'd, when the call was handed to one.
  it('runs two calls in flight at once on the two spares forked before they came, and forks two more after them', async () => {
    await ex.run(tagged([stage('echo', 'spares are forked after this')]).spec);
    for (let i = 0; i < 100 && zygoteForTests().spares.length < 2; i++) await sleep(20);
    const before = zygoteForTests().spares;
    expect(before).toHaveLength(2);
    const runs = await Promise.all([1, 2].map(() => ex.run(tagged([stage('readlink', '/proc/self')]).spec)));
    expect(runs.map((r) => Number(r.stdout.trim())).sort()).toEqual([...before].sort());
    for (let i = 0; i < 100 && zygoteForTests().spares.length < 2; i++) await sleep(20);
    const after = zygoteForTests().spares;
    expect(after).toHaveLength(2);
    expect(after.filter((p) => before.includes(p))).toEqual([]);
  });

  // A spare's order goes into its empty control pipe in one write when it fits (64 KiB), the rest through a stream.
  it('hands a spare an order larger than its control pipe holds (200 KB of arguments) in full', async () => {
    await ex.run(tagged([stage('echo', 'spares are forked after this')]).spec);
    for (let i = 0; i < 100 && zygoteForTests().spares.length === 0; i++) await sleep(20);
    const spares = zygoteForTests().spares;
    expect(spares.length).toBeGreaterThan(0);
    const [a, b] = ['a'.repeat(100_000), 'b'.repeat(100_000)];
    // cut's parent, as the host sees it (its /proc), is the shell: the process the order started.
    const r = await ex.run(tagged([stage('sh', '-c', 'cut -d" " -f4 /proc/self/stat; printf %s "$1$2" | wc -c', 'sh', a, b)]).spec);
    const [pid, bytes] = r.stdout.trim().split('\n');
    expect(spares).toContain(Number(pid)); // it ran on a spare
    expect(Number(bytes)).toBe(200_000);
  });

  // A stage's output is read when it has ended, or streamed once it runs on (pipeReader.ts): a command that writes
  // more than its pipes hold must not wait for a reader that only comes at its end.
  it('gives a command that writes more than its pipes hold all of its output: on a spare, in a pipeline, with input', async () => {
    const write = sh('head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2');
    const onSpare = await ex.run(tagged([write]).spec);
    const inPipeline = await ex.run(tagged([write, stage('cat')]).spec);
    const withInput = await ex.run(tagged([sh('cat; head -c 200000 /dev/zero >&2')], { stdin: 'z'.repeat(300_000) }).spec);
    for (const r of [onSpare, inPipeline, withInput]) {
      expect(r.outcome).toBe('ok');
      expect([r.stdoutBytes, r.stderrBytes]).toEqual([300_000, 200_000]);
    }
  });

  // The output of a stage that ended at once is read after it was reaped: passing the output limit then must not
  // signal its process group, which is no longer the call's (the pid may be another process's by now).
  it('cuts the output of a stage that ended before it was read at the limit, and signals no group once it was reaped', async () => {
    // Read only at the stage's end, however late its end is seen on a loaded machine.
    zygoteForTests().streamAfter(60_000);
    const kill = vi.spyOn(process, 'kill');
    try {
      const r = await ex.run(tagged([stage('head', '-c', '50000', '/dev/zero')], { outputLimitBytes: 16_384, outputLimitAction: 'kill' }).spec);
      expect(r.outcome).toBe('output_limit');
      expect([r.stdout.length, r.stdoutTruncated]).toEqual([16_384, true]);
      expect(kill.mock.calls.filter(([pid]) => pid < 0)).toEqual([]);
    } finally {
      kill.mockRestore();
      zygoteForTests().streamAfter();
    }
  });

  it('hands a stage no descriptor but its stdin, stdout and stderr (no other call\'s pipes, not the zygote\'s channel)', async () => {
    const r = await ex.run(tagged([stage('ls', '-1', '/proc/self/fd')]).spec);
    expect(r.stdout.trim().split('\n')).toEqual(['0', '1', '2', '3']); // 3: the directory ls itself is reading
  });

  it('does not let one call hold another call\'s pipes open (a later call ends at once beside a long one)', async () => {
    const long = ex.run(tagged([sh('sleep 5')]).spec);
    let longDone = false;
    void long.then(() => (longDone = true));
    const quick = await ex.run(tagged([stage('echo', 'quick')]).spec);
    expect(quick.stdout).toBe('quick\n');
    expect(longDone).toBe(false); // the event, not a time: the quick call did not wait for the long one's end
    expect((await long).outcome).toBe('ok');
  });

  // As root the zygote makes namespaces as is; an unprivileged server gets them inside a user namespace that maps
  // only its own uid and gid, from where it cannot read the server's /proc/<pid>/fd: it opens the checked folder
  // by its path and accepts it only as the object the server holds (device:inode). Run as `nobody` when the
  // tests run as root, else as the (already unprivileged) user running them.
  it('as an unprivileged user, runs commands in a user namespace as that same user, in the checked folder, and refuses a folder that is not the checked one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-zygote-userns-'));
    try {
      fs.chmodSync(dir, 0o777);
      const st = fs.statSync(dir, { bigint: true });
      const trial = (id: string) =>
        spawnSync('/usr/bin/perl', zygoteArgv('/usr/bin/perl', [dir, id, '/bin/sh', '-c', `touch made; pwd > where; ${TRIAL_COMMAND[2]}`]).slice(1), { ...unprivileged, timeout: 10_000 });
      expect(trial(`${st.dev}:${st.ino}`).status).toBe(3); // PID 1 of a new namespace
      expect(fs.statSync(path.join(dir, 'made')).uid).toBe(unprivileged.uid);
      expect(fs.readFileSync(path.join(dir, 'where'), 'utf8').trim()).toBe(dir);
      fs.rmSync(path.join(dir, 'where'));
      const refused = trial(`${st.dev}:${st.ino + 1n}`);
      expect(refused.status).toBe(125);
      expect(refused.stdout.toString()).toMatch(/it is not the one that was checked/);
      expect(fs.existsSync(path.join(dir, 'where'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A leak per call shows in the heap after a full collection, whatever V8 does with its heap size (the stress
// suite's RSS figures move with the allocation rate). Real commands through the real zygote.
describe('containment zygote memory', () => {
  // A leak grows the heap in every thousand; V8's own one-time growth (code and feedback of a function it
  // optimized late, ~0.6 MB) shows in one thousand only: the smaller of two windows' growths is judged.
  it('leaks no heap over 3,000 commands (heap after a full GC, at each thousand)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const heapAfterGc = (): number => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const thousand = async (): Promise<number> => {
      for (let i = 0; i < 1000; i += 16) {
        const rs = await Promise.all(Array.from({ length: 16 }, () => ex.run(tagged([stage('echo', 'x')]).spec)));
        for (const r of rs) expect(r.stdout).toBe('x\n');
      }
      return heapAfterGc();
    };
    const heaps = [await thousand(), await thousand(), await thousand()];
    const growths = [heaps[1]! - heaps[0]!, heaps[2]! - heaps[1]!];
    console.log(`zygote: heap after GC ${heaps.map((h) => `${(h / 1048576).toFixed(2)} MB`).join(', ')} after 1,000 / 2,000 / 3,000 commands`);
    expect(Math.min(...growths)).toBeLessThan(512 * 1024); // a kilobyte kept per command fails (V8's own ups and downs: ±0.2 MB)
  }, 180_000);
});
