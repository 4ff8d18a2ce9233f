import { describe, expect, it } from 'vitest';
import { buildChildEnv, DEFAULT_SAFE_PATH, NON_INTERACTIVE_ENV, OFFLINE_ENV, terminalEnv } from '../../../src/core/exec/env';
import { isToolError } from '../../../src/core/errors';

const parent = {
  PATH: '/home/me/.local/bin:/usr/bin',
  HOME: '/home/me',
  LANG: 'ja_JP.UTF-8',
  SECRET_TOKEN: 's3cr3t',
  AWS_SECRET_ACCESS_KEY: 'aws',
  GITHUB_TOKEN: 'ghp',
};

/** What the server sets itself, whatever the parent has: no editor/pager/prompt, a plain terminal. */
const fixed = (platform: NodeJS.Platform) => ({ ...NON_INTERACTIVE_ENV, ...terminalEnv(platform) });

describe('child environment (mcp-shell-server rules)', () => {
  it('does not pass the server secrets (SECRET_TOKEN, AWS keys, GITHUB_TOKEN) or anything else by default', () => {
    expect(buildChildEnv({ parentEnv: parent, allowlist: [], platform: 'linux' })).toEqual({ ...fixed('linux'), PATH: DEFAULT_SAFE_PATH });
  });

  it('uses the POSIX default PATH, not the server PATH, when nothing is configured', () => {
    expect(DEFAULT_SAFE_PATH).toBe('/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin');
    expect(buildChildEnv({ parentEnv: parent, allowlist: [] }).PATH).toBe(DEFAULT_SAFE_PATH);
  });

  it('uses a configured safe PATH as is (untrimmed) when it is not blank', () => {
    expect(buildChildEnv({ parentEnv: parent, allowlist: [], safePath: ' /opt/x:/usr/bin ' }).PATH).toBe(' /opt/x:/usr/bin ');
  });

  it('falls back to the default when the safe PATH is empty or blank', () => {
    expect(buildChildEnv({ parentEnv: parent, allowlist: [], safePath: '' }).PATH).toBe(DEFAULT_SAFE_PATH);
    expect(buildChildEnv({ parentEnv: parent, allowlist: [], safePath: ' \t ' }).PATH).toBe(DEFAULT_SAFE_PATH);
  });

  it('passes the parent PATH through when PATH is allowlisted, ahead of the safe PATH', () => {
    expect(buildChildEnv({ parentEnv: parent, allowlist: ['PATH'], safePath: '/opt/safe' }).PATH).toBe(parent.PATH);
  });

  it('prefers the per-call PATH when PATH is allowlisted, even an empty one', () => {
    expect(buildChildEnv({ parentEnv: parent, allowlist: ['PATH'], overrides: { PATH: '/call/bin' } }).PATH).toBe('/call/bin');
    expect(buildChildEnv({ parentEnv: parent, allowlist: ['PATH'], overrides: { PATH: '' } }).PATH).toBe('');
    expect(buildChildEnv({ parentEnv: { ...parent, PATH: '' }, allowlist: ['PATH'], safePath: '/opt/safe' }).PATH).toBe('');
  });

  it('rejects a per-call PATH when PATH is not allowlisted (a caller cannot pick its own binaries)', () => {
    expect(() => buildChildEnv({ parentEnv: parent, allowlist: [], overrides: { PATH: '/tmp/evil' } })).toThrow(/PATH/);
  });

  it('inherits allowlisted names from the parent and accepts them as overrides', () => {
    const env = buildChildEnv({ parentEnv: parent, allowlist: ['LANG', 'MY_TOOL_HOME', 'HOME'], overrides: { MY_TOOL_HOME: '/t' }, platform: 'linux' });
    // A name passed through replaces the server's own value (LANG).
    expect(env).toEqual({ ...fixed('linux'), PATH: DEFAULT_SAFE_PATH, LANG: 'ja_JP.UTF-8', HOME: '/home/me', MY_TOOL_HOME: '/t' });
  });

  it('refuses to smuggle a secret in by a per-call override of a name that is not allowlisted, naming it', () => {
    let caught: unknown;
    try {
      buildChildEnv({ parentEnv: parent, allowlist: ['LANG'], overrides: { LD_PRELOAD: '/tmp/x.so' } });
    } catch (e) {
      caught = e;
    }
    expect(isToolError(caught) && caught.code).toBe('BAD_REQUEST');
    expect((caught as Error).message).toMatch(/LD_PRELOAD/);
  });

  it('rejects override names with = or NUL and values with NUL', () => {
    expect(() => buildChildEnv({ parentEnv: parent, allowlist: ['A'], overrides: { 'A=B': 'x' } })).toThrow(/invalid environment variable name/);
    expect(() => buildChildEnv({ parentEnv: parent, allowlist: ['A'], overrides: { A: 'x\0y' } })).toThrow(/NUL/);
  });

  it('keeps a variable called __proto__ as data, not as a prototype', () => {
    const env = buildChildEnv({ parentEnv: {}, allowlist: ['__proto__'], overrides: { ['__proto__']: 'v' } });
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(env, '__proto__')?.value).toBe('v');
  });

  it('adds the Windows launch keys on win32 (case-insensitive lookup) and keeps the parent PATH there', () => {
    const winParent = { Path: 'C:\\Windows\\system32;C:\\tools', ComSpec: 'C:\\Windows\\system32\\cmd.exe', PATHEXT: '.COM;.EXE', SystemRoot: 'C:\\Windows', windir: 'C:\\Windows', SECRET_TOKEN: 'x' };
    expect(buildChildEnv({ parentEnv: winParent, allowlist: [], platform: 'win32' })).toEqual({
      ...fixed('win32'),
      COMSPEC: 'C:\\Windows\\system32\\cmd.exe',
      PATHEXT: '.COM;.EXE',
      SYSTEMROOT: 'C:\\Windows',
      WINDIR: 'C:\\Windows',
      PATH: 'C:\\Windows\\system32;C:\\tools',
    });
    expect(buildChildEnv({ parentEnv: winParent, allowlist: [], platform: 'win32', safePath: 'C:\\safe' }).PATH).toBe('C:\\safe');
  });

  it('does not add Windows launch keys on POSIX', () => {
    const env = buildChildEnv({ parentEnv: { ...parent, COMSPEC: 'cmd', WINDIR: 'w' }, allowlist: [], platform: 'linux' });
    expect(Object.keys(env).sort()).toEqual(Object.keys({ ...fixed('linux'), PATH: '' }).sort());
  });
});

describe("a developer's context in the child environment", () => {
  const developer = {
    home: '/state/gs/home/abc',
    identity: { authorName: 'Ada', authorEmail: 'ada@example.org', committerName: 'Ada', committerEmail: 'ada@example.org' },
    toolchain: { dirs: ['/home/me/.pyenv/shims'], path: `/home/me/.pyenv/shims:${DEFAULT_SAFE_PATH}`, binds: ['/home/me/.pyenv'], env: { PYENV_ROOT: '/home/me/.pyenv' }, skipped: [] },
  };

  it('gives the private HOME, the git identity, the toolchain roots and the toolchain PATH, and nothing of the server beyond them', () => {
    const env = buildChildEnv({ parentEnv: parent, allowlist: [], platform: 'linux', developer });
    expect(env).toEqual({
      ...fixed('linux'), HOME: '/state/gs/home/abc', PYENV_ROOT: '/home/me/.pyenv', PATH: `/home/me/.pyenv/shims:${DEFAULT_SAFE_PATH}`,
      GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.org', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.org',
    });
  });

  it('lets what the operator passes through win: HOME, an identity, PATH, TERM', () => {
    const env = buildChildEnv({
      parentEnv: { ...parent, GIT_AUTHOR_NAME: 'Operator', TERM: 'xterm-256color' }, allowlist: ['HOME', 'GIT_AUTHOR_NAME', 'PATH', 'TERM'], platform: 'linux', developer,
    });
    expect(env).toMatchObject({ HOME: '/home/me', GIT_AUTHOR_NAME: 'Operator', GIT_COMMITTER_NAME: 'Ada', PATH: parent.PATH, TERM: 'xterm-256color' });
  });

  it('tells package managers not to retry when the command has no network; what the operator passes through wins', () => {
    expect(buildChildEnv({ parentEnv: parent, allowlist: [], platform: 'linux', offline: true })).toEqual({ ...fixed('linux'), ...OFFLINE_ENV, PATH: DEFAULT_SAFE_PATH });
    expect(buildChildEnv({ parentEnv: parent, allowlist: [], platform: 'linux' })).not.toHaveProperty('PIP_RETRIES');
    expect(buildChildEnv({ parentEnv: { ...parent, PIP_RETRIES: '3' }, allowlist: ['PIP_RETRIES'], platform: 'linux', offline: true }).PIP_RETRIES).toBe('3');
  });

  it('keeps a configured safe PATH as the operator wrote it (no toolchain folders added)', () => {
    expect(buildChildEnv({ parentEnv: parent, allowlist: [], safePath: '/opt/safe', platform: 'linux', developer }).PATH).toBe('/opt/safe');
  });
});
