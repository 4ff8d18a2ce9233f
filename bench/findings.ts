import type { SectionResult } from './report';
import type { LatencyData } from './sections/latency';
import { signed } from './stats';

/**
 * Plain sentences derived from this run's numbers (so BENCHMARKS.md never carries a stale explanation): did we
 * meet the 1.15x target, and if not, where the added milliseconds go.
 */
export function findings(sections: readonly SectionResult[]): string[] {
  const out: string[] = [];
  const lat = sections.find((s) => s.id === 'latency')?.data as LatencyData | undefined;
  if (lat?.spawn) {
    const base = lat.spawn.p50;
    for (const [name, t] of [['HTTP', lat.http], ['stdio', lat.stdio]] as const) {
      const r = t.call.p50 / base;
      const added = t.call.p50 - base;
      const execExtra = t.serverExec.p50 - base;
      const protocol = t.ping.p50;
      const toolPath = Math.max(0, t.denied.p50 - t.ping.p50);
      const verdict = r <= 1.15 ? `meets the 1.15x target` : `misses the 1.15x target by ${((r / 1.15 - 1) * 100).toFixed(0)}% (${(added - 0.15 * base).toFixed(2)} ms too much per call)`;
      out.push(
        `${name}: p50 ${t.call.p50.toFixed(2)} ms vs bare spawn ${base.toFixed(2)} ms = ${r.toFixed(2)}x, ${verdict}. ` +
          `Of the ${added.toFixed(2)} ms added: the MCP round trip with no tool (ping) is ${protocol.toFixed(2)} ms; ` +
          `the tool path without a process (zod, decide, audit, result; denied call minus ping) ${toolPath.toFixed(2)} ms; ` +
          `the executor's own time is ${t.serverExec.p50.toFixed(2)} ms against ${base.toFixed(2)} ms for a bare spawn (${execExtra >= 0 ? '+' : ''}${execExtra.toFixed(2)} ms, whole-ms resolution); ` +
          `the rest, ${(added - protocol - toolPath - execExtra).toFixed(2)} ms, is hand-offs between processes (client → server → child → server → client wake-ups, each a scheduling delay on a busy machine) and result building.`,
      );
    }
  }
  const min = sections.find((s) => s.id === 'minimal');
  if (min) {
    const d = min.data as { p50: Record<string, number>; cpuPerCallMs: Record<string, number>; cpuPerCallEarlyMs: Record<string, number>; earlyCalls: string; warmRounds: number; rssKb: Record<string, number>; loadStart: string; targets?: Record<string, boolean> };
    const added = (c: Record<string, number>) => `${signed(c.gHttp! - c.cHttp!)} / ${signed(c.gStdio! - c.cStdio!)} ms`;
    const met = Object.entries(d.targets ?? {});
    out.push(
      `Against a minimal MCP SDK server that contains its commands too (each in a PID namespace of its own), in the same run (load ${d.loadStart}): ${met.filter(([, ok]) => ok).map(([k]) => k).join(', ') || 'no target'} met; ${met.filter(([, ok]) => !ok).map(([k]) => k).join(', ') || 'nothing'} missed. ` +
        `p50 ${(d.p50.gH! / d.p50.cH!).toFixed(2)}x over HTTP and ${(d.p50.gS! / d.p50.cS!).toFixed(2)}x over stdio, ` +
        `and ${(d.p50.gH! / d.p50.mH!).toFixed(2)}x / ${(d.p50.gS! / d.p50.mS!).toFixed(2)}x against one that contains nothing. ` +
        `What is left over the contained minimal server is the guard's own work per call (schema, decide with its PATH and real-path checks, the approval check, audit, the structured result) and what the launcher does beyond a PID namespace (its own /proc, no capability, a PID 1 the command cannot reach: unshare, timeout and setpriv). ` +
        `Server CPU per call ${added(d.cpuPerCallMs)} (HTTP / stdio) after ${d.warmRounds} calls, ${added(d.cpuPerCallEarlyMs)} over calls ${d.earlyCalls} while V8 still compiles; idle RSS ${(d.rssKb.gHttp! / d.rssKb.mHttp!).toFixed(2)}x / ${(d.rssKb.gStdio! / d.rssKb.mStdio!).toFixed(2)}x.`,
    );
  }
  const prof = sections.find((s) => s.id === 'profile')?.data as { byCategoryMs?: Record<string, number>; busyMs?: number; cpuMs?: number; calls?: number } | undefined;
  if (prof?.byCategoryMs && prof.busyMs && prof.calls && prof.cpuMs !== undefined) {
    const top = Object.entries(prof.byCategoryMs)
      .slice(0, 4)
      .map(([k, v]) => `${k} ${((v / prof.busyMs!) * 100).toFixed(0)}%`)
      .join(', ');
    out.push(
      `Server CPU per call ${(prof.cpuMs / prof.calls).toFixed(2)} ms (kernel-measured, including the profiler's own sampling thread); largest shares of its profile: ${top}.` +
        (/child_process/.test(top) ? ' "child_process" is almost all ChildProcess.spawn itself (libuv forks and waits for the exec synchronously): the same cost the bare-spawn baseline pays.' : ''),
    );
  }
  return out;
}
