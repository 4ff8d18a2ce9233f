import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_FILE_KEYS, expandHome, loadConfigFile, parseConfigFile } from '../../../../src/core/config/configFile';
import { PolicyError } from '../../../../src/core/policy';
import { makeSandbox, write } from '../tempWorkspace';

function parseError(text: string, source = '/etc/gs/conf.json'): PolicyError {
  try {
    parseConfigFile(text, source);
  } catch (e) {
    expect(e).toBeInstanceOf(PolicyError);
    return e as PolicyError;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('parseConfigFile: the keys of cmdshellmcp.json', () => {
  const source = '/etc/gs/cmdshellmcp.json';
  it.each<[string, unknown, object]>([
    ['host', '0.0.0.0', { host: '0.0.0.0' }],
    ['port', 9000, { port: 9000 }],
    ['quiet', true, { quiet: true }],
    ['auditlog', 'audit.log', { auditLog: '/etc/gs/audit.log' }],
    ['auditlog', '/var/log/gs.log', { auditLog: '/var/log/gs.log' }],
    ['allowed_commands', ['ls', 'pwd'], { allowCommands: ['ls', 'pwd'] }],
    ['disableTools', ['writeFile', 'editFile'], { disableTools: ['writeFile', 'editFile'] }],
    ['auth', '_my_secret_auth_token_', { auth: '_my_secret_auth_token_' }],
    ['cwd', 'project', { cwd: '/etc/gs/project' }],
    ['cwd', '/srv/project', { cwd: '/srv/project' }],
    ['editdelbk', true, { editDeleteBackup: true }],
    ['editBackup', 'none', { editBackup: 'none' }],
  ])('maps %s = %j', (key, value, expected) => {
    const layer = parseConfigFile(JSON.stringify({ [key]: value }), source);
    expect(layer).toMatchObject(expected);
    expect(layer.configFile).toBe(source);
  });

  it('treats "auditlog": null (the sample file) as no audit file', () => {
    expect(parseConfigFile('{"auditlog": null}', source).auditLog).toBeUndefined();
  });

  it('treats "auth": null as "generate a token" (undefined), not as "no authentication"', () => {
    expect(parseConfigFile('{"auth": null}', source).auth).toBeUndefined();
  });

  it('reads the sample cmdshellmcp.json of the origin project unchanged', () => {
    const sample = {
      host: '127.0.0.1', port: 8003, quiet: false, auditlog: null,
      disableTools: ['writeFile', 'editFile', 'applyPatch'],
      allowed_commands: ['ls', 'pwd', 'free', 'ps', 'uname', 'hostname', 'uptime', 'w', 'last'],
      auth: '_my_secret_auth_token_',
    };
    const layer = parseConfigFile(JSON.stringify(sample), source);
    expect(layer).toMatchObject({ host: '127.0.0.1', port: 8003, quiet: false, auth: '_my_secret_auth_token_', disableTools: sample.disableTools, allowCommands: sample.allowed_commands });
  });

  it('expands ~ in cwd', () => {
    const layer = parseConfigFile('{"cwd": "~/proj"}', source);
    expect(layer.cwd).toBe(path.join(process.env.HOME ?? '', 'proj'));
  });
});

describe("parseConfigFile: Guarded Shell's own keys", () => {
  it.each<[string, unknown, object]>([
    ['noauth', true, { auth: null }],
    ['transport', 'sse', { transport: 'sse' }],
    ['allowPatterns', ['python[0-9.]*'], { allowPatterns: ['python[0-9.]*'] }],
    ['mode', 'confirmChanges', { mode: 'confirmChanges' }],
    ['isolation', 'required', { isolation: 'required' }],
    ['network', 'allow', { network: 'allow' }],
    ['timeout', 10, { defaultTimeoutSeconds: 10 }],
    ['maxTimeout', 60, { maxTimeoutSeconds: 60 }],
    ['outputLimit', 4096, { outputLimitBytes: 4096 }],
    ['concurrency', 2, { concurrency: 2 }],
    ['childEnvAllowlist', ['LANG'], { childEnvAllowlist: ['LANG'] }],
    ['safePath', '/usr/bin:/bin', { safePath: '/usr/bin:/bin' }],
    ['corsOrigins', ['https://app.example'], { corsOrigins: ['https://app.example'] }],
    ['protectedPaths', ['.env'], { protectedPaths: ['.env'] }],
    ['autoApprove', ['git status'], { autoApprove: ['git status'] }],
    ['approvalTimeout', 120, { approvalTimeoutSeconds: 120 }],
    ['fetch', { allowLoopback: true, maxRedirects: 2 }, { fetchAllowLoopback: true, fetchMaxRedirects: 2 }],
  ])('maps %s = %j', (key, value, expected) => {
    expect(parseConfigFile(JSON.stringify({ [key]: value }), '/c.json')).toMatchObject(expected);
  });

  it('lists every accepted key (for the README and --help)', () => {
    for (const k of ['host', 'port', 'quiet', 'auditlog', 'allowed_commands', 'disableTools', 'auth', 'cwd', 'editdelbk']) {
      expect(CONFIG_FILE_KEYS).toContain(k);
    }
  });
});

describe('parseConfigFile: errors name the key', () => {
  it.each([
    ['a typo of a real key', '{"allowed_command": ["ls"]}', '"allowed_command"'],
    ['an unknown key', '{"allow_everything": true}', '"allow_everything"'],
    ['an unknown key inside fetch', '{"fetch": {"allowEverything": true}}', '"allowEverything"'],
  ])('rejects %s and names it', (_what, text, named) => {
    const e = parseError(text);
    expect(e.message).toContain(named);
    expect(e.message).toContain('unknown key');
    expect(e.message).toContain('/etc/gs/conf.json');
  });

  it.each([
    ['port as a string', '{"port": "8003"}', 'port'],
    ['port as a fraction', '{"port": 80.5}', 'port'],
    ['quiet as a string', '{"quiet": "yes"}', 'quiet'],
    ['allowed_commands as a string', '{"allowed_commands": "ls,cat"}', 'allowed_commands'],
    ['a non-string command', '{"allowed_commands": ["ls", 3]}', 'allowed_commands.1'],
    ['an unknown mode', '{"mode": "yolo"}', 'mode'],
    ['an unknown transport', '{"transport": "ws"}', 'transport'],
    ['a fractional outputLimit', '{"outputLimit": 1.5}', 'outputLimit'],
    ['fetch.maxBytes as a string', '{"fetch": {"maxBytes": "big"}}', 'fetch.maxBytes'],
  ])('rejects %s and names the key', (_what, text, key) => {
    expect(parseError(text).message).toContain(key);
  });

  it('rejects text that is not JSON and names the file', () => {
    const e = parseError('{ host: 127.0.0.1 }');
    expect(e.message).toContain('/etc/gs/conf.json');
    expect(e.message).toContain('not valid JSON');
  });

  it('rejects a JSON array instead of an object', () => {
    expect(() => parseConfigFile('["ls"]', '/c.json')).toThrow(PolicyError);
  });

  it('rejects "auth" together with "noauth" (which one was meant?)', () => {
    expect(parseError('{"auth": "tok", "noauth": true}').message).toContain('"auth" and "noauth"');
  });
});

describe('loadConfigFile', () => {
  it('reads the file named by --conf', () => {
    const s = makeSandbox();
    const f = write(path.join(s.base, 'my.json'), '{"port": 9100}');
    expect(loadConfigFile(f, s.ws).port).toBe(9100);
  });

  it('fails with a message naming --conf when the named file cannot be read', () => {
    const s = makeSandbox();
    expect(() => loadConfigFile(path.join(s.base, 'missing.json'), s.ws)).toThrow(/--conf .*missing\.json.*ENOENT/);
  });

  it('falls back to ./cmdshellmcp.json in the folder', () => {
    const s = makeSandbox();
    write(path.join(s.ws, 'cmdshellmcp.json'), '{"port": 9200}');
    expect(loadConfigFile(undefined, s.ws)).toMatchObject({ port: 9200, configFile: path.join(s.ws, 'cmdshellmcp.json') });
  });

  it('prefers ./guarded-shell.json over ./cmdshellmcp.json', () => {
    const s = makeSandbox();
    write(path.join(s.ws, 'cmdshellmcp.json'), '{"port": 9200}');
    write(path.join(s.ws, 'guarded-shell.json'), '{"port": 9300}');
    expect(loadConfigFile(undefined, s.ws).port).toBe(9300);
  });

  it('returns an empty layer when there is no file', () => {
    const s = makeSandbox();
    expect(loadConfigFile(undefined, s.ws)).toEqual({});
  });

  it('resolves a relative auditlog against the config file, not the process folder', () => {
    const s = makeSandbox();
    fs.mkdirSync(path.join(s.base, 'etc'));
    const f = write(path.join(s.base, 'etc', 'gs.json'), '{"auditlog": "logs/audit.log"}');
    expect(loadConfigFile(f, s.ws).auditLog).toBe(path.join(s.base, 'etc', 'logs', 'audit.log'));
  });
});

describe('expandHome', () => {
  it.each([
    ['~', '/home/u'],
    ['~/x', '/home/u/x'],
    ['~x', '~x'],
    ['/abs', '/abs'],
    ['rel/~', 'rel/~'],
  ])('%s -> %s', (input, expected) => {
    expect(expandHome(input, '/home/u')).toBe(expected);
  });
});
