import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { minimalShellServer } from './minimalTool';

/**
 * The floor for a Node MCP shell server, the bench's "minimal server" baseline: the same MCP SDK, one tool
 * `shell_execute` that spawns the given argv with NO policy (no allowlist, no rules, no audit, no approval, no
 * limits), stdout/stderr captured, over stdio (`--stdio`) or stateful Streamable HTTP on 127.0.0.1 (port 0,
 * prints "MCP endpoint <url>" on stderr like dist/cli.js). run.mjs bundles it the way `esbuild.mjs --production` bundles
 * dist/cli.js, so start-up figures compare like with like. Never ship this: it runs anything it is sent.
 *
 * `--prefix '<json argv>'` starts every command through that launcher: the bench passes
 * `unshare --pid --fork --kill-child --`, so that this baseline contains its commands too (each in a PID namespace
 * of its own, killed with it), as Guarded Shell's launcher does without a sandbox: containment is the product's
 * promise, not overhead to leave out of the comparison.
 */
const prefixAt = process.argv.indexOf('--prefix');
const PREFIX: string[] = prefixAt > 0 ? (JSON.parse(process.argv[prefixAt + 1]!) as string[]) : [];

function server(): McpServer {
  return minimalShellServer(
    (command) =>
      new Promise((resolve) => {
        const argv = [...PREFIX, ...command];
        const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (c: Buffer) => out.push(c));
        child.stderr.on('data', (c: Buffer) => err.push(c));
        const done = (exitCode: number | null, outcome: string) =>
          resolve({ outcome, exitCode, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
        child.once('error', (e) => done(null, `error: ${e.message}`));
        child.once('close', (code) => done(code, 'ok'));
      }),
  );
}

async function main(): Promise<void> {
  if (process.argv.includes('--stdio')) {
    await server().connect(new StdioServerTransport());
    process.stdin.on('end', () => process.exit(0));
    return;
  }
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const httpServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const id = req.headers['mcp-session-id'];
        const existing = typeof id === 'string' ? transports.get(id) : undefined;
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        if (existing) return existing.handleRequest(req, res, body);
        if (req.method === 'POST' && isInitializeRequest(body)) {
          const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sid) => void transports.set(sid, transport),
          });
          transport.onclose = () => void (transport.sessionId && transports.delete(transport.sessionId));
          await server().connect(transport);
          return transport.handleRequest(req, res, body);
        }
        res.writeHead(400).end('no session');
      })().catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  httpServer.listen(0, '127.0.0.1', () => {
    process.stderr.write(`MCP endpoint http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

void main();
