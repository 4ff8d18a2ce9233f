import * as fs from 'node:fs';
import treeKill from 'tree-kill';
import { isGone, isProcessAlive, procAvailable, processesOfRun, readProcStat } from './processes';

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
  /**
   * Processes of the call that are PID 1 of a PID namespace of their own (the command, under the launcher's fork
   * server: src/core/exec/launch/posix.ts finds them). The kernel drops a signal
   * sent to a namespace's init from outside unless it has a handler, so SIGTERM alone would leave a plain
   * `sleep` running for the whole grace. Such a stage that neither catches nor ignores SIGTERM gets SIGKILL —
   * what SIGTERM's default action would have done — once it has no live child left (its children got the
   * SIGTERM and their grace; killing the init first would end its namespace, and them, at once). `kill` is the
   * process that gets that SIGKILL: the init's parent, whose death ends the namespace (--kill-child), and which
   * then reports SIGKILL itself (util-linux 2.38's unshare exits 1 when its child dies of SIGKILL).
   */
  readonly inits?: ReadonlyArray<{ readonly pid: number; readonly kill: number }>;
}

/** Of the `inits`, those that got SIGKILL in place of SIGTERM's default action (reported as SIGTERM). */
export type TermEmulated = Set<number>;

const POLL_MS = 25;
const SIGKILL_ROUNDS = 5;

export async function killProcessTrees(target: KillTarget, graceMs: number, emulated: TermEmulated = new Set()): Promise<void> {
  const pgids = target.pgids.filter(isSafeTarget);
  // No group left to signal (stages whose namespaces ended with them): the run's marker may still find a process outside
  // them that holds its pipes (started through a service manager, say).
  if (pgids.length === 0 && !target.runId) return;
  const inits = (target.inits ?? []).filter((i) => isSafeTarget(i.pid) && isSafeTarget(i.kill));
  const endInits = (): void => {
    for (const { pid, kill } of inits) {
      if (emulated.has(pid) || isGone(readProcStat(pid)) || !diesOfSigterm(pid) || hasLiveChild(pid)) continue;
      emulated.add(pid);
      signalPid(kill, 'SIGKILL');
    }
  };
  const linux = procAvailable();
  // Collect escaped descendants BEFORE signalling: once a parent dies its children are re-parented and the
  // ppid trail is gone (the marker still finds them, unless they replaced their environment).
  const known = linux ? processesOfRun(target.runId, pgids) : [];

  if (graceMs > 0) {
    signalAll(pgids, known, 'SIGTERM', linux);
    // While waiting, look only at the processes we know of (a few /proc reads, not a full scan every tick):
    // anything forked since is found by the fresh scans of the SIGKILL rounds below.
    await waitUntil(() => {
      endInits();
      return !anyAlive(pgids, known, linux);
    }, graceMs);
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

/** SIGTERM (15) neither caught nor ignored, by /proc/<pid>/status (hex masks, bit n-1 for signal n). */
export function diesOfSigterm(pid: number): boolean {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return false; // gone already
  }
  const mask = (name: string): bigint => BigInt(`0x${new RegExp(`^${name}:\\s*([0-9a-f]+)`, 'm').exec(status)?.[1] ?? '0'}`);
  const term = 1n << 14n;
  return ((mask('SigCgt') | mask('SigIgn')) & term) === 0n;
}

/** Whether the process has a child that is not a zombie (/proc/<pid>/task/<pid>/children). */
function hasLiveChild(pid: number): boolean {
  let children: string;
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1');
  } catch {
    return false;
  }
  return children.split(' ').some((c) => c.trim() !== '' && !isGone(readProcStat(Number(c))));
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
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
