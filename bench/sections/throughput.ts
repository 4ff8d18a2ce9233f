import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { bareEcho } from '../baseline';
import type { Row, SectionResult } from '../report';
import { echoHello, httpClient, startHttp } from '../server';
import { ratio, round, timeParallel } from '../stats';

/**
 * 8 calls in flight, on one session and on 8 sessions, for each server concurrency limit. The baseline is bare
 * spawn with the same number of processes running at once as the server allows (min(8, limit)).
 */
export async function throughput(total: number, limits: readonly number[] = [1, 2, 4, 8]): Promise<SectionResult> {
  const IN_FLIGHT = 8;
  const SLICES = 4;
  const rows: Row[] = [];
  const data: Record<string, unknown> = { total, inFlight: IN_FLIGHT };
  for (const limit of limits) {
    const server = await startHttp(['--concurrency', String(limit)]);
    try {
      const one = await httpClient(server.url);
      for (let i = 0; i < 10; i++) await echoHello(one);
      const many: Client[] = [];
      for (let i = 0; i < IN_FLIGHT; i++) many.push(await httpClient(server.url));
      for (const c of many) await echoHello(c);
      // Four slices of each, alternating, so a change in the machine's load hits all three alike.
      const slice = Math.max(8, Math.round(total / SLICES));
      const spent = { base: 0, one: 0, eight: 0 };
      for (let k = 0; k < SLICES; k++) {
        spent.base += slice / (await timeParallel(slice, Math.min(IN_FLIGHT, limit), () => bareEcho()));
        spent.one += slice / (await timeParallel(slice, IN_FLIGHT, () => echoHello(one).then(() => undefined)));
        spent.eight += slice / (await timeParallel(slice, IN_FLIGHT, (_i, lane) => echoHello(many[lane]!).then(() => undefined)));
      }
      const calls = slice * SLICES;
      const base = calls / spent.base;
      const oneSession = calls / spent.one;
      const eightSessions = calls / spent.eight;
      await Promise.all([one, ...many].map((c) => c.close()));
      rows.push({ measurement: `concurrency ${limit}: 8 in flight, 1 session`, result: `${oneSession.toFixed(0)} calls/s`, baseline: `spawn x${Math.min(IN_FLIGHT, limit)}: ${base.toFixed(0)}/s`, ratio: `${ratio(oneSession, base)} of baseline` });
      rows.push({ measurement: `concurrency ${limit}: 8 in flight, 8 sessions`, result: `${eightSessions.toFixed(0)} calls/s`, baseline: '', ratio: `${ratio(eightSessions, base)} of baseline` });
      data[`concurrency${limit}`] = { baselineCallsPerSecond: round(base), oneSessionCallsPerSecond: round(oneSession), eightSessionsCallsPerSecond: round(eightSessions) };
    } finally {
      await server.stop();
    }
  }
  return {
    id: 'throughput',
    title: 'Throughput: `echo hello`, 8 calls in flight',
    rows,
    data,
    notes: [`${total} calls per measurement over Streamable HTTP, in 4 alternating slices (baseline, 1 session, 8 sessions, repeated). Ratio = server calls/s ÷ bare-spawn calls/s (higher is better; 1.00x = no overhead). On 2 cores, more than 2 concurrent spawns gain little.`],
  };
}
