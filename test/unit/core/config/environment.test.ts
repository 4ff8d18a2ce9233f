import { describe, expect, it } from 'vitest';
import { list, settingsFromEnvironment } from '../../../../src/core/config/environment';
import { PolicyError } from '../../../../src/core/policy';

describe('settingsFromEnvironment: ALLOW_COMMANDS / ALLOWED_COMMANDS (mcp-shell-server forms)', () => {
  it.each([
    ['ALLOW_COMMANDS', 'ls,cat,echo', ['ls', 'cat', 'echo']],
    ['ALLOWED_COMMANDS', 'ls ,echo, cat', ['ls', 'echo', 'cat']],
    ['ALLOW_COMMANDS', 'ls,  cat  , echo', ['ls', 'cat', 'echo']],
    ['ALLOW_COMMANDS', ' ls ,, cat,', ['ls', 'cat']],
  ])('%s=%j -> %j', (name, value, expected) => {
    expect(settingsFromEnvironment({ [name]: value }).allowCommands).toEqual(expected);
  });

  it('merges ALLOW_COMMANDS and its alias ALLOWED_COMMANDS without duplicates', () => {
    expect(settingsFromEnvironment({ ALLOW_COMMANDS: 'ls,cat', ALLOWED_COMMANDS: 'cat, echo' }).allowCommands).toEqual(['ls', 'cat', 'echo']);
  });

  it('sets no allowlist when the variables are absent', () => {
    expect(settingsFromEnvironment({}).allowCommands).toBeUndefined();
  });
});

describe('settingsFromEnvironment: other variables', () => {
  it('reads ALLOW_PATTERNS as a comma list', () => {
    expect(settingsFromEnvironment({ ALLOW_PATTERNS: 'python[0-9.]*, node' }).allowPatterns).toEqual(['python[0-9.]*', 'node']);
  });

  it.each([
    ['MCP_SHELL_DEFAULT_TIMEOUT_SECONDS', '10', { defaultTimeoutSeconds: 10 }],
    ['MCP_SHELL_DEFAULT_TIMEOUT_SECONDS', ' 2.5 ', { defaultTimeoutSeconds: 2.5 }],
    ['MCP_SHELL_MAX_TIMEOUT_SECONDS', '600', { maxTimeoutSeconds: 600 }],
    ['MCP_SHELL_OUTPUT_LIMIT_BYTES', '4096', { outputLimitBytes: 4096 }],
    ['MCP_SHELL_CHILD_ENV_ALLOWLIST', 'LANG, LC_ALL', { childEnvAllowlist: ['LANG', 'LC_ALL'] }],
    ['MCP_SHELL_SAFE_PATH', '/opt/homebrew/bin:/usr/bin', { safePath: '/opt/homebrew/bin:/usr/bin' }],
    ['GUARDED_SHELL_TOKEN', 'tok-123', { auth: 'tok-123' }],
  ])('%s=%j', (name, value, expected) => {
    expect(settingsFromEnvironment({ [name]: value })).toEqual(expected);
  });

  it('keeps a non-blank MCP_SHELL_SAFE_PATH exactly as configured (no trimming)', () => {
    expect(settingsFromEnvironment({ MCP_SHELL_SAFE_PATH: ' /usr/bin ' }).safePath).toBe(' /usr/bin ');
  });

  it.each([[''], ['   '], ['\t']])('ignores a blank MCP_SHELL_SAFE_PATH (%j): the default PATH applies', (value) => {
    expect(settingsFromEnvironment({ MCP_SHELL_SAFE_PATH: value })).not.toHaveProperty('safePath');
  });

  it.each([['MCP_SHELL_DEFAULT_TIMEOUT_SECONDS'], ['MCP_SHELL_OUTPUT_LIMIT_BYTES'], ['GUARDED_SHELL_TOKEN']])('ignores an empty %s', (name) => {
    expect(settingsFromEnvironment({ [name]: '' })).toEqual({});
  });

  it('reads nothing from unrelated variables', () => {
    expect(settingsFromEnvironment({ PATH: '/bin', HOME: '/root', SECRET_TOKEN: 'x' })).toEqual({});
  });
});

describe('settingsFromEnvironment: bad values name the variable', () => {
  it.each([
    ['MCP_SHELL_DEFAULT_TIMEOUT_SECONDS', 'abc'],
    ['MCP_SHELL_DEFAULT_TIMEOUT_SECONDS', '0'],
    ['MCP_SHELL_DEFAULT_TIMEOUT_SECONDS', '-5'],
    ['MCP_SHELL_MAX_TIMEOUT_SECONDS', 'Infinity'],
    ['MCP_SHELL_MAX_TIMEOUT_SECONDS', '30s'],
    ['MCP_SHELL_OUTPUT_LIMIT_BYTES', '1.5'],
    ['MCP_SHELL_OUTPUT_LIMIT_BYTES', '1MB'],
    ['MCP_SHELL_OUTPUT_LIMIT_BYTES', 'NaN'],
  ])('rejects %s=%j', (name, value) => {
    expect(() => settingsFromEnvironment({ [name]: value })).toThrow(PolicyError);
    expect(() => settingsFromEnvironment({ [name]: value })).toThrow(name);
  });

  it('quotes the bad value in the message', () => {
    expect(() => settingsFromEnvironment({ MCP_SHELL_OUTPUT_LIMIT_BYTES: 'lots' })).toThrow('"lots"');
  });
});

describe('list', () => {
  it.each<[string | undefined, string[]]>([
    [undefined, []],
    ['', []],
    [' , ,', []],
    ['a', ['a']],
    ['a,b', ['a', 'b']],
    [' a , b ', ['a', 'b']],
  ])('%j -> %j', (value, expected) => {
    expect(list(value)).toEqual(expected);
  });
});
