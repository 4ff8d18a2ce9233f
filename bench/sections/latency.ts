import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createExecutor } from '../../src/core/exec/executor';
import { platformLauncher } from '../../src/core/exec/launch';
import { bareEcho } from '../baseline';
import type { Row, SectionResult } from '../report';
import { echoHello, httpClient, shell, startHttp, stdioClient, serverArgs, workspace } from '../server';
import { ms, ratio, summarize, type Summary } from '../stats';

/** The p50 overhead the issue asks for: a trivial call within 1.15x of a bare spawn in the same run. */
export const TARGET_RATIO = 1.15;

export interface TransportLatency {
  readonly call: Summary;
  readonly callsPerSecond: number;
  /** JSON-RPC ping: transport + SDK framing, no tool at all. */
  readonly ping: Summary;
  /** A call denied by the allowlist: transport + SDK + zod + decide + audit + result, no spawn. */
  readonly denied: Summary;
  /** The server's own durationMs for the echo (executor: spawn to reaped, pipes closed). */
  readonly serverExec: Summary;
  readonly serverQueue: Summary;
}

export interface LatencyData {
  readonly calls: number;
  readonly spawn: Summary;
  readonly spawnCallsPerSecond: number;
  /** The executor (src/core/exec) called in this process: the executor's cost without any server around it. */
  readonly executor: Summary;
  readonly http: TransportLatency;
  readonly stdio: TransportLatency;
}

/**
 * Times each of `subjects` once per round, `rounds` times, rotating their order every round. The machine is
 * shared and its load drifts; measured side by side like this, every subject sees the same conditions, so the
 * ratios between them hold even when the absolute numbers move.
 */
export async function interleaved(rounds: number, subjects: ReadonlyArray<() => Promise<unknown>>): Promise<number[][]> {
  const out = subjects.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < subjects.length; k++) {
      const j = (r + k) % subjects.length;
      const t = performance.now();
      await subjects[j]!();
      out[j]!.push(performance.now() - t);
    }
  }
  return out;
}

async function denied(client: Client): Promise<void> {
  const s = await shell(client, ['rm', '-rf', 'nothing']);
  if (s.outcome !== 'denied') throw new Error(`rm was not denied: ${JSON.stringify(s).slice(0, 200)}`);
}

export async function latency(calls: number): Promise<SectionResult & { data: LatencyData }> {
  const warmup = Math.min(30, calls);
  const executor = createExecutor({ concurrency: 4 });
  const launcher = platformLauncher(null);
  const cwd = workspace();
  const inProcess = async () => {
    // Started the way the server starts it without a sandbox: through the platform's launcher, contained.
    const r = await executor.run({ stages: [launcher.prepare({ file: '/bin/echo', args: ['hello'] })], launcher, cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeoutMs: 30_000, outputLimitBytes: 1024 * 1024 });
    if (r.stdout !== 'hello\n') throw new Error(`in-process executor gave ${JSON.stringify(r).slice(0, 200)}`);
  };
  const server = await startHttp();
  const http = await httpClient(server.url);
  const { client: stdio, transport } = await stdioClient(serverArgs());
  try {
    const exec = { http: [] as number[], stdio: [] as number[] };
    const queue = { http: [] as number[], stdio: [] as number[] };
    const through = (name: 'http' | 'stdio', c: Client) => async () => {
      const s = await echoHello(c);
      exec[name].push(Number(s.durationMs));
      queue[name].push(Number(s.queueMs));
    };
    await interleaved(warmup, [bareEcho, inProcess, () => echoHello(http), () => echoHello(stdio)]);
    const [spawnT, execT, httpT, stdioT] = await interleaved(calls, [bareEcho, inProcess, through('http', http), through('stdio', stdio)]);
    const [httpPing, stdioPing] = await interleaved(calls, [() => http.ping(), () => stdio.ping()]);
    const [httpDenied, stdioDenied] = await interleaved(calls, [() => denied(http), () => denied(stdio)]);
    const spawn = summarize(spawnT!);
    const t = (call: number[], ping: number[], den: number[], name: 'http' | 'stdio'): TransportLatency => {
      const c = summarize(call);
      return { call: c, callsPerSecond: 1000 / c.mean, ping: summarize(ping), denied: summarize(den), serverExec: summarize(exec[name]), serverQueue: summarize(queue[name]) };
    };
    const data: LatencyData = {
      calls,
      spawn,
      spawnCallsPerSecond: 1000 / spawn.mean,
      executor: summarize(execT!),
      http: t(httpT!, httpPing!, httpDenied!, 'http'),
      stdio: t(stdioT!, stdioPing!, stdioDenied!, 'stdio'),
    };
    return { id: 'latency', title: 'Latency: sequential `echo hello`', rows: rows(data), notes: notes(calls, warmup), data: { ...data, targetRatio: TARGET_RATIO } };
  } finally {
    await http.close();
    await stdio.close();
    await transport.close();
    await server.stop();
    await executor.shutdown();
  }
}

function rows(d: LatencyData): Row[] {
  const spawn = d.spawn;
  const verdict = (p50: number) => {
    const r = p50 / spawn.p50;
    return `${r.toFixed(2)}x ${r <= TARGET_RATIO ? '<=' : '>'} ${TARGET_RATIO}x ${r <= TARGET_RATIO ? 'MET' : `MISSED by ${((r / TARGET_RATIO - 1) * 100).toFixed(0)}%`}`;
  };
  const out: Row[] = [
    { measurement: 'bare spawn: echo hello p50 / p95 / p99', result: '', baseline: `${ms(spawn.p50)} / ${ms(spawn.p95)} / ${ms(spawn.p99)}`, ratio: '' },
    { measurement: `executor alone, in this process, through the launcher (${platformLauncher(null).name}) (p50)`, result: ms(d.executor.p50), baseline: `spawn ${ms(spawn.p50)}`, ratio: ratio(d.executor.p50, spawn.p50) },
  ];
  for (const [name, t] of [['HTTP', d.http], ['stdio', d.stdio]] as const) {
    out.push({ measurement: `${name}: echo hello p50`, result: ms(t.call.p50), baseline: `spawn ${ms(spawn.p50)}`, ratio: verdict(t.call.p50) });
    out.push({ measurement: `${name}: echo hello p95 / p99`, result: `${ms(t.call.p95)} / ${ms(t.call.p99)}`, baseline: `${ms(spawn.p95)} / ${ms(spawn.p99)}`, ratio: `${ratio(t.call.p95, spawn.p95)} / ${ratio(t.call.p99, spawn.p99)}` });
    out.push({ measurement: `${name}: calls/s (sequential)`, result: t.callsPerSecond.toFixed(0), baseline: d.spawnCallsPerSecond.toFixed(0), ratio: `${ratio(t.callsPerSecond, d.spawnCallsPerSecond)} of baseline` });
    out.push({ measurement: `${name}: p50 added over spawn`, result: ms(t.call.p50 - spawn.p50), baseline: '', ratio: '' });
    out.push({ measurement: `${name}:   ping round trip, no tool (p50)`, result: ms(t.ping.p50), baseline: '', ratio: '' });
    out.push({ measurement: `${name}:   denied call, no spawn (p50)`, result: ms(t.denied.p50), baseline: '', ratio: '' });
    out.push({ measurement: `${name}:   server-side exec time (p50)`, result: ms(t.serverExec.p50), baseline: `spawn ${ms(spawn.p50)}`, ratio: ratio(t.serverExec.p50, spawn.p50) });
  }
  return out;
}

function notes(calls: number, warmup: number): string[] {
  return [
    `${calls} rounds after ${warmup} warm-up rounds; each round times, in rotating order, one bare spawn, one in-process executor run, one call over HTTP and one over stdio (both servers running side by side), so all four see the same machine load. Baseline = child_process.spawn('echo', ['hello']) with stdout captured, awaited to 'close'.`,
    'Decomposition: "executor alone" is src/core/exec\'s createExecutor().run() in the bench process (no server, no MCP), its stage started through the containment the server uses without a sandbox; "ping" is the MCP round trip with no tool; "denied call" adds zod, decide(), audit and result building but no process; "server-side exec" is the executor\'s own durationMs inside the server (spawn to reaped, pipes closed; whole milliseconds).',
  ];
}
