import * as fs from 'node:fs';

/**
 * Pids of live processes whose command line is `argv` (e.g. ['sleep', '3101']); zombies excluded. The program may
 * show under the path the server judged and spawned (`/usr/bin/sleep`): argv[0] is compared by its last component.
 */
export function pidsWithCmdline(argv: readonly string[]): number[] {
  const wanted = sameProgram(argv);
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = sameProgram(fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0$/, '').split('\0'));
      if (cmd !== wanted) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z') out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/**
 * SIGKILLs what a test left behind. A process listed a moment ago may have ended meanwhile (one being torn down
 * with its namespace was still listed): that one is fine, not an error of the cleanup.
 */
export function killAll(pids: Iterable<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
}

/** A number unlikely to collide with other tests' sleeps, so survivors can be counted exactly. */
export function uniqueSeconds(): string {
  return String(3000 + Math.floor(Math.random() * 6000));
}

/**
 * CPU time a process has used so far, from /proc/<pid>/stat, in ms (10 ms ticks): user + system, and with
 * `reaped` also that of its children it has reaped (cutime + cstime). The benchmarks' one way to read it.
 */
export function cpuMs(pid: number, reaped = false): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name (which may hold spaces and parentheses): fields[11] utime, [12] stime, [13] cutime,
  // [14] cstime, in clock ticks (100 per second).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
  return (ticks * 1000) / 100;
}

/** Resident memory of a process in kB (VmRSS), from /proc. */
export function rssKb(pid: number | 'self' = 'self'): number {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

/** A process's name (comm: at most 15 characters), or '' once it is gone. */
export function commOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sameProgram(argv: readonly string[]): string {
  return [argv[0]?.slice(argv[0].lastIndexOf('/') + 1) ?? '', ...argv.slice(1)].join('\0');
}
