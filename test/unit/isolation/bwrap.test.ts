import { describe, it, expect } from 'vitest';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bwrapArgs, createBwrapSandbox, type PathInfo } from '../../../src/core/isolation/bwrap';
import { PRIVATE_HOME_CACHES } from '../../../src/core/isolation/context';
import type { SandboxContext } from '../../../src/core/isolation/types';
import { ToolError } from '../../../src/core/errors';

/** A fake disk: every listed path exists (directories unless marked as a file) and is its own real path. */
function fakeDisk(dirs: string[], files: string[] = []): (p: string) => PathInfo | undefined {
  return (p) => (dirs.includes(p) ? { real: p, isDirectory: true } : files.includes(p) ? { real: p, isDirectory: false } : undefined);
}

const base: SandboxContext = { root: '/home/ann/proj', cwd: '/home/ann/proj/src', mode: 'auto', network: 'deny', home: '/home/ann' };
const disk = fakeDisk(['/tmp', '/run', '/home/ann', '/home/ann/proj', '/home/ann/proj/src', '/home/ann/proj/.git', '/home/ann/proj/.git/hooks', '/run/systemd/resolve', '/srv/secrets', '/home/ann/proj/vendor'], ['/home/ann/proj/.env', '/home/ann/proj/.git/config']);
const opts = { bwrapPath: '/usr/bin/bwrap', prlimitPath: '/usr/bin/prlimit', disableUserns: true, lookup: disk };
const stage = { file: 'ls', args: ['-la', '--', '-weird name'] };

/** The mount operations as [flag, ...operands] triples, in order. */
function mounts(args: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < args.indexOf('--'); i++) {
    const a = args[i];
    if (a === '--bind' || a === '--ro-bind') out.push([a, args[i + 1] as string, args[i + 2] as string]), (i += 2);
    else if (a === '--tmpfs' || a === '--dev' || a === '--proc') out.push([a, args[i + 1] as string]), (i += 1);
  }
  return out;
}

describe('bwrap argv', () => {
  it('keeps the namespace, session and capability flags that make it a sandbox', () => {
    const a = bwrapArgs(stage, base, opts);
    for (const flag of ['--die-with-parent', '--new-session', '--unshare-all', '--unshare-user', '--disable-userns']) expect(a).toContain(flag);
    // Every capability dropped, one given back to PID 1 alone (sandboxInit drops it for the command): no bwrap init.
    expect(a.slice(a.indexOf('--cap-drop'), a.indexOf('--cap-drop') + 5)).toEqual(['--cap-drop', 'ALL', '--as-pid-1', '--cap-add', 'CAP_SETPCAP']);
    expect(a.filter((x) => x === '--cap-add')).toHaveLength(1);
    expect(a).not.toContain('--share-net');
  });

  it('runs the command under a PID 1 that keeps a capability while the command keeps none (the wrap, not bare bwrapArgs)', () => {
    const tools = { unshare: '/u/unshare', setpriv: '/u/setpriv', timeout: '/u/timeout' };
    const { args } = createBwrapSandbox({ ...opts, tools }).wrap(stage, base);
    const cmd = args.slice(args.indexOf('--') + 1);
    expect(cmd).toEqual([
      '/usr/bin/prlimit', '--nproc=1024', `--fsize=${1024 ** 3}`, '--cpu=600', '--',
      '/u/timeout', '--foreground', '0',
      '/u/setpriv', '--no-new-privs', '--inh-caps=-all', '--ambient-caps=-all', '--bounding-set=-all', '--',
      'ls', '-la', '--', '-weird name',
    ]);
  });

  it('cuts the network unless it is allowed, and keeps DNS config readable when it is', () => {
    const allowed = bwrapArgs(stage, { ...base, network: 'allow' }, opts);
    expect(allowed.indexOf('--share-net')).toBeGreaterThan(allowed.indexOf('--unshare-all'));
    expect(mounts(allowed)).toContainEqual(['--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve']);
    expect(mounts(bwrapArgs(stage, base, opts))).not.toContainEqual(['--ro-bind', '/run/systemd/resolve', '/run/systemd/resolve']);
  });

  it('wires the egress proxy into a sandbox without a network: its socket over the /run tmpfs, the bridge after prlimit, right before the command', () => {
    const proxy = { socket: '/tmp/gs-net-x/1.sock', perl: '/usr/bin/perl' };
    const a = bwrapArgs(stage, { ...base, proxy }, opts);
    expect(a).not.toContain('--share-net');
    const m = mounts(a);
    expect(m.at(-1)).toEqual(['--ro-bind', '/tmp/gs-net-x/1.sock', '/run/guarded-shell-proxy.sock']);
    expect(m.findIndex((x) => x[0] === '--tmpfs' && x[1] === '/run')).toBeLessThan(m.length - 1);
    const command = a.slice(a.indexOf('--') + 1);
    expect(command[0]).toBe('/usr/bin/prlimit');
    const bridge = command.indexOf('/usr/bin/perl');
    expect(command.slice(bridge, bridge + 2)).toEqual(['/usr/bin/perl', '-e']);
    expect(command.slice(bridge + 3)).toEqual(['/run/guarded-shell-proxy.sock', '3128', '--', 'ls', '-la', '--', '-weird name']);
  });

  it('refuses the proxy beside the host network (it would be a way around it) and a workspace that holds its socket path', () => {
    const proxy = { socket: '/tmp/gs-net-x/1.sock', perl: '/usr/bin/perl' };
    expect(() => bwrapArgs(stage, { ...base, network: 'allow', proxy }, opts)).toThrow(/without a network of its own/);
    expect(() => bwrapArgs({ file: 'ls', args: [] }, { ...base, root: '/run', cwd: '/run', proxy }, { ...opts, lookup: fakeDisk(['/tmp', '/run']) })).toThrow(/guarded-shell-proxy\.sock/);
  });

  it('mounts the system read-only first, then hides /tmp, /run and HOME, then binds the workspace on top', () => {
    expect(mounts(bwrapArgs(stage, base, opts))).toEqual([
      ['--ro-bind', '/', '/'],
      ['--dev', '/dev'],
      ['--proc', '/proc'],
      ['--tmpfs', '/tmp'],
      ['--tmpfs', '/run'],
      ['--tmpfs', '/home/ann'],
      ['--bind', '/home/ann/proj', '/home/ann/proj'],
      ['--ro-bind', '/home/ann/proj/.git/config', '/home/ann/proj/.git/config'],
      ['--ro-bind', '/home/ann/proj/.git/hooks', '/home/ann/proj/.git/hooks'],
    ]);
  });

  it("stops planting a git hook or configuration: .git's config and hooks are read-only unless git writes are allowed (the rest stays writable for commits)", () => {
    const m = mounts(bwrapArgs(stage, base, opts));
    expect(m).not.toContainEqual(['--ro-bind', '/home/ann/proj/.git', '/home/ann/proj/.git']);
    const allowed = mounts(bwrapArgs(stage, { ...base, allowGitWrites: true }, opts));
    expect(allowed.filter((x) => x[1]!.includes('.git'))).toEqual([]);
  });

  it('keeps a .git FILE (a linked worktree or submodule) read-only whole: it names where the git directory is', () => {
    const lookup = fakeDisk(['/tmp', '/home/ann', '/home/ann/proj'], ['/home/ann/proj/.git']);
    expect(mounts(bwrapArgs(stage, base, { ...opts, lookup }))).toContainEqual(['--ro-bind', '/home/ann/proj/.git', '/home/ann/proj/.git']);
  });

  it('makes the workspace itself read-only in readOnly mode', () => {
    const m = mounts(bwrapArgs(stage, { ...base, mode: 'readOnly' }, opts));
    expect(m).toContainEqual(['--ro-bind', '/home/ann/proj', '/home/ann/proj']);
    expect(m.some((x) => x[0] === '--bind')).toBe(false);
  });

  it('hides extra paths (directory -> tmpfs, file -> /dev/null) and applies them after the workspace they sit in', () => {
    const m = mounts(bwrapArgs(stage, { ...base, hiddenPaths: ['/srv/secrets', '/home/ann/proj/.env'], readOnlyPaths: ['/home/ann/proj/vendor'] }, opts));
    expect(m).toContainEqual(['--tmpfs', '/srv/secrets']);
    const envIdx = m.findIndex((x) => x[2] === '/home/ann/proj/.env');
    expect(m[envIdx]).toEqual(['--ro-bind', '/dev/null', '/home/ann/proj/.env']);
    expect(envIdx).toBeGreaterThan(m.findIndex((x) => x[0] === '--bind'));
    expect(m.findIndex((x) => x[2] === '/home/ann/proj/vendor')).toBeGreaterThan(m.findIndex((x) => x[0] === '--bind'));
  });

  it('lets the stricter rule win on the same path (hidden beats read-only beats read-write)', () => {
    const m = mounts(bwrapArgs(stage, { ...base, readOnlyPaths: ['/home/ann/proj'], hiddenPaths: ['/home/ann/proj'] }, opts));
    const onRoot = m.filter((x) => x[x.length - 1] === '/home/ann/proj');
    expect(onRoot.map((x) => x[0])).toEqual(['--bind', '--ro-bind', '--tmpfs']);
  });

  it('never creates a mount point on the host for a path that does not exist', () => {
    const a = bwrapArgs(stage, { ...base, hiddenPaths: ['/home/ann/proj/not-there'] }, { ...opts, lookup: fakeDisk(['/tmp', '/home/ann/proj']) });
    expect(a).not.toContain('/home/ann/proj/not-there');
    expect(a).not.toContain('/home/ann/proj/.git');
  });

  it('keeps the credential stores hidden when the workspace IS the home directory', () => {
    const lookup = fakeDisk(['/tmp', '/home/ann', '/home/ann/.ssh', '/home/ann/.aws'], ['/home/ann/.netrc']);
    const m = mounts(bwrapArgs(stage, { ...base, root: '/home/ann', cwd: '/home/ann' }, { ...opts, lookup }));
    const bindAt = m.findIndex((x) => x[0] === '--bind');
    expect(m).not.toContainEqual(['--tmpfs', '/home/ann']); // the workspace itself must not be covered
    expect(m.findIndex((x) => x[1] === '/home/ann/.ssh')).toBeGreaterThan(bindAt);
    expect(m).toContainEqual(['--tmpfs', '/home/ann/.aws']);
    expect(m).toContainEqual(['--ro-bind', '/dev/null', '/home/ann/.netrc']);
  });

  it("shows the toolchain folders read-only over the hidden home, and nothing else of it", () => {
    const lookup = fakeDisk(['/tmp', '/run', '/home/ann', '/home/ann/proj', '/home/ann/proj/src', '/home/ann/.pyenv', '/home/ann/.cargo', '/home/ann/.cargo/bin'], ['/home/ann/.cargo/credentials.toml']);
    const m = mounts(bwrapArgs(stage, { ...base, toolchainPaths: ['/home/ann/.pyenv', '/home/ann/.cargo'] }, { ...opts, lookup }));
    const at = (p: string) => m.findIndex((x) => x[x.length - 1] === p);
    expect(m).toContainEqual(['--ro-bind', '/home/ann/.pyenv', '/home/ann/.pyenv']);
    // On top of the hidden home, never under it; a credential store inside a toolchain folder stays hidden.
    expect(at('/home/ann/.pyenv')).toBeGreaterThan(at('/home/ann'));
    expect(m[at('/home/ann/.cargo/credentials.toml')]).toEqual(['--ro-bind', '/dev/null', '/home/ann/.cargo/credentials.toml']);
    expect(at('/home/ann/.cargo/credentials.toml')).toBeGreaterThan(at('/home/ann/.cargo'));
  });

  it("stops a configuration file planted in the commands' HOME from reaching the next call: HOME is fresh, only its caches are kept", () => {
    const own = '/home/ann/.local/state/gs/home/x';
    const lookup = fakeDisk(['/tmp', '/run', '/home/ann', '/home/ann/proj', '/home/ann/proj/src', own, ...PRIVATE_HOME_CACHES.map((c) => `${own}/${c}`)]);
    const m = mounts(bwrapArgs(stage, { ...base, privateHome: own }, { ...opts, lookup }));
    const at = (p: string) => m.findIndex((x) => x[x.length - 1] === p);
    expect(m[at(own)]).toEqual(['--tmpfs', own]);
    expect(at(own)).toBeGreaterThan(at('/home/ann'));
    for (const c of PRIVATE_HOME_CACHES) {
      expect(m[at(`${own}/${c}`)]).toEqual(['--bind', `${own}/${c}`, `${own}/${c}`]);
      expect(at(`${own}/${c}`)).toBeGreaterThan(at(own));
    }
    expect(m.some((x) => x[0] === '--bind' && x[1] === own)).toBe(false);
  });

  it("never binds what a link put in place of a cache or toolchain folder points to (a cache made a link to ~/.ssh)", () => {
    const own = '/home/ann/.local/state/gs/home/x';
    const lookup = (p: string) => (p === `${own}/.npm` ? { real: '/home/ann/.ssh', isDirectory: true } : p === '/home/ann/.pyenv' ? { real: '/home/ann/.aws', isDirectory: true } : disk(p) ?? (p.startsWith(own) ? { real: p, isDirectory: true } : undefined));
    const a = bwrapArgs(stage, { ...base, privateHome: own, toolchainPaths: ['/home/ann/.pyenv'] }, { ...opts, lookup });
    expect(a).not.toContain('/home/ann/.ssh');
    expect(a).not.toContain('/home/ann/.aws');
  });

  it("refuses a commands' HOME or toolchain folder that would undo the hidden home or bind the workspace under another name", () => {
    expect(() => bwrapArgs(stage, { ...base, privateHome: '/home' }, opts)).toThrow(/commands' HOME/);
    expect(() => bwrapArgs(stage, { ...base, privateHome: '/home/ann/proj/.cache' }, opts)).toThrow(/commands' HOME/);
    expect(() => bwrapArgs(stage, { ...base, privateHome: '/' }, opts)).toThrow(/commands' HOME/);
    expect(() => bwrapArgs(stage, { ...base, toolchainPaths: ['/home'] }, opts)).toThrow(/toolchain folder/);
    expect(() => bwrapArgs(stage, { ...base, toolchainPaths: ['/'] }, opts)).toThrow(/toolchain folder/);
    expect(() => bwrapArgs(stage, { ...base, toolchainPaths: ['relative'] }, opts)).toThrow(/not an absolute path/);
  });

  it('runs the command through prlimit inside the sandbox with every limit, after both -- separators', () => {
    const a = bwrapArgs(stage, { ...base, limits: { processes: 64, fileSizeBytes: 1000, cpuSeconds: 7 } }, opts);
    const tail = a.slice(a.indexOf('--chdir'));
    expect(tail).toEqual(['--chdir', '/home/ann/proj/src', '--', '/usr/bin/prlimit', '--nproc=64', '--fsize=1000', '--cpu=7', '--', 'ls', '-la', '--', '-weird name']);
  });

  it('fills missing limits with the defaults and runs without prlimit only when none was found', () => {
    const a = bwrapArgs(stage, { ...base, limits: { processes: 10 } }, opts);
    expect(a).toContain('--nproc=10');
    expect(a.some((x) => x.startsWith('--fsize='))).toBe(true);
    const noPrlimit = bwrapArgs(stage, base, { bwrapPath: '/usr/bin/bwrap', disableUserns: false, lookup: disk });
    expect(noPrlimit.slice(noPrlimit.lastIndexOf('--chdir'))).toEqual(['--chdir', '/home/ann/proj/src', '--', 'ls', '-la', '--', '-weird name']);
    expect(noPrlimit).not.toContain('--disable-userns');
  });

  it('refuses a working directory outside the workspace', () => {
    expect(() => bwrapArgs(stage, { ...base, cwd: '/home/ann/other' }, opts)).toThrow(ToolError);
    expect(() => bwrapArgs(stage, { ...base, cwd: '/home/ann/proj-evil' }, opts)).toThrow(/outside the workspace/);
  });

  it('refuses to sandbox a workspace that is the whole file system', () => {
    expect(() => bwrapArgs(stage, { ...base, root: '/', cwd: '/' }, opts)).toThrow(/file-system root/);
  });

  it('refuses relative paths, NUL bytes and nonsense limits', () => {
    expect(() => bwrapArgs(stage, { ...base, hiddenPaths: ['relative/dir'] }, opts)).toThrow(/not an absolute path/);
    expect(() => bwrapArgs(stage, { ...base, readOnlyPaths: ['/x\0y'] }, opts)).toThrow(/NUL/);
    expect(() => bwrapArgs(stage, { ...base, limits: { processes: 0 } }, opts)).toThrow(/positive whole number/);
    expect(() => bwrapArgs(stage, { ...base, limits: { cpuSeconds: 1.5 } }, opts)).toThrow(/positive whole number/);
    expect(() => bwrapArgs(stage, { ...base, network: 'maybe' as 'allow' }, opts)).toThrow(/network/);
  });

  it('wraps a stage as the bwrap program with the original argv untouched at the end', () => {
    const w = createBwrapSandbox(opts).wrap(stage, base);
    expect(w.file).toBe('/usr/bin/bwrap');
    expect(w.args.slice(-4)).toEqual(['ls', '-la', '--', '-weird name']);
  });

  it('resolves symlinked extra paths to the real path before mounting (default disk lookup)', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-iso-unit-')));
    try {
      fs.mkdirSync(path.join(dir, 'ws'));
      fs.mkdirSync(path.join(dir, 'ws', 'real-secret'));
      fs.symlinkSync(path.join(dir, 'ws', 'real-secret'), path.join(dir, 'ws', 'link'));
      const a = bwrapArgs(stage, { root: path.join(dir, 'ws'), cwd: path.join(dir, 'ws'), mode: 'auto', network: 'deny', home: '/nonexistent-home', hiddenPaths: [path.join(dir, 'ws', 'link')] }, { bwrapPath: 'bwrap', disableUserns: true });
      expect(mounts(a)).toContainEqual(['--tmpfs', path.join(dir, 'ws', 'real-secret')]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
