import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AuditLog, digest, fileSink, looksSecretName, looksSecretValue, memorySink, REDACTED, redactArgv, redactEnv, redactValue, streamSink,
  type AuditRecord,
} from '../../../src/core/audit';
import { makeSandbox } from './tempWorkspace';
import { Writable } from 'node:stream';

const GITHUB = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const GITHUB_PAT = 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnop';
const AWS = 'AKIAIOSFODNN7EXAMPLE';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const LONG = 'x'.repeat(65);

describe('redactArgv (mcp-shell-server rules)', () => {
  it.each<[string, string[], string[]]>([
    ['hides the value of --token=abc and keeps the name', ['curl', '--token=abc'], ['curl', '--token=[REDACTED]']],
    ['hides the value of --api-key=abc', ['tool', '--api-key=abc'], ['tool', '--api-key=[REDACTED]']],
    ['hides PASSWORD=x given as an argument', ['env-like', 'DB_PASSWORD=hunter2'], ['env-like', 'DB_PASSWORD=[REDACTED]']],
    ['hides the element after --password', ['mysql', '--password', 'hunter2', 'db'], ['mysql', '--password', REDACTED, 'db']],
    ['hides the element after -auth-token', ['x', '-auth-token', 'abc'], ['x', '-auth-token', REDACTED]],
    ['hides a GitHub token standing alone', ['gh', 'auth', 'login', GITHUB], ['gh', 'auth', 'login', REDACTED]],
    ['hides a fine-grained GitHub token', ['x', GITHUB_PAT], ['x', REDACTED]],
    ['hides an AWS access key id', ['aws', AWS], ['aws', REDACTED]],
    ['hides a JWT', ['curl', JWT], ['curl', REDACTED]],
    ['hides a password inside a URL', ['git', 'clone', 'https://user:s3cret@example.com/r.git'], ['git', 'clone', REDACTED]],
    ['keeps ordinary arguments', ['ls', '-la', 'src/'], ['ls', '-la', 'src/']],
    ['keeps a number, however long', ['seq', '1', '1'.repeat(80)], ['seq', '1', '1'.repeat(80)]],
  ])('%s', (_what, argv, expected) => {
    expect(redactArgv(argv)).toEqual(expected);
  });

  it('turns a long non-numeric value into a short sha256 digest', () => {
    const out = redactArgv(['echo', LONG]);
    expect(out[1]).toBe(digest(LONG));
    expect(out[1]).toMatch(/^sha256:[0-9a-f]{12}$/);
  });

  it('keeps a value of exactly 64 characters', () => {
    const v = 'y'.repeat(64);
    expect(redactArgv([v])).toEqual([v]);
  });

  it('stops a bearer token leaking from a curl -H "Authorization: Bearer …" header', () => {
    const out = redactArgv(['curl', '-H', 'Authorization: Bearer abcdef0123456789', 'https://api.example']);
    expect(out.join(' ')).not.toContain('abcdef0123456789');
  });

  it('stops an API key leaking from a header value "X-Api-Key: …"', () => {
    expect(redactArgv(['curl', '-H', 'X-Api-Key: k3y-v4lue-123']).join(' ')).not.toContain('k3y-v4lue-123');
  });
});

describe('secret detection', () => {
  it.each([['API_TOKEN'], ['github_token'], ['DB_PASSWORD'], ['aws-secret-access-key'], ['SSH_PRIVATE_KEY'], ['MY_CREDENTIALS'], ['HTTP_AUTHORIZATION'], ['SESSION_ID'], ['passwd']])(
    '%s is a secret-looking name',
    (name) => expect(looksSecretName(name)).toBe(true),
  );
  it.each([['LANG'], ['PATH'], ['HOME'], ['LC_ALL']])('%s is not', (name) => expect(looksSecretName(name)).toBe(false));

  it.each([[GITHUB], [AWS], [JWT], ['sk-' + 'a'.repeat(20)], ['xoxb-1234567890-abc'], ['Bearer abc'], ['-----BEGIN RSA PRIVATE KEY-----']])(
    '%s is a secret-looking value',
    (v) => expect(looksSecretValue(v)).toBe(true),
  );
  it.each([['hello'], ['src/index.ts'], ['https://example.com/a:b'], ['12345']])('%s is not', (v) => expect(looksSecretValue(v)).toBe(false));

  it('redactValue keeps short plain values, hides secrets, digests long ones', () => {
    expect(redactValue('plain')).toBe('plain');
    expect(redactValue(GITHUB)).toBe(REDACTED);
    expect(redactValue(LONG)).toBe(digest(LONG));
    expect(redactValue('-12.5')).toBe('-12.5');
  });
});

describe('redactEnv', () => {
  it('hides names and values of secret-looking variables, keeps harmless ones', () => {
    const out = redactEnv({ API_TOKEN: 'abc', LANG: 'C.UTF-8', DB_PASSWORD: 'hunter2' });
    expect(out.LANG).toBe('C.UTF-8');
    const text = JSON.stringify(out);
    for (const leak of ['API_TOKEN', 'abc', 'DB_PASSWORD', 'hunter2']) expect(text).not.toContain(leak);
  });

  it('hides a secret-looking value under a harmless name', () => {
    expect(redactEnv({ NOTE: GITHUB }).NOTE).toBe(REDACTED);
  });
});

describe('AuditLog.record', () => {
  function recordOne(event: Parameters<AuditLog['record']>[0]): AuditRecord {
    const sink = memorySink();
    new AuditLog([sink]).record(event);
    expect(sink.records).toHaveLength(1);
    return sink.records[0]!;
  }

  it('adds an ISO timestamp and keeps plain fields', () => {
    const r = recordOne({ event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'r1', result_type: 'success', return_code: 0, duration: 0.25 });
    expect(r.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r).toMatchObject({ event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'r1', result_type: 'success', return_code: 0, duration: 0.25 });
  });

  it('redacts the argv field by the argv rules', () => {
    const r = recordOne({ event: 'shell_execution_audit', argv: ['mysql', '--password', 'hunter2'] });
    expect(r.argv).toEqual(['mysql', '--password', REDACTED]);
  });

  it('redacts the env field by the env rules', () => {
    const r = recordOne({ event: 'shell_execution_audit', env: { GITHUB_TOKEN: 'abc', LANG: 'C' } });
    expect(JSON.stringify(r.env)).not.toContain('abc');
    expect(r.env).toMatchObject({ LANG: 'C' });
  });

  it('hides a field whose own name looks secret', () => {
    expect(recordOne({ event: 'server', token: 'plain-looking' }).token).toBe(REDACTED);
  });

  it('hides secret-looking words inside free text but keeps the text readable', () => {
    const r = recordOne({ event: 'shell_execution_audit', rejection_reason: `Command not allowed: ${GITHUB} is bad` });
    expect(r.rejection_reason).toBe(`Command not allowed: ${REDACTED} is bad`);
  });

  it('stops a --password value leaking through the joined command line of an approval event', () => {
    // run.ts logs approvals as { command: decision.key } — argv joined by spaces — so the argv rules must still apply.
    const r = recordOne({ event: 'approval_audit', result_type: 'approved', command: 'mysql --password hunter2 db' });
    expect(JSON.stringify(r)).not.toContain('hunter2');
  });

  it('stops a --password value leaking through a denial message that quotes the command line', () => {
    const r = recordOne({ event: 'shell_execution_audit', rejection_reason: 'Read-only mode: "mysql --password hunter2" is not a command known to be read-only.' });
    expect(JSON.stringify(r)).not.toContain('hunter2');
  });

  it('never logs stdout/stderr bodies, even when a caller passes them in', () => {
    const r = recordOne({ event: 'shell_execution_audit', stdout: 'BODY-OF-STDOUT', stderr: 'BODY-OF-STDERR', stdout_bytes: 14 });
    const text = JSON.stringify(r);
    expect(text).not.toContain('BODY-OF-STDOUT');
    expect(text).not.toContain('BODY-OF-STDERR');
    expect(r.stdout_bytes).toBe(14);
  });

  it('keeps writing to the other sinks when one sink throws', () => {
    const good = memorySink();
    const log = new AuditLog([{ write: () => { throw new Error('disk full'); } }, good]);
    expect(() => log.record({ event: 'server' })).not.toThrow();
    expect(good.records).toHaveLength(1);
  });

  it('memorySink keeps only the newest records up to its limit', () => {
    const sink = memorySink(2);
    const log = new AuditLog([sink]);
    for (const id of ['a', 'b', 'c']) log.record({ event: 'server', request_id: id });
    expect(sink.records.map((r) => r.request_id)).toEqual(['b', 'c']);
  });

  it('streamSink writes one JSON line per record', () => {
    const chunks: string[] = [];
    const stream = new Writable({ write(c, _e, cb) { chunks.push(String(c)); cb(); } });
    new AuditLog([streamSink(stream)]).record({ event: 'server', action: 'start' });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.endsWith('\n')).toBe(true);
    expect(JSON.parse(chunks[0]!)).toMatchObject({ event: 'server', action: 'start' });
  });
});

describe('fileSink', () => {
  it('creates the audit file with mode 0600 (it names commands and paths) and appends JSON lines', () => {
    const s = makeSandbox();
    const file = path.join(s.base, 'audit.log');
    const prev = process.umask(0o000); // even with a permissive umask the file must not be group/world readable
    let sink;
    try {
      sink = fileSink(file);
    } finally {
      process.umask(prev);
    }
    const log = new AuditLog([sink]);
    log.record({ event: 'server', action: 'start' });
    log.record({ event: 'server', action: 'stop' });
    log.close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.action)).toEqual(['start', 'stop']);
  });

  it('appends to an existing file instead of truncating it', () => {
    const s = makeSandbox();
    const file = path.join(s.base, 'audit.log');
    fs.writeFileSync(file, '{"old":true}\n', { mode: 0o600 });
    const log = new AuditLog([fileSink(file)]);
    log.record({ event: 'server' });
    log.close();
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe('{"old":true}');
  });
});
