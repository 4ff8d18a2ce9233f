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

/** Reused for stat lines: readFileSync on a /proc file (size 0) allocates 64 KiB per call, i.e. MBs per scan. */
const statBuffer = Buffer.allocUnsafe(4096);

/** Parses /proc/<pid>/stat. The command name is in parentheses and may itself contain spaces or ')'. */
export function readProcStat(pid: number): ProcEntry | undefined {
  let text: string;
  try {
    const fd = fs.openSync(`/proc/${pid}/stat`, 'r');
    try {
      // The kernel produces the whole line in one read; it is far shorter than the buffer.
      text = statBuffer.toString('latin1', 0, fs.readSync(fd, statBuffer, 0, statBuffer.length, 0));
    } finally {
      fs.closeSync(fd);
    }
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
  const needle = Buffer.from(`\0${name}=${value}\0`);
  const uid = process.getuid?.();
  const found: number[] = [];
  for (const pid of numericEntries()) {
    if (pid === process.pid) continue;
    try {
      if (uid !== undefined && uid !== 0 && fs.statSync(`/proc/${pid}`).uid !== uid) continue;
      if (fileContainsEntry(`/proc/${pid}/environ`, needle)) found.push(pid);
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** One reused read buffer: a scan touches every process, and fresh buffers per file would be pure garbage. */
const scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * True when the NUL-separated file has the entry `needle` ("\0NAME=value\0"). Read in chunks into `scratch`,
 * keeping the last needle-length bytes across chunks; a virtual NUL before the start and after the end lets
 * the first and last entries match too.
 */
function fileContainsEntry(file: string, needle: Buffer): boolean {
  const keep = needle.length - 1;
  if (keep * 2 > scratch.length) throw new Error('environment entry to look for is too long');
  const fd = fs.openSync(file, 'r');
  try {
    scratch[0] = 0; // virtual NUL before the first entry
    let filled = 1;
    for (;;) {
      const n = fs.readSync(fd, scratch, filled, scratch.length - filled, null);
      if (n === 0) {
        scratch[filled] = 0; // virtual NUL after the last entry (it may lack its own)
        return scratch.subarray(0, filled + 1).indexOf(needle) >= 0;
      }
      filled += n;
      if (scratch.subarray(0, filled).indexOf(needle) >= 0) return true;
      if (filled > keep) {
        scratch.copy(scratch, 0, filled - keep, filled);
        filled = keep;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
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
