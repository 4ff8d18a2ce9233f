import { killLeftoverGroups, killProcessTrees } from '../kill';
import { descendantsOf, isNamespaceInit, listProcesses, procAvailable } from '../processes';
import type { CallProcesses, LaunchedStage } from './contract';

/**
 * Ending a call's processes on Linux and macOS: every stage leads its own process group. `namespaced`: each stage
 * ran in PID namespaces of its own, so a stage that has exited took everything in it along (its group id may be
 * another process's by now: not signalled), and the command may be PID 1 of its namespace (kill.ts).
 */
export async function stopGroups(call: CallProcesses, graceMs: number, namespaced: boolean): Promise<Set<LaunchedStage>> {
  const running = call.stages.filter((s) => s.pid !== undefined && !(namespaced && exited(s)));
  const pgids = running.map((s) => s.pid!);
  // Which stage each process of the call belongs to, seen before any signal (parents die, links go).
  const subtrees = new Map<LaunchedStage, Set<number>>();
  const inits: Array<{ pid: number; kill: number }> = [];
  if (namespaced && procAvailable()) {
    const procs = listProcesses();
    for (const s of running) {
      const tree = new Set([s.pid!, ...descendantsOf([s.pid!], procs)]);
      subtrees.set(s, tree);
      // The stage's own process is the init's parent (the launcher's unshare): its death ends the namespace.
      for (const pid of tree) if (isNamespaceInit(pid)) inits.push({ pid, kill: s.pid! });
    }
  }
  const emulated = new Set<number>();
  await killProcessTrees({ pgids, runId: call.runId, inits }, graceMs, emulated);
  const stood = new Set<LaunchedStage>();
  for (const [stage, tree] of subtrees) if ([...emulated].some((pid) => tree.has(pid))) stood.add(stage);
  return stood;
}

/** After a normal exit: what the stages left in their own groups (`sleep 300 &`), unless a namespace took it. */
export function sweepGroups(call: CallProcesses, namespaced: boolean): void {
  if (!namespaced) killLeftoverGroups(call.stages.map((s) => s.pid).filter((p): p is number => p !== undefined));
}

function exited(s: LaunchedStage): boolean {
  return s.exitCode !== null || s.signalCode !== null;
}
