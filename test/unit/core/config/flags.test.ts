import { describe, expect, it } from 'vitest';
import { FLAGS, FlagError, helpText, parseFlags } from '../../../../src/cli/flags';

function flagError(argv: string[]): FlagError {
  try {
    parseFlags(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(FlagError);
    return e as FlagError;
  }
  throw new Error(`expected ${argv.join(' ')} to be rejected`);
}

describe("parseFlags: cmdshellmcp's flags", () => {
  it.each<[string[], object]>([
    [['--cwd', '/srv/p'], { cwd: '/srv/p' }],
    [['--host', '0.0.0.0'], { host: '0.0.0.0' }],
    [['--port', '9000'], { port: 9000 }],
    [['--port=9001'], { port: 9001 }],
    [['--allow', 'ls', 'pwd', 'date'], { allowCommands: ['ls', 'pwd', 'date'] }],
    [['--allow', 'ls', '--allow', 'cat', 'wc'], { allowCommands: ['ls', 'cat', 'wc'] }],
    [['--allow=ls'], { allowCommands: ['ls'] }],
    [['--auth', 'tok'], { auth: 'tok' }],
    [['--auth=tok=with=equals'], { auth: 'tok=with=equals' }],
    [['--noauth'], { auth: null }],
    [['--disableTools', 'writeFile,editFile'], { disableTools: ['writeFile', 'editFile'] }],
    [['--editdelbk'], { editDeleteBackup: true }],
    [['--edit-backup', 'none'], { editBackup: 'none' }],
    [['--sse'], { transport: 'sse' }],
    [['--quiet'], { quiet: true }],
    [['--auditlog', '/tmp/a.log'], { auditLog: '/tmp/a.log' }],
  ])('%j', (argv, expected) => {
    expect(parseFlags(argv).layer).toEqual(expected);
  });

  it('returns --conf separately (it chooses a layer, it is not one)', () => {
    const r = parseFlags(['--conf', 'x.json', '--port', '1']);
    expect(r.conf).toBe('x.json');
    expect(r.layer).toEqual({ port: 1 });
  });
});

describe("parseFlags: Guarded Shell's own flags", () => {
  it.each<[string[], object]>([
    [['--stdio'], { transport: 'stdio' }],
    [['--mode', 'confirmChanges'], { mode: 'confirmChanges' }],
    [['--mode=readOnly'], { mode: 'readOnly' }],
    [['--isolation', 'required'], { isolation: 'required' }],
    [['--network', 'allow'], { network: 'allow' }],
    [['--timeout', '2.5'], { defaultTimeoutSeconds: 2.5 }],
    [['--max-timeout', '600'], { maxTimeoutSeconds: 600 }],
    [['--output-limit', '4096'], { outputLimitBytes: 4096 }],
    [['--concurrency', '2'], { concurrency: 2 }],
    [['--cors-origin', 'https://a.example', 'https://b.example'], { corsOrigins: ['https://a.example', 'https://b.example'] }],
    [['--protect', '.env', '*.pem'], { protectedPaths: ['.env', '*.pem'] }],
    [['--allow-pattern', 'python[0-9.]*'], { allowPatterns: ['python[0-9.]*'] }],
    [['--fetch-allow-loopback', '--fetch-allow-private'], { fetchAllowLoopback: true, fetchAllowPrivate: true }],
  ])('%j', (argv, expected) => {
    expect(parseFlags(argv).layer).toEqual(expected);
  });

  it.each([[['--help']], [['-h']]])('%j asks for help', (argv) => {
    expect(parseFlags(argv).help).toBe(true);
  });

  it('--version asks for the version', () => {
    expect(parseFlags(['--version']).version).toBe(true);
  });

  it('gives an empty layer for no flags', () => {
    expect(parseFlags([])).toEqual({ layer: {}, help: false, version: false });
  });
});

describe('parseFlags: errors are one clear line naming the flag', () => {
  it.each<[string, string[], string]>([
    ['--auth with --noauth', ['--auth', 'tok', '--noauth'], '--auth and --noauth'],
    ['--noauth with --auth', ['--noauth', '--auth', 'tok'], '--auth and --noauth'],
    ['an unknown flag', ['--allow-everything'], 'unknown flag --allow-everything'],
    ['an unknown flag with a value', ['--bogus=1'], 'unknown flag --bogus'],
    ['a single-dash unknown flag', ['-x'], 'unknown flag -x'],
    ['a stray positional argument', ['serve'], 'unexpected argument "serve"'],
    ['a missing value at the end', ['--port'], '--port needs a value'],
    ['a flag where the value should be', ['--auth', '--noauth'], '--auth needs a value'],
    ['a port that is not a number', ['--port', 'http'], '--port: expected a whole number'],
    ['a negative port', ['--port', '-1'], '--port: expected a whole number'],
    ['a fractional concurrency', ['--concurrency', '1.5'], '--concurrency: expected a whole number'],
    ['a zero timeout', ['--timeout', '0'], '--timeout: expected a positive number'],
    ['a word as timeout', ['--timeout', 'soon'], '--timeout: expected a positive number'],
    ['a negative max timeout', ['--max-timeout=-3'], '--max-timeout: expected a positive number'],
    ['an unknown mode', ['--mode', 'yolo'], '--mode: expected one of readOnly, confirm, confirmChanges, auto'],
    ['an unknown isolation', ['--isolation', 'docker'], '--isolation: expected one of'],
    ['an unknown network value', ['--network', 'maybe'], '--network: expected one of deny, fetch, domains, allow'],
    ['a domain entry that is a URL', ['--allow-domain', 'https://registry.npmjs.org'], '--allow-domain: entry 0 ("https://registry.npmjs.org")'],
    ['an unknown domain preset', ['--domain-preset', 'npmjs'], '--domain-preset: entry 0 ("npmjs"): expected one of npm, yarn, pypi, crates, go, github, rubygems, maven'],
    ['--allow without names', ['--allow'], '--allow needs at least one value'],
    ['--allow followed by another flag', ['--allow', '--quiet'], '--allow needs at least one value'],
    ['--allow= with nothing', ['--allow='], '--allow needs at least one value'],
    ['a value given to a switch', ['--quiet=false'], '--quiet takes no value'],
    ['a value given to --noauth', ['--noauth=yes'], '--noauth takes no value'],
  ])('rejects %s', (_what, argv, message) => {
    expect(flagError(argv).message).toContain(message);
  });
});

describe('helpText', () => {
  it('lists every flag and the environment variables', () => {
    const text = helpText('1.2.3');
    expect(text).toContain('guarded-shell 1.2.3');
    for (const name of FLAGS.keys()) expect(text).toContain(name);
    for (const v of ['ALLOW_COMMANDS', 'ALLOW_PATTERNS', 'MCP_SHELL_SAFE_PATH', 'GUARDED_SHELL_TOKEN']) expect(text).toContain(v);
  });

  it("includes every one of cmdshellmcp's flags", () => {
    for (const f of ['--cwd', '--host', '--port', '--allow', '--conf', '--auth', '--noauth', '--disableTools', '--sse', '--quiet', '--auditlog', '--editdelbk']) {
      expect(FLAGS.has(f) || f === '--conf', f).toBe(true);
      expect(helpText('1')).toContain(f);
    }
  });
});
