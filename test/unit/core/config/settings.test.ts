import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../../../src/core/config/configFile';
import { settingsFromEnvironment } from '../../../../src/core/config/environment';
import { resolveSettings, type SettingsLayer } from '../../../../src/core/config/settings';
import { parseFlags } from '../../../../src/cli/flags';
import { DEFAULT_ALLOW_COMMANDS, PolicyError } from '../../../../src/core/policy';
import { ToolError } from '../../../../src/core/errors';
import { makeSandbox, write } from '../tempWorkspace';

/** The CLI's layering: defaults < config file < environment < flags. */
function layered(s: { ws: string }, file: object, env: NodeJS.ProcessEnv, flags: string[]) {
  const layers: SettingsLayer[] = [
    parseConfigFile(JSON.stringify(file), path.join(s.ws, 'guarded-shell.json')),
    settingsFromEnvironment(env),
    parseFlags(flags).layer,
  ];
  return resolveSettings(layers, s.ws);
}

describe('resolveSettings: defaults', () => {
  it('gives the documented defaults when nothing is set', () => {
    const s = makeSandbox();
    const { policy, server } = resolveSettings([], s.ws);
    expect(server).toEqual({ host: '127.0.0.1', printConfig: 'generic', port: 8003, transport: 'http', approver: 'elicitation', auditStream: 'none', quiet: false, corsOrigins: [] });
    expect(server.auth).toBeUndefined(); // a random token is generated at start
    expect(policy.root).toBe(s.ws);
    expect(policy.mode).toBe('auto');
    expect(policy.defaultTimeoutSeconds).toBe(30);
    expect(policy.maxTimeoutSeconds).toBe(300);
    expect(policy.outputLimitBytes).toBe(1024 * 1024);
    expect(policy.outputBudgetBytes).toBe(32 * 1024);
    expect(policy.concurrency).toBe(4);
    expect(policy.allowCommands).toEqual([...DEFAULT_ALLOW_COMMANDS]);
    expect(policy.allowPatterns).toEqual([]);
    expect(policy.safePath).toBeUndefined();
  });

  it('uses the real path of the root (a symlinked --cwd is resolved)', () => {
    const s = makeSandbox();
    const link = path.join(s.base, 'link');
    fs.symlinkSync(s.ws, link);
    expect(resolveSettings([{ cwd: link }], s.base).policy.root).toBe(s.ws);
  });

  it('fails with a clear error when --cwd does not exist', () => {
    const s = makeSandbox();
    expect(() => resolveSettings([{ cwd: path.join(s.base, 'nope') }], s.ws)).toThrow(ToolError);
  });
});

describe('resolveSettings: precedence defaults < file < env < flags', () => {
  it.each<[string, object, NodeJS.ProcessEnv, string[], (r: ReturnType<typeof layered>) => unknown, unknown]>([
    ['port: file over default', { port: 9000 }, {}, [], (r) => r.server.port, 9000],
    ['port: flag over file', { port: 9000 }, {}, ['--port', '9100'], (r) => r.server.port, 9100],
    ['allowlist: file over default', { allowed_commands: ['ls'] }, {}, [], (r) => r.policy.allowCommands, ['ls']],
    ['allowlist: env over file', { allowed_commands: ['ls'] }, { ALLOW_COMMANDS: 'cat' }, [], (r) => r.policy.allowCommands, ['cat']],
    ['allowlist: flags over env', { allowed_commands: ['ls'] }, { ALLOW_COMMANDS: 'cat' }, ['--allow', 'pwd'], (r) => r.policy.allowCommands, ['pwd']],
    ['timeout: env over file', { timeout: 10 }, { MCP_SHELL_DEFAULT_TIMEOUT_SECONDS: '20' }, [], (r) => r.policy.defaultTimeoutSeconds, 20],
    ['timeout: flags over env', { timeout: 10 }, { MCP_SHELL_DEFAULT_TIMEOUT_SECONDS: '20' }, ['--timeout', '5'], (r) => r.policy.defaultTimeoutSeconds, 5],
    ['max timeout: env over file', { maxTimeout: 100 }, { MCP_SHELL_MAX_TIMEOUT_SECONDS: '200' }, [], (r) => r.policy.maxTimeoutSeconds, 200],
    ['output limit: flags over env', {}, { MCP_SHELL_OUTPUT_LIMIT_BYTES: '2048' }, ['--output-limit', '1024'], (r) => r.policy.outputLimitBytes, 1024],
    ['mode: flag over file', { mode: 'confirm' }, {}, ['--mode', 'readOnly'], (r) => r.policy.mode, 'readOnly'],
    ['safePath: env over file', { safePath: '/file/bin' }, { MCP_SHELL_SAFE_PATH: '/env/bin' }, [], (r) => r.policy.safePath, '/env/bin'],
    ['safePath: a blank env value keeps the file value', { safePath: '/file/bin' }, { MCP_SHELL_SAFE_PATH: '  ' }, [], (r) => r.policy.safePath, '/file/bin'],
    ['auth: env token over file token', { auth: 'file-tok' }, { GUARDED_SHELL_TOKEN: 'env-tok' }, [], (r) => r.server.auth, 'env-tok'],
    ['auth: --noauth over a file token (as in cmdshellmcp)', { auth: 'file-tok' }, {}, ['--noauth'], (r) => r.server.auth, null],
    ['auth: --auth over file noauth', { noauth: true }, {}, ['--auth', 'flag-tok'], (r) => r.server.auth, 'flag-tok'],
    ['disableTools: flag replaces file list', { disableTools: ['cmdshell', 'fetch'] }, {}, ['--disableTools', 'writeFile'], (r) => r.policy.disableTools, ['writeFile']],
    ['transport: flag over file', { transport: 'sse' }, {}, ['--stdio'], (r) => r.server.transport, 'stdio'],
    ['quiet: file', { quiet: true }, {}, [], (r) => r.server.quiet, true],
    ['editdelbk: file', { editdelbk: true }, {}, [], (r) => r.policy.editDeleteBackup, true],
    ['fetch: flag merges into the file object', { fetch: { maxRedirects: 1 } }, {}, ['--fetch-allow-loopback'], (r) => r.policy.fetch, expect.objectContaining({ maxRedirects: 1, allowLoopback: true })],
  ])('%s', (_what, file, env, flags, read, expected) => {
    const s = makeSandbox();
    expect(read(layered(s, file, env, flags))).toEqual(expected);
  });
});

describe('resolveSettings: the default allowlist applies only when no allowlist is given at all', () => {
  it('uses an explicitly empty allowed_commands as "nothing allowed", not as the default', () => {
    const s = makeSandbox();
    expect(layered(s, { allowed_commands: [] }, {}, []).policy.allowCommands).toEqual([]);
  });

  it('does not add the default names when only ALLOW_PATTERNS is given', () => {
    const s = makeSandbox();
    const { policy } = layered(s, {}, { ALLOW_PATTERNS: 'git' }, []);
    expect(policy.allowCommands).toEqual([]);
    expect(policy.allowPatterns).toEqual(['git']);
  });

  it('does not add the default names to an environment allowlist', () => {
    const s = makeSandbox();
    expect(layered(s, {}, { ALLOWED_COMMANDS: 'ls ,echo, cat' }, []).policy.allowCommands).toEqual(['ls', 'echo', 'cat']);
  });

  it('collects --allow a b c repeated into one list that replaces the file list', () => {
    const s = makeSandbox();
    expect(layered(s, { allowed_commands: ['rm'] }, {}, ['--allow', 'a', 'b', 'c', '--allow', 'd']).policy.allowCommands).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('resolveSettings: bad values name the key', () => {
  it.each<[string, SettingsLayer, string]>([
    ['a port out of range', { port: 70000 }, 'port'],
    ['an empty host', { host: '' }, 'host'],
    ['an empty token', { auth: '' }, 'auth'],
    ['a zero concurrency', { concurrency: 0 }, 'concurrency'],
    ['a command name with a shell metacharacter', { allowCommands: ['ls;rm'] }, 'allowCommands.0'],
    ['a command name with a space', { allowCommands: ['ls -la'] }, 'allowCommands.0'],
    ['an invalid regular expression pattern', { allowPatterns: ['python('] }, 'allowPatterns.0'],
    ['a pattern with a shell metacharacter', { allowPatterns: ['a;b'] }, 'allowPatterns.0'],
    ['an environment name that is not one', { childEnvAllowlist: ['BAD-NAME'] }, 'childEnvAllowlist.0'],
    ['a default timeout above the maximum (named as a person sets it)', { defaultTimeoutSeconds: 400, maxTimeoutSeconds: 300 }, 'the default timeout (--timeout, "timeout", guardedShell.timeout.default) cannot be larger than the maximum'],
  ])('rejects %s', (_what, layer, key) => {
    const s = makeSandbox();
    expect(() => resolveSettings([layer], s.ws)).toThrow(PolicyError);
    expect(() => resolveSettings([layer], s.ws)).toThrow(key);
  });

  it('rejects ALLOW_COMMANDS entries with metacharacters and names the key', () => {
    const s = makeSandbox();
    expect(() => layered(s, {}, { ALLOW_COMMANDS: 'ls,rm -rf' }, [])).toThrow('ALLOW_COMMANDS: entry 1 ("rm -rf"): a command name cannot contain white space');
  });
});

describe("resolveSettings: the server's own files are protected", () => {
  it('lists the config file and the audit log (by real path) as own files', () => {
    const s = makeSandbox();
    const conf = write(path.join(s.ws, 'guarded-shell.json'), '{}');
    const { policy } = resolveSettings([{ configFile: conf }, { auditLog: 'logs/audit.log' }], s.ws);
    expect(policy.ownFiles).toEqual([conf, path.join(s.ws, 'logs', 'audit.log')]);
  });

  it('resolves the real path of an own file reached through a symlink', () => {
    const s = makeSandbox();
    const real = write(path.join(s.outside, 'audit.log'));
    fs.symlinkSync(real, path.join(s.ws, 'audit-link.log'));
    expect(resolveSettings([{ auditLog: path.join(s.ws, 'audit-link.log') }], s.ws).policy.ownFiles).toEqual([real]);
  });
});
