import { describe, expect, it } from 'vitest';
import { HARMLESS_CALL_ENV, judgeCallEnv, perCallEnvAllowlist, REFUSED_CALL_ENV } from '../../../../src/core/commands/callEnv';
import { decideCommand } from '../../../../src/core/commands/decide';
import { buildChildEnv } from '../../../../src/core/exec/env';
import { parsePolicy } from '../../../../src/core/policy';
import { makeSandbox } from '../tempWorkspace';

/**
 * The per-call environment by allowlist (issue 28): a call may set the reviewed harmless names on its own; any
 * other name needs the operator's pass-through, and even then the families that make a program load code, run a
 * program or write files are refused — by pattern, so the next name in a family is refused too. (The real
 * programs are shown to obey such names in ccForwarding.real.test.ts and rsync.real.test.ts.)
 */

const root = '/work/ws-example';
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

describe('harmless names: accepted per call without the operator', () => {
  it.each([
    [{ LANG: 'C.UTF-8' }], [{ LC_ALL: 'de_DE.UTF-8' }], [{ TZ: 'Europe/Berlin' }], [{ TZ: 'UTC0' }], [{ TERM: 'xterm-256color' }],
    [{ COLUMNS: '120', LINES: '40' }], [{ NO_COLOR: '1' }], [{ SOURCE_DATE_EPOCH: '1700000000' }], [{ GIT_AUTHOR_NAME: 'Ada Lovelace', GIT_COMMITTER_EMAIL: 'ada@example.invalid' }],
  ])('accepts %j with an empty pass-through list, and the child gets it', (env) => {
    expect(judgeCallEnv(env, root, { operatorAllowlist: [] })).toBeUndefined();
    const child = buildChildEnv({ parentEnv: { PATH: SYSTEM_PATH }, allowlist: perCallEnvAllowlist([], env), overrides: env });
    for (const [name, value] of Object.entries(env)) expect(child[name]).toBe(value);
  });

  it.each([
    [{ LANG: '../../tmp/evil' }, 'a locale name'], [{ LC_ALL: '/tmp/locale' }, 'a locale name'], [{ TZ: '/tmp/zone' }, 'a time zone'],
    [{ TZ: ':/etc/passwd' }, 'a time zone'], [{ TZ: 'Europe/../../tmp/x' }, 'a time zone'], [{ TERM: '../x' }, 'a terminal type'],
    [{ COLUMNS: '1e9' }, 'the output width'], [{ GIT_AUTHOR_NAME: 'a\nb' }, 'identity'],
  ])('refuses %j (the value is not of the harmless shape)', (env, shape) => {
    expect(judgeCallEnv(env, root, { operatorAllowlist: [] })).toMatchObject({ kind: 'deny', rule: 'env.per-call-refused', reason: expect.stringContaining(shape) });
  });

  it('every entry says why it is harmless', () => {
    for (const h of HARMLESS_CALL_ENV) expect(h.why.length).toBeGreaterThan(8);
  });
});

describe('other names: only when the operator passes them through', () => {
  it('refuses a name the operator did not pass through, naming the harmless list', () => {
    expect(judgeCallEnv({ MY_TOOL_LEVEL: '3' }, root, { operatorAllowlist: [] })).toMatchObject({ kind: 'deny', reason: expect.stringMatching(/not on the reviewed list of harmless names .*LANG.*childEnvAllowlist/) });
    expect(judgeCallEnv({ MY_TOOL_LEVEL: '3' }, root, { operatorAllowlist: ['MY_TOOL_LEVEL'] })).toBeUndefined();
  });

  // Passed through by the operator, and still refused: one or more names per family, including names no list spelled out.
  const refused: [family: string, names: string[]][] = [
    ['loader', ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'GLIBC_TUNABLES', 'GCONV_PATH', 'MALLOC_CHECK_']],
    ['compiler', ['GCC_COMPARE_DEBUG', 'DEPENDENCIES_OUTPUT', 'SUNPRO_DEPENDENCIES', 'COMPILER_PATH', 'GCC_EXEC_PREFIX', 'LIBRARY_PATH', 'CPATH', 'C_INCLUDE_PATH', 'COLLECT_GCC_OPTIONS', 'CCC_OVERRIDE_OPTIONS', 'CXX_MODULE_MAPPER', 'CC', 'CXX', 'LD', 'CFLAGS', 'LDFLAGS', 'RUSTC_WRAPPER', 'CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER']],
    ['interpreter', ['PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONWARNINGS', 'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'NODE_OPTIONS', 'NODE_PATH', 'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'CLASSPATH', 'npm_config_script_shell', 'LUA_INIT', 'R_PROFILE_USER']],
    ['shell', ['BASH_ENV', 'ENV', 'BASH_FUNC_x%%', 'SHELLOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'ZDOTDIR', 'SHELL']],
    ['git', ['GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_DIR', 'GIT_EXEC_PATH', 'GIT_SSH_COMMAND', 'GIT_EXTERNAL_DIFF', 'GIT_TRACE', 'GIT_PAGER', 'GIT_EDITOR']],
    ['pager and editor', ['PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'EDITOR', 'VISUAL', 'SUDO_EDITOR', 'BROWSER', 'SSH_ASKPASS', 'LESSOPEN', 'LESS', 'MANOPT']],
    ['remote shell', ['RSH', 'RSYNC_RSH', 'RSYNC_CONNECT_PROG', 'SSH_AUTH_SOCK', 'GNUPGHOME', 'DISPLAY']],
    ['home and configuration', ['HOME', 'XDG_CONFIG_HOME', 'CARGO_HOME', 'CURL_HOME', 'WGETRC', 'OPENSSL_CONF', 'GIT_CONFIG_GLOBAL', 'PIP_CONFIG_FILE', 'KUBECONFIG', 'RIPGREP_CONFIG_PATH']],
    ['search paths', ['MANPATH', 'AWKPATH', 'TERMINFO', 'TERMINFO_DIRS', 'INFOPATH']],
    ['temporary files', ['TMPDIR', 'TMP', 'TEMP']],
    ['option variables', ['GREP_OPTIONS', 'ZIPOPT', 'XZ_OPT', 'MAKEFLAGS', 'TAR_READER_OPTIONS', 'GZIP', 'MAVEN_OPTS']],
    ['network routing', ['HTTPS_PROXY', 'http_proxy', 'ALL_PROXY']],
  ];
  it.each(refused)('refuses the %s family even when passed through', (_family, names) => {
    for (const name of names) {
      expect(judgeCallEnv({ [name]: 'x' }, root, { operatorAllowlist: [name] }), name).toMatchObject({ kind: 'deny', rule: 'env.per-call-refused', reason: expect.stringContaining('even when the operator passes') });
    }
  });

  it('every refused family says why', () => {
    for (const f of REFUSED_CALL_ENV) expect(f.why.length).toBeGreaterThan(20);
  });
});

describe('decide applies it', () => {
  it('runs with a harmless per-call name the operator never listed, refuses others before planning', () => {
    const s = makeSandbox();
    const policy = parsePolicy({ root: s.ws, allowCommands: ['ls', 'gcc'], safePath: SYSTEM_PATH, childEnvAllowlist: ['GCC_COMPARE_DEBUG'] });
    const decide = (env: Record<string, string>, command = ['ls']) => decideCommand({ command, env }, policy, { parentEnv: { PATH: SYSTEM_PATH } });
    expect(decide({ LANG: 'C.UTF-8', TZ: 'UTC' }).verdict.kind).toBe('allow');
    expect(decide({ NODE_OPTIONS: '--require=./x.js' }).verdict).toMatchObject({ kind: 'deny', rule: 'env.per-call-refused', reason: expect.stringContaining('not on the reviewed list') });
    expect(decide({ GCC_COMPARE_DEBUG: '-fplugin=./p.so' }, ['gcc', '-c', 'a.c']).verdict).toMatchObject({ kind: 'deny', rule: 'env.per-call-refused', reason: expect.stringContaining('compiler') });
  });
});
