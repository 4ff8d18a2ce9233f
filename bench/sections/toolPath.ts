import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { minimalShellServer } from '../minimalTool';
import { parseFlags } from '../../src/cli/flags';
import { unavailableApprover } from '../../src/core/approval';
import { AuditLog } from '../../src/core/audit';
import { checkCommand } from '../../src/core/commands/decide';
import type { ExecResult, ExecSpec, Executor } from '../../src/core/exec/types';
import { plainLinuxLauncher } from '../../src/core/exec/launch';
import { resolveSettings } from '../../src/core/config/settings';
import { ServerContext } from '../../src/server/context';
import { createServer } from '../../src/server/createServer';
import { isolationFor, probeOnce } from '../../src/server/isolation';
import type { Row, SectionResult } from '../report';
import { serverArgs } from '../server';
import { summarize, type Summary } from '../stats';
import { interleaved } from './latency';

/**
 * The server's own per-call work for `shell_execute`, without a process and without a transport: the CLI's
 * server (the same flags as the other sections, the same policy, the real isolation state with its wrap, an audit
 * log with no sink as under --quiet) and a minimal SDK server with bench/minimalServer.ts's tool, both in this
 * process over the SDK's in-memory transport, with one stub executor that answers "hello\n" at once. What is left
 * between them is exactly the guard's work: zod, decide (with its real PATH lookups and real paths), the mode and
 * approval gate, the audit record and the result. Opt-in (`--only=toolpath`): a tool for working on that path.
 */

const HELLO: ExecResult = {
  outcome: 'ok', exitCode: 0, signal: null, stages: [{ exitCode: 0, signal: null }], stdout: 'hello\n', stderr: '',
  stdoutBytes: 6, stderrBytes: 0, stdoutTruncated: false, stderrTruncated: false, durationMs: 0, queueMs: 0,
};

function stubExecutor(): Executor {
  return {
    run: (spec: ExecSpec) => {
      if (spec.stages[0]?.args.at(-1) !== 'hello') throw new Error('stub executor: not echo hello');
      return Promise.resolve(HELLO);
    },
    shutdown: () => Promise.resolve(),
    active: 0,
    queued: 0,
    setConcurrency: () => {},
  };
}

function minimalServer(): McpServer {
  return minimalShellServer(async () => {
    const r = await stubExecutor().run({ stages: [{ file: 'echo', args: ['hello'] }], launcher: plainLinuxLauncher(), cwd: '/', env: {}, timeoutMs: 1, outputLimitBytes: 1 });
    return { outcome: 'ok', exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
  });
}

async function connect(server: McpServer): Promise<Client> {
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'guarded-shell-bench', version: '1.0.0' });
  await client.connect(b);
  return client;
}

const call = async (c: Client, command: string[], want: string): Promise<void> => {
  const r = (await c.callTool({ name: 'shell_execute', arguments: { command } })) as { structuredContent?: { outcome?: string } };
  if (r.structuredContent?.outcome !== want) throw new Error(`${command.join(' ')}: ${JSON.stringify(r).slice(0, 300)}`);
};

export type ToolPathData = {
  readonly calls: number;
  readonly ping: Summary;
  readonly minimal: Summary;
  readonly guarded: Summary;
  readonly denied: Summary;
  readonly checkCommand: Summary;
};

export async function toolPath(calls: number): Promise<SectionResult & { data: ToolPathData }> {
  const settings = resolveSettings([parseFlags(serverArgs()).layer]);
  const policy = settings.policy;
  const audit = new AuditLog(); // no sink: --quiet without a log file
  const ctx = new ServerContext(policy, stubExecutor(), audit, isolationFor(policy, await probeOnce()), unavailableApprover, 'bench');
  const { server, dispose } = createServer(ctx);
  const guarded = await connect(server);
  const minimal = await connect(minimalServer());
  const checkOnly = async () => {
    const c = checkCommand({ command: ['echo', 'hello'] }, policy);
    if (c.checks.some((v) => v.kind === 'deny')) throw new Error('echo hello denied');
  };
  try {
    const subjects = [() => guarded.ping(), () => call(minimal, ['echo', 'hello'], 'ok'), () => call(guarded, ['echo', 'hello'], 'ok'), () => call(guarded, ['rm', '-rf', 'nothing'], 'denied'), checkOnly];
    await interleaved(Math.min(200, calls), subjects);
    const [ping, min, g, den, chk] = (await interleaved(calls, subjects)).map((x) => summarize(x));
    const data: ToolPathData = { calls, ping: ping!, minimal: min!, guarded: g!, denied: den!, checkCommand: chk! };
    const us = (x: number) => `${(x * 1000).toFixed(0)} µs`;
    const rows: Row[] = [
      { measurement: 'in-process ping (SDK, no tool) p50 / mean', result: `${us(data.ping.p50)} / ${us(data.ping.mean)}`, baseline: '', ratio: '' },
      { measurement: 'minimal server: echo hello (stub executor) p50 / mean', result: `${us(data.minimal.p50)} / ${us(data.minimal.mean)}`, baseline: '', ratio: '' },
      { measurement: 'Guarded Shell: echo hello (stub executor) p50 / mean', result: `${us(data.guarded.p50)} / ${us(data.guarded.mean)}`, baseline: `${us(data.minimal.p50)} / ${us(data.minimal.mean)}`, ratio: `+${us(data.guarded.p50 - data.minimal.p50)} p50, ${(data.guarded.p50 / data.minimal.p50).toFixed(2)}x` },
      { measurement: 'Guarded Shell: rm denied by the allowlist p50 / mean', result: `${us(data.denied.p50)} / ${us(data.denied.mean)}`, baseline: `${us(data.minimal.p50)} / ${us(data.minimal.mean)}`, ratio: `+${us(data.denied.p50 - data.minimal.p50)} p50` },
      { measurement: '  of which checkCommand(echo hello) alone p50 / mean', result: `${us(data.checkCommand.p50)} / ${us(data.checkCommand.mean)}`, baseline: '', ratio: '' },
    ];
    return {
      id: 'toolpath',
      title: 'The tool path without a process or a transport (in-process, stub executor)',
      rows,
      data,
      notes: [`${calls} rounds after ${Math.min(200, calls)} warm-up rounds, order rotated every round; both servers in this process over the SDK's in-memory transport, the client's work included in each figure (the same for both). Guarded Shell = createServer with the CLI's policy for the bench flags and its real isolation state; the executor is a stub in both, so only the server's own work differs.`],
    };
  } finally {
    await guarded.close();
    await minimal.close();
    dispose();
  }
}
