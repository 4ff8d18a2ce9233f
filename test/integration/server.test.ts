import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURE_BIN, httpClient, sseClient, startServer, stdioClient, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * The standalone server through the real CLI: tools, pipelines, redirects, confinement, the HTTP gates and the three
 * transports. Its process handling (timeouts, cancellation, SIGTERM, queueing, a 50 MB output) is
 * server.processes.test.ts, in npm run test:long.
 */
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
