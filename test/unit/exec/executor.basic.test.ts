import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { sh, stage, tagged, tempDir } from './helpers';

const executor = createExecutor({ concurrency: 4 });
const dirs: string[] = [];
afterAll(async () => {
  await executor.shutdown();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

describe('executor: running commands', () => {
  it('returns the output and exit code 0 of echo', async () => {
    const r = await executor.run(tagged([stage('echo', 'hello', 'world')]).spec);
    expect(r.outcome).toBe('ok');
    expect(r.exitCode).toBe(0);
    expect(r.signal).toBeNull();
    expect(r.stdout).toBe('hello world\n');
    expect(r.stderr).toBe('');
    expect(r.stdoutBytes).toBe(12);
    expect(r.stdoutTruncated).toBe(false);
    expect(r.stages).toEqual([{ exitCode: 0, signal: null }]);
  });

  it('reports a non-zero exit as failed and still returns both streams', async () => {
    const r = await executor.run(tagged([sh('echo out; echo err >&2; exit 3')]).spec);
    expect(r.outcome).toBe('failed');
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('out\n');
    expect(r.stderr).toBe('err\n');
  });

  it('does not run arguments through a shell (metacharacters stay literal)', async () => {
    const d = dir();
    const r = await executor.run(tagged([stage('echo', '$(touch pwned); `touch pwned2`', '&&', 'touch', 'pwned3')], { cwd: d }).spec);
    expect(r.stdout).toBe('$(touch pwned); `touch pwned2` && touch pwned3\n');
    expect(fs.readdirSync(d)).toEqual([]);
  });

  it('runs in the given working directory with exactly the given environment plus the run marker', async () => {
    const d = dir();
    const { spec } = tagged([stage('sh', '-c', 'pwd; env | sort')], { cwd: d });
    const r = await executor.run({ ...spec, env: { PATH: spec.env.PATH!, ONLY_THIS: 'yes' } });
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(fs.realpathSync(d));
    const names = lines.slice(1).map((l) => l.split('=')[0]).filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n!));
    expect(names.sort()).toEqual(['GUARDED_SHELL_RUN', 'ONLY_THIS', 'PATH']);
    expect(lines.find((l) => l.startsWith('GUARDED_SHELL_RUN='))).toMatch(/^GUARDED_SHELL_RUN=[0-9a-f]{24}$/);
  });

  it('finds commands through the child PATH only, not the server PATH', async () => {
    const { spec } = tagged([stage('echo', 'x')]);
    const r = await executor.run({ ...spec, env: { PATH: '/nonexistent-dir' } });
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/ENOENT/);
  });

  it('reports a missing program as an error result instead of throwing', async () => {
    const r = await executor.run(tagged([stage('no-such-program-gs', '--x')]).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toBe('spawn no-such-program-gs ENOENT');
    expect(r.exitCode).toBeNull();
  });

  it('reports a non-executable file as an error (EACCES)', async () => {
    const d = dir();
    const f = path.join(d, 'not-exec');
    fs.writeFileSync(f, 'echo hi\n', { mode: 0o644 });
    const r = await executor.run(tagged([stage(f)]).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/EACCES/);
  });

  it('names a missing working directory instead of blaming the program', async () => {
    const r = await executor.run(tagged([stage('echo', 'x')], { cwd: '/nonexistent-gs-dir' }).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toBe('working directory /nonexistent-gs-dir does not exist');
  });

  it('fails the whole pipeline, and kills the started stages, when a later stage cannot start', async () => {
    const { spec } = tagged([stage('sleep', '300'), stage('no-such-program-gs')]);
    // Resolving at all proves the started stage was killed: its sleep 300 outlasts the test's timeout.
    const r = await executor.run(spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toBe('spawn no-such-program-gs ENOENT');
  });
});

describe('executor: pipelines', () => {
  it('pipes seq 1 100000 into wc -l and counts 100000', async () => {
    const r = await executor.run(tagged([stage('seq', '1', '100000'), stage('wc', '-l')]).spec);
    expect(r.outcome).toBe('ok');
    expect(r.stdout.trim()).toBe('100000');
    expect(r.stages).toHaveLength(2);
    expect(r.stages.every((s) => s.exitCode === 0)).toBe(true);
  });

  it('runs the stages concurrently (the first stage only finishes once the second has started)', async () => {
    const d = dir();
    // Run one after the other, stage 1 would wait forever for stage 2's file and the call would time out.
    const first = sh('i=0; while [ ! -e started2 ]; do i=$((i+1)); [ $i -gt 200 ] && exit 9; sleep 0.05; done; echo first-saw-second');
    const second = sh('touch started2; cat');
    const r = await executor.run(tagged([first, second], { cwd: d, timeoutMs: 15_000 }).spec);
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('first-saw-second\n');
  });

  it('collects stderr of every stage and returns the last stage exit code', async () => {
    const r = await executor.run(tagged([sh('echo one >&2; echo data'), sh('cat >/dev/null; echo two >&2; exit 4')]).spec);
    expect(r.outcome).toBe('failed');
    expect(r.exitCode).toBe(4);
    expect(r.stderr.split('\n').filter(Boolean).sort()).toEqual(['one', 'two']);
    expect(r.stages).toEqual([{ exitCode: 0, signal: null }, { exitCode: 4, signal: null }]);
  });

  it('lets an early-exiting last stage end the pipeline (yes | head -n 2)', async () => {
    const r = await executor.run(tagged([stage('yes'), stage('head', '-n', '2')]).spec);
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('y\ny\n');
  });
});

describe('executor: stdin and redirects', () => {
  it('writes stdin to the first stage and closes it', async () => {
    const r = await executor.run(tagged([stage('cat')], { stdin: 'line 1\nline 2\n' }).spec);
    expect(r.stdout).toBe('line 1\nline 2\n');
    expect(r.outcome).toBe('ok');
  });

  it('accepts stdin as bytes and passes it through a pipeline', async () => {
    const r = await executor.run(tagged([stage('cat'), stage('wc', '-c')], { stdin: new Uint8Array(100_000).fill(65) }).spec);
    expect(r.stdout.trim()).toBe('100000');
  });

  it('gives /dev/null as stdin when none is given (cat does not hang)', async () => {
    const r = await executor.run(tagged([stage('cat')], { timeoutMs: 5000 }).spec);
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('');
  });

  it('survives a command that never reads a large stdin (EPIPE is swallowed)', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 0x61);
    const r = await executor.run(tagged([stage('true')], { stdin: big }).spec);
    expect(r.outcome).toBe('ok');
    const r2 = await executor.run(tagged([sh('exec 0<&-; echo closed')], { stdin: big }).spec);
    expect(r2.stdout).toBe('closed\n');
  });

  it('reads stdinFile as the first stage input', async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'in.txt'), 'b\na\nc\n');
    const r = await executor.run(tagged([stage('sort')], { cwd: d, stdinFile: path.join(d, 'in.txt') }).spec);
    expect(r.stdout).toBe('a\nb\nc\n');
  });

  it('writes the last stage stdout to stdoutFile, truncating or appending', async () => {
    const d = dir();
    const out = path.join(d, 'out.txt');
    fs.writeFileSync(out, 'old content that is long\n');
    const r1 = await executor.run(tagged([stage('echo', 'first')], { stdoutFile: { path: out, append: false } }).spec);
    expect(r1.outcome).toBe('ok');
    expect(r1.stdout).toBe('');
    expect(fs.readFileSync(out, 'utf8')).toBe('first\n');
    await executor.run(tagged([stage('seq', '1', '3'), stage('tail', '-n', '1')], { stdoutFile: { path: out, append: true } }).spec);
    expect(fs.readFileSync(out, 'utf8')).toBe('first\n3\n');
    expect((fs.statSync(out).mode & 0o777).toString(8)).toBe('644');
    const fresh = path.join(d, 'new.txt');
    await executor.run(tagged([stage('echo', 'n')], { stdoutFile: { path: fresh, append: true } }).spec);
    expect(fs.readFileSync(fresh, 'utf8')).toBe('n\n');
  });

  it('refuses a stdoutFile that was swapped for a symlink to a file outside (O_NOFOLLOW)', async () => {
    const d = dir();
    const outside = path.join(dir(), 'victim.txt');
    fs.writeFileSync(outside, 'precious\n');
    fs.symlinkSync(outside, path.join(d, 'out.txt'));
    const r = await executor.run(tagged([stage('echo', 'overwritten')], { stdoutFile: { path: path.join(d, 'out.txt'), append: false } }).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/symbolic link/);
    expect(fs.readFileSync(outside, 'utf8')).toBe('precious\n');
  });

  it('refuses a stdinFile that is a symlink (O_NOFOLLOW) or a FIFO that would block the server', async () => {
    const d = dir();
    fs.writeFileSync(path.join(d, 'secret'), 's');
    fs.symlinkSync(path.join(d, 'secret'), path.join(d, 'link'));
    const r = await executor.run(tagged([stage('cat')], { stdinFile: path.join(d, 'link') }).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/symbolic link/);
    const mk = await executor.run(tagged([stage('mkfifo', path.join(d, 'fifo'))]).spec);
    expect(mk.outcome).toBe('ok');
    const r2 = await executor.run(tagged([stage('cat')], { stdinFile: path.join(d, 'fifo'), timeoutMs: 3000 }).spec);
    expect(r2.outcome).toBe('error');
    expect(r2.error).toMatch(/not a regular file/);
  });

  it('rejects a spec that gives both stdin and stdinFile', async () => {
    const r = await executor.run(tagged([stage('cat')], { stdin: 'x', stdinFile: '/etc/hostname' }).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/mutually exclusive/);
  });
});

describe('executor: progress', () => {
  it('reports progress about once a second and onStart once', async () => {
    const seen: number[] = [];
    let starts = 0;
    const r = await executor.run(
      tagged([sh('echo a; sleep 2.3; echo b')], {
        onProgress: (p) => seen.push(p.stdoutBytes),
        onStart: () => starts++,
      }).spec,
    );
    expect(r.outcome).toBe('ok');
    expect(starts).toBe(1);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.length).toBeLessThanOrEqual(3);
    expect(seen[0]).toBe(2);
  });
});
