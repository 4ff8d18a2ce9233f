import treeKill from 'tree-kill';
import { isProcessAlive, procAvailable, processesOfRun } from './processes';

/**
 * Stopping a call's whole process tree: SIGTERM to every stage's process group and to every escaped
 * descendant, a grace period (left early once everything is gone), then SIGKILL, repeated a few times with a
 * fresh look at /proc so that a process forked during the grace does not slip through.
 */

export interface KillTarget {
  /** The stages' process-group ids (each stage is spawned detached, so its pid is its pgid). */
  readonly pgids: readonly number[];
  /** The per-call marker value of GUARDED_SHELL_RUN. */
  readonly runId: string;
}

const POLL_MS = 25;
const SIGKILL_ROUNDS = 5;

export async function killProcessTrees(target: KillTarget, graceMs: number): Promise<void> {
  const pgids = target.pgids.filter(isSafeTarget);
  // No group left to signal (stages whose namespaces ended with them): the run's marker may still find a process outside
  // them that holds its pipes (started through a service manager, say).
  if (pgids.length === 0 && !target.runId) return;
  const linux = procAvailable();
  // Collect escaped descendants BEFORE signalling: once a parent dies its children are re-parented and the
  // ppid trail is gone (the marker still finds them, unless they replaced their environment).
  const known = linux ? processesOfRun(target.runId, pgids) : [];

  if (graceMs > 0) {
    signalAll(pgids, known, 'SIGTERM', linux);
    // While waiting, look only at the processes we know of (a few /proc reads, not a full scan every tick):
    // anything forked since is found by the fresh scans of the SIGKILL rounds below.
    await waitUntil(() => !anyAlive(pgids, known, linux), graceMs);
  }
  let targets = known;
  for (let round = 0; round < SIGKILL_ROUNDS; round++) {
    if (linux) {
      targets = processesOfRun(target.runId, pgids, targets);
      // Nothing of the call is alive any more (zombies aside): the groups get one last signal and we are done.
      if (round > 0 && targets.length === 0) return;
    }
    signalAll(pgids, targets, 'SIGKILL', linux);
    await sleep(round === 0 ? 5 : 20);
    if (!linux && !anyAlive(pgids, targets, linux)) return;
  }
}

/**
 * After a normal exit: kill whatever the stages left behind in their own groups (e.g. `sleep 300 &`). One
 * signal per group and no /proc scan, because this runs on every call.
 */
export function killLeftoverGroups(pgids: readonly number[]): void {
  if (process.platform === 'win32') return;
  for (const pgid of pgids) if (isSafeTarget(pgid)) signalGroup(pgid, 'SIGKILL');
}

/** Never signal init, ourselves, or a negative/NaN id: process.kill(-1) would hit every process we may kill. */
function isSafeTarget(pid: number): boolean {
  return Number.isInteger(pid) && pid > 1 && pid !== process.pid;
}

function signalAll(pgids: readonly number[], pids: readonly number[], signal: NodeJS.Signals, linux: boolean): void {
  if (process.platform !== 'win32') for (const pgid of pgids) signalGroup(pgid, signal);
  for (const pid of pids) {
    if (!isSafeTarget(pid)) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
  // Without /proc we cannot see escaped descendants ourselves; tree-kill lists them with ps / taskkill /T.
  if (!linux) for (const pgid of pgids) treeKill(pgid, signal, () => undefined);
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is empty
  }
}

function anyAlive(pgids: readonly number[], pids: readonly number[], linux: boolean): boolean {
  // On Linux `pids` already holds every group member seen at collection time; zombies count as gone (an init
  // that does not reap would otherwise keep a group "alive" forever).
  if (linux) return [...pgids, ...pids].some(isProcessAlive);
  if (process.platform === 'win32') return pgids.some(isProcessAlive);
  return pgids.some((pgid) => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM';
    }
  });
}

async function waitUntil(done: () => boolean, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!done() && Date.now() < deadline) await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
