import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURE_BIN, httpClient, sseClient, startServer, stdioClient, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { pidsWithCmdline, rssKb, sleep, uniqueSeconds } from '../helpers/procs';

const ALLOW = ['yes', 'echo', 'cat', 'seq', 'wc', 'ls', 'head', 'sleep', 'sort', 'touch', `${FIXTURE_BIN}/spawn-tree`, `${FIXTURE_BIN}/ignore-term`, `${FIXTURE_BIN}/escape-setsid`];

function tmpWorkspace(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-int-')));
}

async function call(client: Client, command: string[], extra: Record<string, unknown> = {}) {
  const result = await client.callTool({ name: 'shell_execute', arguments: { command, ...extra } });
  return { result, s: structured(result) };
}

describe('standalone server over Streamable HTTP', () => {
  let ws: string;
  let outside: string;
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    ws = tmpWorkspace();
    outside = tmpWorkspace();
    fs.symlinkSync(outside, path.join(ws, 'link-out'));
    server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--allow', ...ALLOW, '--output-limit', '1048576']);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('lists both command tools with schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['shell_execute', 'cmdshell']));
    const shell = tools.find((t) => t.name === 'shell_execute')!;
    expect(shell.description).toContain('Allowed: yes echo cat');
    expect(shell.annotations?.destructiveHint).toBe(true);
    expect(shell.outputSchema).toBeUndefined(); // not published: tools/list stays under 10 KB (agentResults.test.ts)
  });

  it('runs an allowed command and returns its exit code and output', async () => {
    const { result, s } = await call(client, ['echo', 'hello', 'world']);
    expect(result.isError).toBe(false);
    expect(s).toMatchObject({ outcome: 'ok', exitCode: 0, stdout: 'hello world\n', stderr: '', status: 0 });
  });

  it('returns the output of a failing command with isError and its exit status', async () => {
    const { result, s } = await call(client, ['ls', 'no-such-file']);
    expect(result.isError).toBe(true);
    expect(s.outcome).toBe('failed');
    expect(s.exitCode).toBe(2);
    expect(s.stderr).toContain('no-such-file');
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^Error executing command: Command failed with exit status 2/);
  });

  it('stops a command that is not on the allowlist and names the rule', async () => {
    const { result, s } = await call(client, ['rm', '-rf', '.']);
    expect(result.isError).toBe(true);
    expect(s.outcome).toBe('denied');
    expect(s.denial).toMatchObject({ code: 'COMMAND_NOT_ALLOWED', rule: 'allowlist.not-listed' });
  });

  it('cmdshell (cmdshellmcp form) runs through the same pipeline, operators being plain data', async () => {
    const ok = await client.callTool({ name: 'cmdshell', arguments: { command: 'echo', args: ['a', '|', 'b', '>', 'c'] } });
    expect(structured(ok)).toMatchObject({ outcome: 'ok', stdout: 'a | b > c\n' });
    expect(fs.existsSync(path.join(ws, 'c'))).toBe(false);
    const denied = await client.callTool({ name: 'cmdshell', arguments: { command: 'rm', args: ['x'] } });
    expect(structured(denied).denial.code).toBe('COMMAND_NOT_ALLOWED');
  });

  it('runs a pipeline: seq 1 100000 | wc -l gives 100000', async () => {
    const { s } = await call(client, ['seq', '1', '100000', '|', 'wc', '-l']);
    expect(s.outcome).toBe('ok');
    expect(s.stdout.trim()).toBe('100000');
  });

  it('reports progress about once a second when the client sends a progress token', async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '2.6'] } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(structured(result).outcome).toBe('ok');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress[0]!.message).toMatch(/s elapsed, \d+ bytes of output/);
  });

  it('passes stdin to the command', async () => {
    const { s } = await call(client, ['cat'], { stdin: 'from stdin\nsecond line\n' });
    expect(s.stdout).toBe('from stdin\nsecond line\n');
  });

  it('writes a redirect inside the workspace and reads an input redirect', async () => {
    expect((await call(client, ['seq', '3', '>', 'nums.txt'])).s.outcome).toBe('ok');
    expect(fs.readFileSync(path.join(ws, 'nums.txt'), 'utf8')).toBe('1\n2\n3\n');
    expect((await call(client, ['echo', '4', '>>', 'nums.txt'])).s.outcome).toBe('ok');
    const { s } = await call(client, ['sort', '-r', '<', 'nums.txt']);
    expect(s.stdout).toBe('4\n3\n2\n1\n');
  });

  it.each([
    ['an absolute path', () => path.join(outside, 'abs.txt')],
    ['a .. escape', () => `../${path.basename(outside)}/dotdot.txt`],
    ['a symlink that leads outside', () => 'link-out/via-link.txt'],
  ])('stops a redirect that writes outside the workspace through %s, and writes nothing', async (_label, target) => {
    const { s } = await call(client, ['echo', 'pwned', '>', target()]);
    expect(s.outcome).toBe('denied');
    expect(s.denial.code).toBe('PATH_OUTSIDE_ROOT');
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('stops a working directory outside the workspace', async () => {
    const { s } = await call(client, ['ls'], { directory: outside });
    expect(s.denial.code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('kills a command that backgrounds grandchildren at its timeout, leaving no process behind', async () => {
    const secs = uniqueSeconds();
    // Outcome timeout (not a normal end after the tree's sleep) is the proof it was killed at the timeout.
    const { s } = await call(client, [`${FIXTURE_BIN}/spawn-tree`, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
    await sleep(500);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('kills a command that ignores SIGTERM with SIGKILL after the grace', async () => {
    const secs = uniqueSeconds();
    const { s } = await call(client, [`${FIXTURE_BIN}/ignore-term`, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('kills a grandchild that escaped the process group with setsid', async () => {
    const secs = uniqueSeconds();
    const { s } = await call(client, [`${FIXTURE_BIN}/escape-setsid`, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    await sleep(200);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('kills the process tree when the client cancels the call', async () => {
    const secs = uniqueSeconds();
    const ac = new AbortController();
    const pending = client.callTool({ name: 'shell_execute', arguments: { command: [`${FIXTURE_BIN}/spawn-tree`, secs] } }, undefined, { signal: ac.signal });
    for (let i = 0; i < 50 && pidsWithCmdline(['sleep', secs]).length < 3; i++) await sleep(100);
    expect(pidsWithCmdline(['sleep', secs]).length).toBe(3);
    ac.abort();
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 50 && pidsWithCmdline(['sleep', secs]).length > 0; i++) await sleep(100);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });

  it('runs a 50 MB output to its end, keeps its first and last bytes, says how much was left out, and its memory stays flat', async () => {
    await call(client, ['echo', 'warm-up']);
    const before = rssKb(server.proc.pid!);
    const { s } = await call(client, ['yes', 'fifty megabytes of output', '|', 'head', '-c', '50000000']);
    const after = rssKb(server.proc.pid!);
    expect(s.outcome).toBe('ok');
    expect(s.stdoutTruncated).toBe(true);
    expect(s.stdoutBytes).toBe(50_000_000);
    // The answer shows head and tail within the output budget; the kept megabyte (with the executor's gap of
    // 48,951,424 bytes) is read with readOutput; the 50 MB is never held. 50e6 = 1923076 × 26 + 24.
    expect(s.stdout).toMatch(/^fifty megabytes of output\n[^]*\n\[… [\d,]+ bytes not shown; readOutput \{"id":"o\d+","offset":\d+\} reads on …\]\n[^]*fifty megabytes of output\nfifty megabytes of outpu$/);
    console.log(`server RSS growth for a 50 MB output: ${after - before} kB`);
    // The whole 50 MB crosses into the server now (it is drained, not cut): what grows is the stream's short-lived
    // chunks before a GC, not the kept text (test/unit/exec/capture.test.ts shows 500 MB grows no more than 50 MB).
    expect(after - before).toBeLessThan(64 * 1024);
  });

  it('runs at most --concurrency commands at once and queues the rest (limit 2, 6 calls)', async () => {
    const ws2 = tmpWorkspace();
    const s2 = await startServer(['--cwd', ws2, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--allow', 'sleep', '--concurrency', '2']);
    const c2 = await httpClient(s2.url);
    try {
      // ~1.2 s, spelt uniquely: the sampler counts only this test's sleeps, not other runs' on a shared machine.
      const secs = (1.2 + Math.random() / 1000).toFixed(7);
      let maxSeen = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          maxSeen = Math.max(maxSeen, pidsWithCmdline(['sleep', secs]).length);
          await sleep(50);
        }
      })();
      const results = await Promise.all(Array.from({ length: 6 }, () => call(c2, ['sleep', secs])));
      sampling = false;
      await sampler;
      expect(results.map((r) => r.s.outcome)).toEqual(Array(6).fill('ok'));
      expect(maxSeen).toBeLessThanOrEqual(2);
      expect(maxSeen).toBeGreaterThan(0);
      const queued = results.map((r) => r.s.queueMs as number).filter((q) => q > 500);
      expect(queued.length).toBeGreaterThanOrEqual(3);
    } finally {
      await c2.close();
      await s2.stop();
    }
  });

  it('stops every command tree when the server receives SIGTERM mid-command', async () => {
    const ws3 = tmpWorkspace();
    const s3 = await startServer(['--cwd', ws3, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--allow', `${FIXTURE_BIN}/spawn-tree`]);
    const c3 = await httpClient(s3.url);
    const secs = uniqueSeconds();
    // The server dies mid-call: the client's promise settles by its own timeout at the latest.
    const pending = c3.callTool({ name: 'shell_execute', arguments: { command: [`${FIXTURE_BIN}/spawn-tree`, secs] } }, undefined, { timeout: 5_000 }).catch(() => undefined);
    for (let i = 0; i < 50 && pidsWithCmdline(['sleep', secs]).length < 3; i++) await sleep(100);
    expect(pidsWithCmdline(['sleep', secs]).length).toBe(3);
    const code = await s3.stop('SIGTERM');
    expect(code).toBe(0);
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
    await pending;
    await c3.close().catch(() => {});
  });
});

describe('HTTP gates', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(['--cwd', tmpWorkspace(), '--auth', TOKEN, '--quiet', '--isolation', 'none']);
  });
  afterAll(async () => server?.stop());

  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });

  function post(headers: Record<string, string>): Promise<number> {
    const url = new URL(server.url);
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: url.port, path: '/mcp', method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(init);
    });
  }

  it('refuses a request without a token (401)', async () => {
    expect(await post({})).toBe(401);
  });
  it('refuses a wrong token (401)', async () => {
    expect(await post({ Authorization: 'Bearer wrong-token' })).toBe(401);
  });
  it('stops DNS rebinding: a foreign Host header is refused even with the right token', async () => {
    expect(await post({ Authorization: `Bearer ${TOKEN}`, Host: `evil.example:${new URL(server.url).port}` })).toBe(403);
  });
  it('refuses a browser origin that was not listed', async () => {
    expect(await post({ Authorization: `Bearer ${TOKEN}`, Origin: 'http://evil.example' })).toBe(403);
  });
  it('accepts the right token', async () => {
    expect(await post({ Authorization: `Bearer ${TOKEN}` })).toBe(200);
  });
});

describe('other transports', () => {
  it('serves the legacy SSE transport with --sse', async () => {
    const server = await startServer(['--cwd', tmpWorkspace(), '--auth', TOKEN, '--quiet', '--sse', '--isolation', 'none']);
    try {
      expect(server.url).toMatch(/\/sse$/);
      const client = await sseClient(server.url);
      const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'over sse'] } });
      expect(structured(r).stdout).toBe('over sse\n');
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it('serves MCP over stdio with --stdio (the audit goes to stderr, not into the MCP stream)', async () => {
    const { client } = await stdioClient(['--cwd', tmpWorkspace(), '--isolation', 'none']);
    try {
      const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'over stdio'] } });
      expect(structured(r).stdout).toBe('over stdio\n');
    } finally {
      await client.close();
    }
  });
});
