import * as fs from 'node:fs';
import * as path from 'node:path';
import { SourceMap } from 'node:module';
import type { Row, SectionResult } from '../report';
import { echoHello, httpClient, serverArgs } from '../server';
import { cpuMs } from '../../test/helpers/procs';
import { startServer } from '../../test/helpers/serverProcess';
import { round } from '../stats';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Where a sampled frame's code comes from, in the words the report uses. */
function categorize(frame: ProfileNode['callFrame'], map: SourceMap | undefined): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(program)') return 'native/(program)';
    return `native ${functionName}`;
  }
  if (url.startsWith('node:')) {
    if (/child_process|spawn|pipe_wrap|stream_base/.test(url)) return 'node: child_process/pipes (spawn)';
    if (/http|net|tcp|socket|undici/.test(url)) return 'node: http/net';
    if (/streams/.test(url)) return 'node: streams';
    return 'node: other internals';
  }
  let source = url;
  if (map && url.endsWith('cli-main.js')) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
    if ('originalSource' in entry) source = entry.originalSource;
  }
  if (source.includes('@modelcontextprotocol')) return 'MCP SDK';
  if (source.includes('node_modules/zod')) return 'zod (schemas)';
  if (source.includes('node_modules/')) return 'other dependencies';
  if (source.includes('src/core/commands')) return 'validation (src/core/commands)';
  if (source.includes('src/core/exec')) return 'executor (src/core/exec)';
  if (source.includes('src/core/audit')) return 'audit';
  if (source.includes('src/core')) return 'other src/core';
  if (source.includes('src/server')) return 'server adapter (src/server)';
  return 'other';
}

/**
 * Runs the HTTP latency loop once more against a server started with --cpu-prof, and splits the server's CPU
 * time per call by where the code lives (source map of dist/cli-main.js). This says which layer costs what; the
 * latency section's wall-clock decomposition says how much of it is waiting (for fork/exec, for the socket).
 */
export async function profile(repo: string, calls: number): Promise<SectionResult> {
  const dir = path.join(repo, '.bench', 'profile');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const server = await startServer(serverArgs(), {}, { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=200'] });
  const pid = server.proc.pid!;
  const client = await httpClient(server.url);
  for (let i = 0; i < 30; i++) await echoHello(client);
  // V8's profile timestamps and process.hrtime are both CLOCK_MONOTONIC (µs / ns): only the loop is counted.
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const cpu0 = cpuMs(pid);
  const t = performance.now();
  for (let i = 0; i < calls; i++) await echoHello(client);
  const wall = performance.now() - t;
  const cpu = cpuMs(pid) - cpu0;
  const toUs = Number(process.hrtime.bigint() / 1000n);
  await client.close();
  // SIGTERM: the CLI shuts down and calls process.exit, which is when node writes the profile.
  await server.stop('SIGTERM');
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) {
    return { id: 'profile', title: 'Where the time goes (server CPU profile)', rows: [], data: { skipped: 'no profile written' }, notes: ['skipped: the server wrote no .cpuprofile'] };
  }
  const prof = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
  const mapFile = path.join(repo, 'dist', 'cli-main.js.map');
  const map = fs.existsSync(mapFile) ? new SourceMap(JSON.parse(fs.readFileSync(mapFile, 'utf8'))) : undefined;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const cat = new Map<number, string>();
  const totals = new Map<string, number>();
  let at = prof.startTime;
  let counted = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    at += prof.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    counted++;
    const id = prof.samples[i]!;
    let c = cat.get(id);
    if (c === undefined) cat.set(id, (c = categorize(byId.get(id)!.callFrame, map)));
    totals.set(c, (totals.get(c) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000);
  }
  // Sample time is wall time between samples: on a loaded machine it over-counts. So the profile gives only
  // the SHARES; the CPU per call itself comes from the kernel's utime+stime of the server process.
  const busy = [...totals].filter(([k]) => k !== 'idle').reduce((a, [, v]) => a + v, 0);
  const perCall = cpu / calls;
  const rows: Row[] = [
    { measurement: 'server CPU per call (utime+stime from /proc)', result: `${perCall.toFixed(2)} ms`, baseline: `wall ${(wall / calls).toFixed(2)} ms/call`, ratio: `${((perCall / (wall / calls)) * 100).toFixed(0)}% of wall` },
  ];
  const sorted = [...totals].filter(([k]) => k !== 'idle').sort((a, b) => b[1] - a[1]);
  for (const [k, v] of sorted.slice(0, 10)) {
    rows.push({ measurement: `  ${k}`, result: `≈${((v / busy) * perCall).toFixed(2)} ms/call`, baseline: '', ratio: `${((v / busy) * 100).toFixed(0)}% of samples` });
  }
  return {
    id: 'profile',
    title: 'Where the time goes: server CPU profile of the HTTP echo loop',
    rows,
    data: { calls, wallMs: round(wall), cpuMs: round(cpu), samples: counted, busyMs: round(busy), byCategoryMs: Object.fromEntries(sorted.map(([k, v]) => [k, round(v)])), profile: path.relative(repo, path.join(dir, file)) },
    notes: [`node --cpu-prof (200 µs sampling) of the server, only the ${calls} measured calls (${counted} samples); frames of dist/cli-main.js (the CLI bundle dist/cli.js starts) attributed to their sources through its source map. The ms/call column splits the kernel-measured CPU time by sample share. The server also spends time the profile cannot see: the kernel's fork/exec/wait on its behalf counts as its stime.`],
  };
}

