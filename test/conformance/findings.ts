import type { ExecResult } from '../../src/core/exec/types';

/**
 * What the attack fixture (test/fixtures/bin/reach-container) reached, judged: every way a command reached what
 * contains it is one finding. A conforming launcher has none; a weakened one must have some (weakened.test.ts).
 */

export interface Seen {
  readonly pid: number;
  readonly comm: string;
  readonly start: string;
}

interface Reach {
  readonly pid: number;
  readonly comm: string;
  readonly ptrace: string;
  readonly mem: string;
  readonly environ: string;
  readonly fds: Record<string, string | string[]>;
}

export interface ReachReport {
  /** Its pid in its own namespace. */
  readonly pid: number;
  readonly uid: number;
  readonly caps: Record<'CapInh' | 'CapPrm' | 'CapEff' | 'CapBnd' | 'CapAmb', string>;
  readonly noNewPrivs: string;
  readonly fds: number[];
  readonly cwd: string;
  readonly visible: ReadonlyArray<Seen & { readonly mine: boolean }>;
  readonly reach: readonly Reach[];
  readonly sockets: Record<string, string>;
  /** The /proc it sees is its own PID namespace's. */
  readonly ownProc: boolean;
  /** A process of the server (by start time and name) is in sight. */
  readonly seesServer: boolean;
  /** The processes it tried to reach (its ancestors, when it was safe to). */
  readonly probed: readonly number[];
}

/** The harness's answer to a `reach` request. */
export interface ReachRun {
  readonly result: ExecResult;
  /** The server and its helper processes, as the host sees them. */
  readonly container: readonly Seen[];
  readonly sockets: readonly string[];
}

export function report(run: ReachRun): ReachReport | undefined {
  const line = run.result.stdout.split('\n').find((l) => l.startsWith('{'));
  return line ? (JSON.parse(line) as ReachReport) : undefined;
}

const NONE = /^0+$/;

export function findings(run: ReachRun, asRoot: boolean): string[] {
  const r = report(run);
  if (!r) return [`the fixture reported nothing: ${run.result.outcome} ${run.result.error ?? ''} ${run.result.stderr}`.trim()];
  const out: string[] = [];
  if (!r.ownProc) out.push('sees a /proc that is not its own namespace\'s');
  if (!run.result.stdout.includes('\nSURVIVED\n')) out.push(`a signal the command sent ended it (${run.result.outcome}, exit ${run.result.exitCode}, ${run.result.signal}): it reached its namespace's init`);
  for (const c of run.container) {
    if (r.visible.some((v) => v.start === c.start && v.comm === c.comm)) out.push(`sees ${c.comm} (${c.pid}), a process of the server`);
  }
  for (const p of r.reach) {
    const where = `${p.comm} (its pid ${p.pid})`;
    if (p.ptrace === 'ok') out.push(`traces ${where}`);
    if (p.mem === 'ok') out.push(`opens the memory of ${where}`);
    if (p.environ === 'ok') out.push(`reads the environment of ${where}`);
    for (const [fd, tries] of Object.entries(p.fds)) if (Array.isArray(tries) && tries.includes('ok')) out.push(`opens descriptor ${fd} of ${where}`);
  }
  for (const [name, result] of Object.entries(r.sockets)) if (result === 'ok') out.push(`connects to ${name}, a socket of the server's processes`);
  // 0, 1, 2, and 3: the folder the fixture lists its own descriptors through.
  for (const fd of r.fds) if (fd > 3) out.push(`holds descriptor ${fd}, which nobody handed it`);
  for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapAmb'] as const) if (!NONE.test(r.caps[set])) out.push(`holds capabilities (${set} ${r.caps[set]})`);
  if (asRoot && !NONE.test(r.caps.CapBnd)) out.push(`can gain capabilities at exec as root (CapBnd ${r.caps.CapBnd})`);
  if (asRoot && r.noNewPrivs !== '1') out.push('can gain privileges at exec (no_new_privs is off)');
  return out;
}
