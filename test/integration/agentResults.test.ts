import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commandOutputShape } from '../../src/server/tools/commandResult';
import { fileOutputShape } from '../../src/server/tools/files/result';
import { CLI, httpClient, serverEnv, startServer, stdioClient, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * Results an agent can use (issue 14), through the real CLI (dist/cli.js) and the real SDK client over real
 * transports: whole commands with head and tail, explicit nulls, a small tool list, one warning per session,
 * auth answers that say what happened, and both origin projects' configurations as they are.
 */
let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-agent-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? '');

describe('results over HTTP', () => {
  let s: RunningServer;
  let c: Client;
  beforeAll(async () => {
    s = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--isolation', 'none', '--allow', 'seq', 'echo', 'sleep', 'ls']);
    c = await httpClient(s.url);
  });
  afterAll(async () => {
    await c.close();
    await s.stop();
  });

  it('a command printing 50 MB runs to its end (exit 0) and the answer holds its head, its tail and the size of the gap', async () => {
    // seq 1 6500000 writes 50,888,896 bytes.
    const started = performance.now();
    const r = await c.callTool({ name: 'shell_execute', arguments: { command: ['seq', '1', '6500000'] } });
    const ms = Math.round(performance.now() - started);
    const sc = structured(r);
    console.log(`50 MB command: ${ms} ms, ${sc.stdoutBytes} bytes written, answer ${text(r).length} chars`);
    expect(sc.outcome).toBe('ok');
    expect(sc.exitCode).toBe(0);
    expect(sc.stdoutBytes).toBe(50_888_896);
    expect(sc.stdoutTruncated).toBe(true);
    expect(sc.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(sc.stdout.endsWith('6499999\n6500000\n')).toBe(true);
    // Head and tail within the output budget (32 KiB); the executor's own gap (50 MB − 1 MiB) is in what readOutput reads.
    expect(Buffer.byteLength(JSON.stringify(sc.stdout))).toBeLessThanOrEqual(32 * 1024 + 2);
    expect(sc.stdout).toMatch(new RegExp(`\\[… [\\d,]+ bytes not shown; readOutput \\{"id":"${sc.stdoutId}","offset":\\d+\\} reads on …\\]`));
    const page = await c.callTool({ name: 'readOutput', arguments: { id: sc.stdoutId, offset: 512 * 1024 - 100, length: 200 } });
    expect(text(page)).toContain(`[… ${50_888_896 - 1024 * 1024} bytes left out …]`);
    // The text names where the bytes are instead of carrying them again.
    expect(text(r)).toContain(`readOutput {"id":"${sc.stdoutId}"}`);
    expect(text(r)).toContain('50888896 bytes written');
    expect(text(r)).not.toContain('6500000');
    expect(() => z.object(commandOutputShape).strict().parse(sc)).not.toThrow();
  });

  it('an explicit null equals an omitted optional argument (cmdshell, editFile, applyPatch, readFile)', async () => {
    const r = await c.callTool({ name: 'cmdshell', arguments: { command: 'echo', args: null } });
    expect(structured(r).outcome).toBe('ok');
    expect(structured(r).stdout).toBe('\n');
    fs.writeFileSync(path.join(root, 'n.txt'), 'one\ntwo\n');
    const e = await c.callTool({ name: 'editFile', arguments: { file: 'n.txt', script: 's/one/ONE/', args: null } });
    expect(structured(e).outcome).toBe('ok');
    const p = await c.callTool({ name: 'applyPatch', arguments: { file: 'n.txt', diff: '--- a/n.txt\n+++ b/n.txt\n@@ -2 +2 @@\n-two\n+TWO\n', args: null, pnum: null } });
    expect(structured(p).outcome).toBe('ok');
    expect(fs.readFileSync(path.join(root, 'n.txt'), 'utf8')).toBe('ONE\nTWO\n');
    const rd = await c.callTool({ name: 'readFile', arguments: { file: 'n.txt', offset: null, limit: null } });
    expect(() => z.object(fileOutputShape).parse(structured(rd))).not.toThrow();
    expect(text(rd)).toBe('ONE\nTWO\n');
    // A REQUIRED argument still refuses null.
    const bad = await c.callTool({ name: 'cmdshell', arguments: { command: null } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/expected string, received null at command/);
  });

  it('the tool list stays under 10 KB, publishes no output schemas and no type arrays (strict clients)', async () => {
    const list = await c.listTools();
    const json = JSON.stringify(list);
    console.log(`tools/list: ${json.length} bytes for ${list.tools.length} tools`);
    expect(list.tools.length).toBe(16);
    expect(json.length).toBeLessThanOrEqual(10 * 1024);
    expect(json).not.toMatch(/"type":\[/);
    for (const t of list.tools) expect(t.outputSchema).toBeUndefined();
    const shell = list.tools.find((t) => t.name === 'shell_execute')!;
    expect(shell.description).toContain('Allowed: seq echo sleep ls.');
    expect(shell.description).toContain('No OS sandbox');
  });

  it('bench: a 20,000-line file rewritten completely answers quickly with a capped diff; a second client is served meanwhile', async () => {
    const lines = (tag: string) => Array.from({ length: 20_000 }, (_, i) => `${tag} ${i} of the twenty thousand lines`).join('\n') + '\n';
    fs.writeFileSync(path.join(root, 'big.txt'), lines('old'));
    const other = await httpClient(s.url);
    try {
      const started = performance.now();
      const write = c.callTool({ name: 'writeFile', arguments: { file: 'big.txt', text: lines('new') } });
      const waits: number[] = [];
      let done = false;
      void write.finally(() => (done = true));
      while (!done) {
        const t = performance.now();
        await other.callTool({ name: 'listFiles', arguments: {} });
        waits.push(performance.now() - t);
      }
      const r = await write;
      const ms = performance.now() - started;
      console.log(`20,000-line rewrite: ${Math.round(ms)} ms, answer ${text(r).length} chars; second client's listFiles: ${waits.length} calls, slowest ${Math.round(Math.max(...waits))} ms`);
      expect(structured(r).outcome).toBe('ok');
      expect(structured(r).diffTruncated).toBe(true);
      expect(text(r).length).toBeLessThan(9000);
      expect(fs.readFileSync(path.join(root, 'big.txt'), 'utf8')).toBe(lines('new'));
      expect(waits.length).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it('says when a timeout above the maximum was clamped, and hints to split a whole command line', async () => {
    const r = await c.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'x'], timeout: 100000 } });
    expect(text(r)).toMatch(/timeout 100000 s is above the server's maximum; 300 s was used/);
    const d = await c.callTool({ name: 'shell_execute', arguments: { command: ['ls -la'] } });
    expect(structured(d).denial.code).toBe('COMMAND_NOT_ALLOWED');
    expect(text(d)).toContain('put each argument in its own element: ["ls","-la"]');
  });

  it('a command that runs out of time below the maximum says how much time it may ask for', async () => {
    const r = await c.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '5'], timeout: 0.5 } });
    expect(structured(r).outcome).toBe('timeout');
    expect(text(r)).toContain('Note: it had 0.5 s. If it needs longer, call again with "timeout" up to 300 (seconds).');
  });

  it('a stale token gets a 401 whose body says so; a missing one says how to send it; no OAuth endpoint exists', async () => {
    const base = new URL(s.url);
    const post = (headers: Record<string, string>) =>
      fetch(s.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: '{}' });
    const stale = await post({ Authorization: 'Bearer a-token-from-yesterday' });
    expect(stale.status).toBe(401);
    expect(((await stale.json()) as any).error.message).toMatch(/^Wrong or stale bearer token.*printed by "guarded-shell" when it starts.*GUARDED_SHELL_TOKEN/);
    const none = await post({});
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.message).toMatch(/^No bearer token: send "Authorization: Bearer <token>"/);
    for (const p of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await fetch(new URL(p, base));
      expect(res.status, p).toBe(404);
      expect(((await res.json()) as any).error.message).toMatch(/^No OAuth/);
    }
  });
});

describe('the sandbox warning is said once per session', () => {
  it('goes into the instructions and the first command result, never into later results (text or structuredContent)', async () => {
    // --isolation auto on a machine whose sandbox cannot run (or a root server) has a warning; force "no sandbox
    // available" by an empty PATH for the probe is not portable, so read whatever this machine says.
    const { client, transport } = await stdioClient(['--cwd', root, '--quiet', '--mode', 'auto', '--isolation', 'auto', '--allow', 'echo']);
    try {
      const first = await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'a'] } });
      const warning = structured(first).warning as string | undefined;
      if (warning === undefined) return void console.log('no isolation warning on this machine: nothing to say once');
      expect(client.getInstructions()).toContain(warning);
      expect(text(first)).toContain(`Warning: ${warning}`);
      expect(structured(first).warning).toBe(warning);
      const second = await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'b'] } });
      expect(structured(second).warning).toBeUndefined();
      expect(text(second)).toBe('b\n');
    } finally {
      await client.close();
      await transport.close();
    }
  });

  it('with the built-in default allowlist and the no-sandbox note, tools/list is still under 10 KB', async () => {
    const { client } = await stdioClient(['--cwd', root, '--quiet', '--mode', 'auto', '--isolation', 'none']);
    try {
      const bytes = JSON.stringify(await client.listTools()).length;
      console.log(`tools/list with the default allowlist: ${bytes} bytes`);
      expect(bytes).toBeLessThanOrEqual(10 * 1024);
    } finally {
      await client.close();
    }
  });

  it('without any sandbox (isolation none) results carry no warning text at all', async () => {
    const { client } = await stdioClient(['--cwd', root, '--quiet', '--mode', 'auto', '--isolation', 'none', '--allow', 'echo']);
    try {
      const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'a'] } });
      expect(text(r)).toBe('a\n');
    } finally {
      await client.close();
    }
  });
});

describe('drop-in for both origin projects', () => {
  it("mcp-shell-server's Claude Desktop configuration (a command and ALLOW_COMMANDS, no flags) connects over stdio", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      cwd: root,
      env: { ...serverEnv(), ALLOW_COMMANDS: 'ls,cat,pwd,grep,wc,touch,find', MCP_SHELL_OUTPUT_LIMIT_BYTES: '4096' },
      stderr: 'pipe',
    });
    let err = '';
    transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    await client.connect(transport);
    try {
      fs.writeFileSync(path.join(root, 'seed.txt'), 'hello\n');
      const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['cat', 'seed.txt'] } });
      expect(structured(r).stdout).toBe('hello\n');
      expect(structured(r).status).toBe(0);
      expect(err).toMatch(/transport stdio \(stdin is a pipe/);
      expect(err).toMatch(/config file none; /);
    } finally {
      await client.close();
    }
  });

  it("cmdshellmcp's example configuration (disableTools writeFile, editFile, applyPatch) leaves no change tool enabled", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-cmdshellmcp-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'cmdshellmcp.json'),
        JSON.stringify({ host: '127.0.0.1', port: 8003, quiet: true, auditlog: null, disableTools: ['writeFile', 'editFile', 'applyPatch'], allowed_commands: ['ls', 'pwd', 'cat'], auth: TOKEN }),
      );
      const s = await startServer(['--conf', path.join(dir, 'cmdshellmcp.json'), '--cwd', dir, '--isolation', 'none']);
      const c = await httpClient(s.url);
      try {
        const names = (await c.listTools()).tools.map((t) => t.name).sort();
        expect(names).toEqual(['cmdshell', 'fetch', 'listFiles', 'readFile', 'readOutput', 'shell_execute', 'shell_readonly']);
        const del = await c.callTool({ name: 'deleteFile', arguments: { file: 'cmdshellmcp.json' } });
        expect(del.isError).toBe(true);
        expect(text(del)).toMatch(/Tool deleteFile disabled/);
        expect(fs.existsSync(path.join(dir, 'cmdshellmcp.json'))).toBe(true);
        expect(s.stderr()).toMatch(/config file \S+cmdshellmcp\.json; transport http; no sandbox: every allowed command runs with/);
      } finally {
        await c.close();
        await s.stop();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
