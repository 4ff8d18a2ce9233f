import * as fs from 'node:fs';

/**
 * Process-table helpers for the kill path (and for tests that count survivors). Linux only: they read /proc.
 * A process that called setsid() has left its stage's process group, so a group kill misses it; we find it
 * again by the marker variable every child of a call inherits, and by walking parent links from the stages.
 */

/** Name of the variable the executor adds to each child's environment, valued with a per-call random id. */
export const RUN_MARKER_NAME = 'GUARDED_SHELL_RUN';

export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** One-letter state from /proc/<pid>/stat; 'Z' (zombie) and 'X' (dead) count as gone. */
  readonly state: string;
}

let procChecked: boolean | undefined;
/** True when /proc can be read (Linux). Other platforms use tree-kill and process-group signals only. */
export function procAvailable(): boolean {
  if (procChecked === undefined) {
    procChecked = process.platform === 'linux' && fs.existsSync('/proc/self/stat');
  }
  return procChecked;
}

function numericEntries(): number[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of names) {
    const c = name.charCodeAt(0);
    if (c >= 48 && c <= 57) pids.push(Number(name));
  }
  return pids;
}

/** Parses /proc/<pid>/stat. The command name is in parentheses and may itself contain spaces or ')'. */
export function readProcStat(pid: number): ProcEntry | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // gone between readdir and read, or never existed
  }
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

export function listProcesses(): ProcEntry[] {
  const out: ProcEntry[] = [];
  for (const pid of numericEntries()) {
    const entry = readProcStat(pid);
    if (entry) out.push(entry);
  }
  return out;
}

export function isGone(entry: ProcEntry | undefined): boolean {
  return entry === undefined || entry.state === 'Z' || entry.state === 'X';
}

/** A process is alive when it exists and is not a zombie (zombies hold no resources and cannot be killed). */
export function isProcessAlive(pid: number): boolean {
  if (procAvailable()) return !isGone(readProcStat(pid));
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Pids of live processes whose environment carries `RUN_MARKER_NAME=<runId>`. */
export function findMarkedPids(runId: string): number[] {
  return findPidsWithEnv(RUN_MARKER_NAME, runId);
}

/**
 * Pids of live processes whose (initial) environment has `name=value`. Only processes of our own uid are
 * read (others fail with EACCES and are skipped), which is also the set a child of ours could become.
 */
export function findPidsWithEnv(name: string, value: string): number[] {
  if (!procAvailable()) return [];
  const needle = Buffer.from(`${name}=${value}\0`);
  const uid = process.getuid?.();
  const found: number[] = [];
  for (const pid of numericEntries()) {
    if (pid === process.pid) continue;
    try {
      if (uid !== undefined && uid !== 0 && fs.statSync(`/proc/${pid}`).uid !== uid) continue;
      const environ = fs.readFileSync(`/proc/${pid}/environ`);
      if (hasEntry(environ, needle)) found.push(pid);
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** True when `needle` ("NAME=value\0") appears as a whole entry (at the start or right after a NUL). */
function hasEntry(environ: Buffer, needle: Buffer): boolean {
  let at = environ.indexOf(needle);
  while (at >= 0) {
    if (at === 0 || environ[at - 1] === 0) return true;
    at = environ.indexOf(needle, at + 1);
  }
  // The last entry may lack its trailing NUL.
  const bare = needle.subarray(0, needle.length - 1);
  const tail = environ.length - bare.length;
  return tail >= 0 && (tail === 0 || environ[tail - 1] === 0) && environ.subarray(tail).equals(bare);
}

/** Every live descendant of `roots` (not the roots themselves), by following ppid links in one snapshot. */
export function descendantsOf(roots: Iterable<number>, procs: readonly ProcEntry[] = listProcesses()): number[] {
  const children = new Map<number, number[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const seen = new Set<number>(roots);
  const stack = [...seen];
  const out: number[] = [];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop()!) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      stack.push(child);
      out.push(child);
    }
  }
  const live = new Set(procs.filter((p) => !isGone(p)).map((p) => p.pid));
  return out.filter((pid) => live.has(pid));
}

/** Live members of the given process groups. */
export function membersOfGroups(pgids: Iterable<number>, procs: readonly ProcEntry[] = listProcesses()): number[] {
  const groups = new Set(pgids);
  return procs.filter((p) => groups.has(p.pgid) && !isGone(p)).map((p) => p.pid);
}

/** Everything that belongs to a call: its groups' members, their descendants, and marker carriers. */
export function processesOfRun(runId: string, pgids: Iterable<number>, known: Iterable<number> = []): number[] {
  const procs = listProcesses();
  const groupPids = [...pgids];
  const members = membersOfGroups(groupPids, procs);
  const roots = new Set<number>([...groupPids, ...known, ...members]);
  const all = new Set<number>([...members, ...descendantsOf(roots, procs), ...findMarkedPids(runId)]);
  for (const pid of known) if (!isGone(procs.find((p) => p.pid === pid))) all.add(pid);
  all.delete(process.pid);
  return [...all];
}
