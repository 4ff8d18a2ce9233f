import { killLeftoverGroups, killProcessTrees } from '../kill';
import type { CallProcesses, LaunchedStage } from './contract';

/**
 * Ending a call's processes on Linux and macOS: every stage leads its own process group. `namespaced`: each stage
 * ran in PID namespaces of its own, so a stage that has exited took everything in it along (its group id may be
 * another process's by now: not signalled). No launcher makes the command its namespace's PID 1 (whose SIGTERM the
 * kernel would drop): the group's SIGTERM reaches it as any process.
 */
export async function stopGroups(call: CallProcesses, graceMs: number, namespaced: boolean): Promise<void> {
  const pgids = call.stages.filter((s) => s.pid !== undefined && !(namespaced && exited(s))).map((s) => s.pid!);
  await killProcessTrees({ pgids, runId: call.runId }, graceMs);
}

/** After a normal exit: what the stages left in their own groups (`sleep 300 &`), unless a namespace took it. */
export function sweepGroups(call: CallProcesses, namespaced: boolean): void {
  if (!namespaced) killLeftoverGroups(call.stages.map((s) => s.pid).filter((p): p is number => p !== undefined));
}

function exited(s: LaunchedStage): boolean {
  return s.exitCode !== null || s.signalCode !== null;
}
