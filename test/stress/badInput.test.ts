import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpClient, startServer, structured, type RunningServer } from '../helpers/serverProcess';
import { rssKb } from '../helpers/procs';
import { recordFigures } from './figures';
import { baseArgs, killAll, messagesOf, processesIn, rawPost, rawSession, shell, tempWorkspace } from './helpers';

describe('bad input: each gets a clear error and the server keeps serving', () => {
  let root: string;
  let server: RunningServer;
  let client: Client;
  let session: string;
  let rejected = 0;

  beforeAll(async () => {
    root = tempWorkspace();
    fs.writeFileSync(`${root}/notes.txt`, 'hello\n');
    server = await startServer(baseArgs(root, ['echo', 'cat']));
    client = await httpClient(server.url);
    session = await rawSession(server.url);
  });

  afterAll(async () => {
    recordFigures('bad input', { rejectedRequests: rejected, serverAlive: server.proc.exitCode === null, serverRssMB: +(rssKb(server.proc.pid!) / 1024).toFixed(1) });
    await client?.close();
    await server?.stop();
    killAll(processesIn(root));
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function tool(name: string, args: unknown): Promise<{ isError: boolean; text: string; s: Record<string, any> }> {
    const r = await client.callTool({ name, arguments: args as Record<string, unknown> });
    rejected += (r as { isError?: boolean }).isError ? 1 : 0;
    return { isError: (r as { isError?: boolean }).isError === true, text: JSON.stringify((r as { content?: unknown }).content), s: structured(r) ?? {} };
  }

  const serving = async () => expect((await shell(client, ['echo', 'ok'])).stdout).toBe('ok\n');

  describe('malformed JSON-RPC', () => {
    it('answers a truncated JSON body with 400 and a parse error', async () => {
      const r = await rawPost(server.url, '{"jsonrpc":"2.0","id":1,"method":', { 'mcp-session-id': session });
      expect(r.status).toBe(400);
      expect(messagesOf(r.body)[0].error.code).toBe(-32700);
      rejected++;
      await serving();
    });

    it('answers JSON that is not JSON-RPC with 400', async () => {
      const r = await rawPost(server.url, '{"hello":"world"}', { 'mcp-session-id': session });
      expect(r.status).toBe(400);
      expect(messagesOf(r.body)[0].error.message).toMatch(/invalid|parse|JSON-RPC/i);
      rejected++;
      await serving();
    });

    it('answers a request without a session that is not initialize with 400 naming the problem', async () => {
      const r = await rawPost(server.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
      expect(r.status).toBe(400);
      expect(messagesOf(r.body)[0].error.message).toMatch(/session|initialize/i);
      rejected++;
    });

    it('answers a 100,000-deep nested argument with a clear error, not a crash', async () => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const body = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shell_execute","arguments":{"command":${deep}}}}`;
      const r = await rawPost(server.url, body, { 'mcp-session-id': session });
      const msg = messagesOf(r.body)[0];
      recordFigures('bad input: 100k-deep JSON', { status: r.status, error: String(msg.error?.message ?? msg.result?.content?.[0]?.text ?? '').slice(0, 80) });
      // Either the parser refuses it (400 parse error) or the schema does (a tool error naming "command").
      if (r.status === 400) expect(msg.error.code).toBe(-32700);
      else expect(JSON.stringify(msg)).toMatch(/command/);
      rejected++;
      await serving();
    });
  });

  describe('oversized requests', () => {
    it('refuses a 100 MB argument with 413 and serves the next call on the same session', async () => {
      const rssBefore = rssKb(server.proc.pid!);
      const huge = 'x'.repeat(100 * 1024 * 1024);
      // The 413 comes back while the client is still sending; under load the client may see the connection closed
      // before it reads that answer (undici: "other side closed"). Either way the body was refused.
      await expect(client.callTool({ name: 'shell_execute', arguments: { command: ['cat'], stdin: huge } })).rejects.toThrow(/413|too large|fetch failed|other side closed/i);
      rejected++;
      const rssAfter = rssKb(server.proc.pid!);
      recordFigures('bad input: 100 MB argument', { status: 413, serverRssDeltaMB: +((rssAfter - rssBefore) / 1024).toFixed(1) });
      // The body was refused, not buffered: the server did not grow by anything like 100 MB.
      expect(rssAfter - rssBefore).toBeLessThan(50 * 1024);
      await serving();
    });
  });

  describe('deep or wrong-typed arguments', () => {
    it('says "command" must be an array of strings when it is a number', async () => {
      const r = await tool('shell_execute', { command: 42 });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/command/);
    });

    it('refuses an empty command array', async () => {
      const r = await tool('shell_execute', { command: [] });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/command/);
    });

    it('refuses nested arrays inside command', async () => {
      let nested: unknown = ['echo'];
      for (let i = 0; i < 1000; i++) nested = [nested];
      const r = await tool('shell_execute', { command: nested });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/command/);
    });

    it('names the timeout when it is a word or negative', async () => {
      for (const timeout of ['soon', -1]) {
        const r = await tool('shell_execute', { command: ['echo', 'x'], timeout });
        expect(r.isError).toBe(true);
        expect(r.text).toMatch(/timeout/);
      }
    });

    it('names stdin when it is an object', async () => {
      const r = await tool('shell_execute', { command: ['cat'], stdin: { evil: true } });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/stdin/);
    });

    it('refuses a call without arguments, and an unknown tool, by name', async () => {
      const a = await tool('shell_execute', undefined);
      expect(a.isError).toBe(true);
      expect(a.text).toMatch(/command/);
      const b = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
      rejected++;
      expect(b).toMatch(/no_such_tool/);
      await serving();
    });
  });

  describe('invalid UTF-8', () => {
    const call = (commandJsonBytes: Buffer) =>
      rawPost(
        server.url,
        Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"shell_execute","arguments":{"command":'), commandJsonBytes, Buffer.from('}}}')]),
        { 'mcp-session-id': session },
      );

    it('denies a command NAME with invalid UTF-8 bytes, naming it (never runs a mangled program)', async () => {
      const r = await call(Buffer.concat([Buffer.from('["ech'), Buffer.from([0xff, 0xfe]), Buffer.from('o","x"]')]));
      expect(r.status).toBe(200);
      const res = messagesOf(r.body)[0].result;
      expect(res.isError).toBe(true);
      expect(res.structuredContent.outcome).toBe('denied');
      expect(res.structuredContent.denial.message).toMatch(/not allowed|invalid|character/i);
      rejected++;
    });

    it('passes invalid UTF-8 in a data argument on as U+FFFD replacement characters, never as raw bytes', async () => {
      const r = await call(Buffer.concat([Buffer.from('["echo","a'), Buffer.from([0xff]), Buffer.from('b"]')]));
      const res = messagesOf(r.body)[0].result;
      expect(res.structuredContent.outcome).toBe('ok');
      expect(res.structuredContent.stdout).toBe('a\uFFFDb\n');
    });
  });

  describe('NUL bytes in names', () => {
    it('denies a NUL in the command name', async () => {
      const r = await tool('shell_execute', { command: ['ec\u0000ho', 'x'] });
      expect(r.s.outcome).toBe('denied');
      expect(r.s.denial.message).toMatch(/NUL/);
    });

    it('denies a NUL in the working directory', async () => {
      const r = await tool('shell_execute', { command: ['echo', 'x'], directory: 'sub\u0000dir' });
      expect(r.s.outcome).toBe('denied');
      expect(r.s.denial.message).toMatch(/NUL/);
    });

    it('denies a NUL in a redirect target (nothing is written)', async () => {
      const r = await tool('shell_execute', { command: ['echo', 'x', '>', 'out\u0000.txt'] });
      expect(r.s.outcome).toBe('denied');
      expect(r.s.denial.message).toMatch(/NUL/);
      expect(fs.readdirSync(root).sort()).toEqual(['notes.txt']);
    });

    it('refuses a NUL in a file tool path with a clear error', async () => {
      const r = await tool('readFile', { file: 'notes\u0000.txt' });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/NUL/);
    });

    it('refuses a NUL in an environment variable name', async () => {
      const r = await tool('shell_execute', { command: ['echo', 'x'], envs: { 'A\u0000B': 'x' } });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/A.{0,6}B|environment|NUL|not allowed/i);
      await serving();
    });
  });
});
