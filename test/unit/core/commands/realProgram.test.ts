import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeCallEnv } from '../../../../src/core/commands/callEnv';
import { decideCommand, type CommandRequest } from '../../../../src/core/commands/decide';
import { resolveProgram } from '../../../../src/core/commands/resolve';
import { unrunnableAllowlistEntries } from '../../../../src/core/commands/unrunnable';
import { checkAllowlist } from '../../../../src/core/commands/allowlist';
import { parsePolicy, type PolicyInput } from '../../../../src/core/policy';
import { makeSandbox, type Sandbox } from '../tempWorkspace';

/**
 * decide judges the program the executor will run: the PATH lookup of the child's PATH, then realpath, every
 * name judged, and that path is what the plan spawns. Real temporary folders, real links to real programs.
 */

const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

function setup(overrides: Partial<PolicyInput> = {}, bin?: (s: Sandbox) => string): { s: Sandbox; decide: (req: CommandRequest | string[]) => ReturnType<typeof decideCommand> } {
  const s = makeSandbox();
  const safePath = bin ? bin(s) : SYSTEM_PATH;
  const policy = parsePolicy({ root: s.ws, allowCommands: ['ls', 'cat', 'sort', 'tar', 'git', 'date'], safePath, ...overrides });
  return { s, decide: (req) => decideCommand(Array.isArray(req) ? { command: req } : req, policy, { parentEnv: { PATH: SYSTEM_PATH } }) };
}

describe('decide judges the real program and spawns the judged path', () => {
  it('spawns the absolute path the PATH lookup found (no second lookup at spawn time)', () => {
    const { decide } = setup();
    const d = decide(['ls', '-la']);
    expect(d.verdict.kind).toBe('allow');
    const expected = resolveProgram('ls', { pathEnv: SYSTEM_PATH, cwd: '/' });
    expect('notFound' in expected).toBe(false);
    expect(d.plan?.spawnArgv).toEqual([[(expected as { path: string }).path, '-la']]);
  });

  it('stops an allowed name that is a link to a shell on the child\'s PATH (cat -> /bin/sh)', () => {
    const { decide } = setup({}, (s) => {
      fs.symlinkSync('/bin/sh', path.join(s.outside, 'cat'));
      return s.outside;
    });
    expect(decide(['cat', '-c', 'id']).verdict).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN', rule: 'forbidden.shell' });
  });

  it('stops an allowed name that is a link to tar, with tar\'s rules (sort -> tar --to-command)', () => {
    const tar = resolveProgram('tar', { pathEnv: SYSTEM_PATH, cwd: '/' });
    if ('notFound' in tar) throw new Error('GNU tar is needed for this test');
    const { decide } = setup({}, (s) => {
      fs.symlinkSync(tar.real, path.join(s.outside, 'sort'));
      return s.outside;
    });
    expect(decide(['sort', '-xf', 'a.tar', '--to-command=id']).verdict).toMatchObject({ kind: 'deny', rule: 'tar.helper-option' });
  });

  it('stops a hard link to a never-runnable program under a harmless name (same file as `sh` on the PATH)', () => {
    const { decide } = setup({ allowCommands: ['harmless'] }, (s) => {
      fs.copyFileSync('/bin/true', path.join(s.outside, 'sh'));
      fs.chmodSync(path.join(s.outside, 'sh'), 0o755);
      fs.linkSync(path.join(s.outside, 'sh'), path.join(s.outside, 'harmless'));
      return s.outside;
    });
    expect(decide(['harmless']).verdict).toMatchObject({ kind: 'deny', rule: 'forbidden.shell' });
  });

  it('keeps allowing a program that is merely a copy, not the same file, of nothing forbidden', () => {
    const { decide } = setup({ allowCommands: ['harmless'] }, (s) => {
      fs.copyFileSync('/bin/true', path.join(s.outside, 'harmless'));
      fs.chmodSync(path.join(s.outside, 'harmless'), 0o755);
      return s.outside;
    });
    expect(decide(['harmless']).verdict.kind).toBe('allow');
  });

  it('stops an absolute path allowed only by its base name when it is not that program (a copy of sh at /tmp/x/ls)', () => {
    const { s, decide } = setup();
    fs.copyFileSync('/bin/sh', path.join(s.outside, 'ls'));
    fs.chmodSync(path.join(s.outside, 'ls'), 0o755);
    expect(decide([path.join(s.outside, 'ls'), '-c', 'id']).verdict).toMatchObject({ kind: 'deny', rule: 'allowlist.path-not-the-listed-program' });
    const real = resolveProgram('ls', { pathEnv: SYSTEM_PATH, cwd: '/' });
    expect(decide([(real as { path: string }).path, '-la']).verdict.kind).toBe('allow');
  });

  it('stops a program found through a PATH entry inside the workspace (relative or absolute)', () => {
    for (const entry of ['.', '', 'bin']) {
      const { s, decide } = setup({}, (sb) => {
        fs.mkdirSync(path.join(sb.ws, 'bin'), { recursive: true });
        fs.copyFileSync('/bin/ls', path.join(sb.ws, entry === 'bin' ? 'bin/ls' : 'ls'));
        fs.chmodSync(path.join(sb.ws, entry === 'bin' ? 'bin/ls' : 'ls'), 0o755);
        return entry === 'bin' ? path.join(sb.ws, 'bin') : `${entry}:${SYSTEM_PATH}`;
      });
      expect(s.ws.length).toBeGreaterThan(0);
      expect(decide(['ls']).verdict).toMatchObject({ kind: 'deny', rule: 'allowlist.workspace-program' });
    }
  });

  it('plans no program for a name that is not on the PATH (the policy verdict is unchanged; nothing is spawned)', () => {
    const { decide } = setup({ allowCommands: ['no-such-program-gs'] });
    const d = decide(['no-such-program-gs']);
    expect(d.verdict.kind).toBe('allow');
    expect(d.plan?.programs).toEqual([undefined]);
    expect(d.plan?.notFound[0]).toMatch(/not found on the PATH/);
  });

  it('strips white space around the program name like the seed (" ls " runs ls)', () => {
    const { decide } = setup();
    const d = decide(['  ls ', '-a']);
    expect(d.verdict.kind).toBe('allow');
    expect(path.basename(d.plan!.spawnArgv[0]![0]!)).toBe('ls');
  });

  it('judges find . -exec ls ; by the find rule (-exec runs a program), not as a shell operator', () => {
    const { decide } = setup({ allowCommands: ['find', 'ls'] });
    expect(decide(['find', '.', '-exec', 'ls', ';']).verdict).toMatchObject({ kind: 'deny', code: 'ARGUMENT_FORBIDDEN', rule: 'find.exec' });
  });

  it('refuses make && make test with "send two calls"', () => {
    const { decide } = setup();
    expect(decide(['ls', '&&', 'ls']).verdict).toMatchObject({ kind: 'deny', code: 'BAD_REQUEST', rule: 'request.shell-operator' });
  });
});

describe('per-call environment values pass the same rules as argv', () => {
  const root = '/work/ws-example';
  it.each([
    [{ TAR_OPTIONS: '--to-command=sh' }, 'tar.helper-option'],
    [{ TAR_OPTIONS: '-I sh' }, 'tar.helper-option'],
    [{ TAR_OPTIONS: '--index-file=/tmp/x' }, 'tar.side-file'],
    [{ TAR_OPTIONS: '-f' }, 'env.per-call-refused'],
    [{ TAR_OPTIONS: '"--to-command=sh"' }, 'env.per-call-refused'],
    [{ TAPE: 'host:/dev/st0' }, 'env.per-call-refused'],
    [{ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.pager', GIT_CONFIG_VALUE_0: 'sh' }, 'env.per-call-refused'],
    [{ GIT_CONFIG_PARAMETERS: "'alias.x'='!sh'" }, 'env.per-call-refused'],
    [{ GIT_DIR: 'evil' }, 'env.per-call-refused'],
    [{ GIT_EXEC_PATH: '/tmp' }, 'env.per-call-refused'],
    [{ GIT_SSH_COMMAND: 'sh' }, 'env.per-call-refused'],
    [{ LD_PRELOAD: '/tmp/x.so' }, 'env.per-call-refused'],
    [{ BASH_ENV: '/tmp/x' }, 'env.per-call-refused'],
    [{ HOME: '/work/ws-example' }, 'env.per-call-refused'],
    [{ XDG_CONFIG_HOME: '/tmp' }, 'env.per-call-refused'],
    [{ TMPDIR: '/etc' }, 'env.per-call-refused'],
    [{ PAGER: 'sh' }, 'env.per-call-refused'],
    [{ ZIPOPT: '-TT sh' }, 'env.per-call-refused'],
    [{ RIPGREP_CONFIG_PATH: '/tmp/rc' }, 'env.per-call-refused'],
    [{ PATH: '.:/usr/bin' }, 'env.per-call-refused'],
    [{ PATH: '/work/ws-example/bin:/usr/bin' }, 'env.per-call-refused'],
  ])('refuses %j', (env, rule) => {
    expect(judgeCallEnv(env, root)).toMatchObject({ kind: 'deny', rule });
  });

  it.each([[{ LANG: 'C.UTF-8' }], [{ LC_ALL: 'C' }], [{ MY_TOOL_LEVEL: '3' }], [{ TAR_OPTIONS: '--numeric-owner -v' }], [{ GIT_AUTHOR_NAME: 'x' }], [{ PATH: '/usr/bin:/bin' }]])('accepts %j', (env) => {
    expect(judgeCallEnv(env, root)).toBeUndefined();
  });

  it('is applied by decide (an allowlisted TAR_OPTIONS cannot reopen --to-command)', () => {
    const { decide } = setup({ childEnvAllowlist: ['TAR_OPTIONS'] });
    expect(decide({ command: ['tar', '-xf', 'a.tar'], env: { TAR_OPTIONS: '--to-command=sh' } }).verdict).toMatchObject({ kind: 'deny', rule: 'tar.helper-option' });
    expect(decide({ command: ['tar', '-tf', 'a.tar'], env: { TAR_OPTIONS: '-v' } }).verdict.kind).toBe('allow');
  });
});

describe('unrunnableAllowlistEntries', () => {
  it('reports names and patterns that can never run, and nothing else', () => {
    const found = unrunnableAllowlistEntries({ allowCommands: ['ls', 'bash', 'node', 'git', 'sensible-editor'], allowPatterns: ['python[0-9.]*', '^cmd[0-9]+$', 'l[a-z]'] }, { pathEnv: SYSTEM_PATH });
    expect(found.map((f) => [f.entry, f.kind])).toEqual([['bash', 'command'], ['node', 'command'], ['sensible-editor', 'command'], ['python[0-9.]*', 'pattern']]);
    for (const f of found) expect(f.reason.length).toBeGreaterThan(20);
  });

  it('uses the policy\'s child PATH when none is given (safePath)', () => {
    const s = makeSandbox();
    fs.symlinkSync('/bin/sh', path.join(s.outside, 'lister'));
    expect(unrunnableAllowlistEntries({ allowCommands: ['lister'], allowPatterns: [], childEnvAllowlist: [], safePath: s.outside })).toMatchObject([{ entry: 'lister', kind: 'command' }]);
  });

  it('reports a name by what it resolves to (a link called lister -> /bin/sh)', () => {
    const s = makeSandbox();
    fs.symlinkSync('/bin/sh', path.join(s.outside, 'lister'));
    expect(unrunnableAllowlistEntries({ allowCommands: ['lister'], allowPatterns: [] }, { pathEnv: s.outside })).toMatchObject([{ entry: 'lister', kind: 'command' }]);
  });
});

describe('anchored ALLOW_PATTERNS (mcp-shell-server\'s tests write ^cmd[0-9]+$)', () => {
  it('accepts anchored patterns and matches them as a full match', () => {
    const p = parsePolicy({ root: '/tmp', allowPatterns: ['^cmd[0-9]+$', '^ls$', 'git-[a-z]+'] });
    expect(checkAllowlist('cmd12', p).kind).toBe('allow');
    expect(checkAllowlist('xcmd12', p).kind).toBe('deny');
    expect(checkAllowlist('cmd12x', p).kind).toBe('deny');
    expect(checkAllowlist('ls', p).kind).toBe('allow');
    expect(checkAllowlist('lsof', p).kind).toBe('deny');
  });

  it.each(['a$b', 'a;b', 'a b', '$', '^', '^$', 'a|b'])('still refuses %j', (pattern) => {
    expect(() => parsePolicy({ root: '/tmp', allowPatterns: [pattern] })).toThrow();
  });
});
