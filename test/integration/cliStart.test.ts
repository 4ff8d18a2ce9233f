import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout } from '../helpers/needs';
import { CLI, serverEnv, startServer } from '../helpers/serverProcess';

/** Start-up through the real CLI: one-line failures that name the flag, the token file, unknown tool names. */
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-start-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: Record<string, string> = {}) => {
  // stdin from /dev/null: not a pipe, so the HTTP default applies (a pipe would mean stdio).
  const r = spawnSync(process.execPath, [CLI, '--cwd', dir, '--quiet', '--isolation', 'none', ...args], { env: { ...serverEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000, encoding: 'utf8' });
  return { code: r.status, err: r.stderr };
};
const lastLine = (s: string) => s.trim().split('\n').pop()!;

describe('guarded-shell start-up', () => {
  it('a port in use is one line naming --port and what to do (exit 1), not a raw EADDRINUSE', async () => {
    const s = await startServer(['--cwd', dir, '--quiet', '--isolation', 'none', '--noauth']);
    try {
      const port = new URL(s.url).port;
      const r = run(['--port', port, '--noauth']);
      expect(r.code).toBe(1);
      expect(lastLine(r.err)).toBe(`guarded-shell: port ${port} on 127.0.0.1 is already in use (--port / "port"): stop the other server or choose another port (--port 0 picks a free one).`);
    } finally {
      await s.stop();
    }
  });

  it('an audit log in a missing folder is one line naming --auditlog (exit 1)', () => {
    const r = run(['--port', '0', '--auditlog', path.join(dir, 'missing', 'audit.log')]);
    expect(r.code).toBe(1);
    expect(lastLine(r.err)).toMatch(/^guarded-shell: cannot open the audit log \S+audit\.log \(--auditlog \/ "auditlog"\): its folder does not exist; /);
  });

  it('an unknown or mistyped tool name is refused, quoting it (exit 2)', () => {
    const r = run(['--port', '0', '--disableTools', 'nosuchtool,readfile']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('entry 0 ("nosuchtool"): expected one of shell_execute, shell_readonly, cmdshell');
    expect(r.err).toContain('entry 1 ("readfile"): did you mean "readFile"?');
  });

  it('--token-file creates a 0600 token on the first start and the same token serves the next start', async () => {
    const file = path.join(dir, 'token');
    const tokenOf = (stderr: string) => /bearer token (?:\x1b\[1m)?(\S+?)(?:\x1b\[0m)?$/m.exec(stderr)![1];
    const a = await startServer(['--cwd', dir, '--quiet', '--isolation', 'none', '--token-file', file]);
    const first = tokenOf(a.stderr());
    await a.stop();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(first);
    const b = await startServer(['--cwd', dir, '--quiet', '--isolation', 'none'], { GUARDED_SHELL_TOKEN_FILE: file });
    expect(tokenOf(b.stderr())).toBe(first);
    await b.stop();
  });

  it('a token file others can read is refused, and so is a token file beside a fixed token', () => {
    const file = path.join(dir, 'open-token');
    fs.writeFileSync(file, 'x'.repeat(32) + '\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const r = run(['--port', '0', '--token-file', file]);
    expect(r.code).toBe(2);
    expect(lastLine(r.err)).toContain(`others can read it (mode 644); run "chmod 600 ${file}"`);
    fs.chmodSync(file, 0o600);
    const both = run(['--port', '0', '--token-file', file, '--auth', 'y'.repeat(32)]);
    expect(both.code).toBe(2);
    expect(lastLine(both.err)).toContain('the token file cannot be used together with a fixed token');
  });
});

describe('what the start-up prints', () => {
  it('human lines on stderr only (a generic client configuration), no audit JSON on stdout, one true line about the sandbox', async () => {
    const s = await startServer(['--cwd', dir, '--isolation', 'none', '--allow', 'ls', '--auth', 'tok_0123456789abcdef']);
    await s.stop();
    expect(s.stdout()).toBe('');
    expect(s.stderr()).toMatch(/transport http; no sandbox: every allowed command runs with this process's OS permissions/);
    expect(s.stderr()).toContain(`npx -y mcp-remote '${s.url}' --header 'Authorization: Bearer tok_0123456789abcdef'`);
    expect(s.stderr()).not.toContain('"servers"');
  });

  it('the audit stream and the client family when asked (--audit-stream stdout, --print-config claude)', async () => {
    const s = await startServer(['--cwd', dir, '--isolation', 'none', '--allow', 'ls', '--auth', 'tok_0123456789abcdef', '--audit-stream', 'stdout', '--print-config', 'claude']);
    await s.stop();
    expect(JSON.parse(s.stdout().split('\n')[0]!)).toMatchObject({ event: 'server', action: 'start' });
    expect(s.stderr()).toContain(`claude mcp add --transport http guarded-shell '${s.url}' --header 'Authorization: Bearer tok_0123456789abcdef'`);
    expect(run(['--port', '0', '--print-config', 'emacs']).code).toBe(2);
  });

  it('never says "not a sandbox" after naming the sandbox it runs', async (ctx) => {
    skipWithout(ctx, 'bubblewrap');
    const s = await startServer(['--cwd', dir, '--isolation', 'required', '--allow', 'ls']);
    await s.stop();
    expect(s.stderr()).toMatch(/; sandbox bwrap: every command runs inside it/);
    expect(s.stderr()).not.toMatch(/not a sandbox|no sandbox/);
  });
});

describe('token file ownership', () => {
  // Skipped unless the tests run as root: only root can give the file to another user (CI runs as root).
  it.skipIf(process.getuid?.() !== 0)("a root server refuses a token file another user owns (that user chose the token)", () => { // skipped: not root
    const file = path.join(dir, 'foreign-token');
    fs.writeFileSync(file, 'z'.repeat(32) + '\n', { mode: 0o600 });
    fs.chownSync(file, 65534, 65534);
    const r = run(['--port', '0', '--token-file', file]);
    expect(r.code).toBe(2);
    expect(lastLine(r.err)).toContain('owned by another user (uid 65534)');
  });
});
