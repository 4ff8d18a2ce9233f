import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { startSwapper } from '../helpers/swapper';
import { strict } from '../helpers/capabilities';
import { has } from '../helpers/needs';

/**
 * Issue 12: FIFOs that hang the server, hard links that defeat name checks, and hidden / read-only paths that
 * applied to commands only. The real server, with bubblewrap and without.
 */
// The sandboxed variant runs where bubblewrap works, and always under GUARDED_SHELL_STRICT (where its absence must fail).
const isolations = ['none', ...(has('bubblewrap') || strict() ? ['required'] : [])] as const;

let base: string;
let root: string;
let outside: string;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ident-')));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe.each(isolations)('identity, not names; FIFOs; one list of hidden and read-only paths (isolation %s)', (isolation) => {
  let server: RunningServer;
  let client: Client;
  let audit: string;
  beforeAll(async () => {
    audit = path.join(root, 'audit.log');
    server = await startServer([
      '--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', isolation, '--mode', 'auto', '--allow', 'echo', 'cat',
      '--auditlog', audit, '--hide', 'secret', '--read-only', 'deploy', '--protect', '.env',
    ]);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });
  beforeEach(() => {
    for (const e of fs.readdirSync(root)) if (e !== 'audit.log') fs.rmSync(path.join(root, e), { recursive: true, force: true });
    for (const e of fs.readdirSync(outside)) fs.rmSync(path.join(outside, e), { recursive: true, force: true });
    fs.mkdirSync(path.join(root, '.git'));
    fs.writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
    fs.mkdirSync(path.join(root, 'secret'));
    fs.writeFileSync(path.join(root, 'secret', 'key'), 'HIDDEN-KEY\n');
    fs.mkdirSync(path.join(root, 'deploy'));
    fs.writeFileSync(path.join(root, 'deploy', 'prod.conf'), 'prod\n');
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=1\n');
    fs.writeFileSync(path.join(outside, 'outside.txt'), 'OUTSIDE\n');
  });

  const tool = async (c: Client, name: string, args: Record<string, unknown>) => {
    const r = await c.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    return { text: JSON.stringify(r.content ?? ''), s: structured(r), isError: r.isError === true };
  };
  const sh = (command: string[]) => tool(client, 'shell_execute', { command });

  it('a FIFO never blocks the server: every tool returns an error while another client is answered', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const other = await httpClient(server.url);
    // A blocked open never returns: every call answering at all (the request timeout is the bound) is the proof.
    const attempts = [
      sh(['cat', '<', 'pipe']),
      sh(['echo', 'x', '>', 'pipe']),
      sh(['echo', 'x', '>>', 'pipe']),
      tool(client, 'readFile', { file: 'pipe' }),
      tool(client, 'writeFile', { file: 'pipe', text: 'x' }),
      tool(client, 'copyFile', { source: 'pipe', destination: 'copy.txt' }),
      tool(client, 'editFile', { file: 'pipe', script: 's/a/b/' }),
      tool(client, 'deleteFile', { file: 'pipe' }),
    ];
    const answered = await tool(other, 'shell_execute', { command: ['echo', 'still answering'] });
    expect(answered.s.stdout).toBe('still answering\n');
    const health = await fetch(server.url.replace(/\/mcp$/, '/healthz'));
    expect(health.status).toBe(200);
    for (const r of await Promise.all(attempts)) {
      expect(r.s.outcome).not.toBe('ok');
      expect(r.text).toMatch(/FIFO|regular file/);
    }
    await other.close();
  });

  it('a file swapped for a FIFO (renameat2 exchange, 30 rounds) never blocks the server', async () => {
    fs.writeFileSync(path.join(root, 'f.txt'), 'plain\n');
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const other = await httpClient(server.url);
    const swapper = await startSwapper(path.join(root, 'f.txt'), path.join(root, 'pipe'));
    try {
      // Bounded by rounds: each round's calls all answer (a blocked open would never return; see tool()).
      for (let i = 0; i < 30; i++) {
        const calls = [
          sh(['cat', '<', 'f.txt']),
          sh(['echo', 'x', '>>', 'f.txt']),
          tool(client, 'readFile', { file: 'f.txt' }),
          tool(client, 'copyFile', { source: 'f.txt', destination: `c${i}.txt`, overwrite: true }),
          tool(client, 'replaceInFile', { file: 'f.txt', oldText: 'plain', newText: 'plain' }),
          tool(other, 'shell_execute', { command: ['echo', 'other'] }),
        ];
        const results = await Promise.all(calls);
        expect(results[5]!.s.stdout).toBe('other\n');
      }
    } finally {
      expect(await swapper.stop()).toBeGreaterThan(30);
      await other.close();
    }
  });

  it('a hard link to .git/config, the audit log or an outside file is neither appended to nor read', async () => {
    fs.linkSync(path.join(root, '.git', 'config'), path.join(root, 'hl-git'));
    fs.linkSync(audit, path.join(root, 'hl-audit'));
    fs.linkSync(path.join(outside, 'outside.txt'), path.join(root, 'hl-out'));
    const auditBefore = fs.readFileSync(audit, 'utf8');
    for (const name of ['hl-git', 'hl-audit', 'hl-out']) {
      for (const op of ['>>', '>']) {
        const r = await sh(['echo', 'PLANTED', op, name]);
        // Denied when the call is decided, and refused again when the file is opened at use.
        expect(['denied', 'error']).toContain(r.s.outcome);
        expect(r.s.denial?.message ?? r.s.error).toMatch(/hard links|read-only|protected/);
      }
      expect((await sh(['cat', '<', name])).text).toMatch(/hard links/);
      expect((await tool(client, 'readFile', { file: name })).text).toMatch(/hard links/);
      const copy = await tool(client, 'copyFile', { source: name, destination: `${name}.copy` });
      expect(copy.s.outcome).not.toBe('ok');
    }
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(fs.readFileSync(path.join(outside, 'outside.txt'), 'utf8')).toBe('OUTSIDE\n');
    expect(fs.readFileSync(audit, 'utf8').startsWith(auditBefore)).toBe(true);
    expect(fs.readFileSync(audit, 'utf8')).not.toContain('PLANTED\n');
  });

  it('hidden paths (--hide) are neither read nor written by redirects or file tools', async () => {
    expect((await sh(['cat', '<', 'secret/key'])).text).not.toContain('HIDDEN-KEY');
    const hidden = (await sh(['cat', '<', 'secret/key'])).s;
    expect(hidden.denial?.message ?? hidden.error).toMatch(/hidden path/);
    expect((await tool(client, 'readFile', { file: 'secret/key' })).s.denial?.code).toBe('PATH_PROTECTED');
    expect((await tool(client, 'listFiles', { path: 'secret' })).s.denial?.code).toBe('PATH_PROTECTED');
    expect((await tool(client, 'copyFile', { source: 'secret/key', destination: 'k.txt' })).s.outcome).not.toBe('ok');
    expect(['denied', 'error']).toContain((await sh(['echo', 'x', '>', 'secret/new'])).s.outcome);
    expect((await tool(client, 'writeFile', { file: 'secret/key', text: 'x' })).s.denial?.code).toBe('PATH_PROTECTED');
    expect(fs.readFileSync(path.join(root, 'secret', 'key'), 'utf8')).toBe('HIDDEN-KEY\n');
    expect(fs.existsSync(path.join(root, 'k.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'secret', 'new'))).toBe(false);
  });

  it('read-only paths (--read-only) and protected globs (--protect) are not changed by redirects or file tools', async () => {
    for (const target of ['deploy/prod.conf', '.env']) {
      // Denied when the call is decided (protected names) or refused when the file is opened (the one list).
      for (const op of ['>', '>>']) expect(['denied', 'error']).toContain((await sh(['echo', 'x', op, target])).s.outcome);
      expect((await tool(client, 'writeFile', { file: target, text: 'x' })).s.denial?.code).toBe('PATH_PROTECTED');
      expect((await tool(client, 'deleteFile', { file: target })).s.denial?.code).toBe('PATH_PROTECTED');
    }
    expect((await tool(client, 'readFile', { file: 'deploy/prod.conf' })).s.content).toBe('prod\n'); // readable
    expect(fs.readFileSync(path.join(root, 'deploy', 'prod.conf'), 'utf8')).toBe('prod\n');
    expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('TOKEN=1\n');
  });

  it('replacing or writing into a setuid/setgid file drops the bits', async () => {
    fs.writeFileSync(path.join(root, 'tool'), 'old\n');
    fs.chmodSync(path.join(root, 'tool'), 0o6755);
    await tool(client, 'writeFile', { file: 'tool', text: 'new' });
    expect(fs.statSync(path.join(root, 'tool')).mode & 0o7777).toBe(0o755);
    fs.chmodSync(path.join(root, 'tool'), 0o6755);
    expect((await sh(['echo', 'more', '>>', 'tool'])).s.outcome).toBe('ok');
    expect(fs.statSync(path.join(root, 'tool')).mode & 0o7777).toBe(0o755);
  });
});
