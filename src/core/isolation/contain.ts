import { trialRun, trialRunSync } from '../exec/helper';
import { findPerl, zygoteTrial, zygoteTrialSync } from '../exec/zygote/client';
import * as fs from 'node:fs';
import { WORKDIR_FD } from '../exec/redirects';
import type { ExecStage } from '../exec/types';

/**
 * Process containment WITHOUT a sandbox (isolation none / auto with no bubblewrap). Node cannot make itself a
 * child subreaper (PR_SET_CHILD_SUBREAPER is not reachable) nor a PID namespace, so each stage is started
 * through a launcher, the first that works here (probed once with a real trial run):
 *
 *   the containment zygote (src/core/exec/zygote): one Perl process per server forks each stage as PID 1 of a
 *     new PID namespace inside its own namespace, which dies with the server (no exec per command);
 *   bwrap --dev-bind / / --unshare-pid --die-with-parent -- <cmd> <args>      (no other restriction)
 *   setpriv --pdeathsig KILL -- unshare [--user --map-current-user] --pid --fork --kill-child -- <cmd> <args>
 *
 * - the command runs in a new PID namespace; when its init exits or is killed, the kernel kills every other
 *   process of the namespace, including ones that called setsid and closed every inherited descriptor
 *   (nothing of the call survives the call). bwrap's init exits when the command does; with unshare the command
 *   itself is PID 1 (it ignores signals it has no handler for, so a stop is a SIGKILL);
 * - `--kill-child` makes that PID 1 die (SIGKILL) when unshare dies, and `setpriv --pdeathsig KILL` makes
 *   unshare die when the server dies, even by `kill -9` (nothing survives the server).
 * A PID namespace needs CAP_SYS_ADMIN or an unprivileged user namespace (`--user --map-current-user`, same
 * uid inside). Where neither works only `setpriv --pdeathsig` is used: the direct child dies with the server,
 * but a descendant that escaped with setsid can survive a `kill -9` of the server (docs/isolation.md).
 */

export type ContainmentKind = 'pid-namespace' | 'pdeathsig' | 'none';

export interface Containment {
  readonly kind: ContainmentKind;
  /** The launcher argv placed before the command (empty for 'none'). */
  readonly prefix: readonly string[];
  /** Why it is not stronger, for the status/warning. */
  readonly limitation?: string;
  /** Started through the containment zygote run by this perl instead of a prefix. */
  readonly zygote?: string;
}

let probed: Containment | undefined;

function find(name: string): string | undefined {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const p = `${dir}/${name}`;
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** Started the way the executor starts stages: the working directory as descriptor WORKDIR_FD. */
function withWorkdir<T>(trial: (argv: readonly string[], stdio: Array<'ignore' | number>) => T, argv: readonly string[]): T | false {
  let dir: number | undefined;
  try {
    dir = fs.openSync('/', fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0));
    return trial([...argv, '/bin/sh', '-c', 'exit 3'], ['ignore', 'ignore', 'ignore', 'ignore', dir]);
  } catch {
    return false;
  } finally {
    // The async trial has its own copy of the descriptor once spawn() returned: closing ours here is safe.
    if (dir !== undefined) fs.closeSync(dir);
  }
}

const works = (c: Containment): boolean => (c.zygote ? zygoteTrialSync(c.zygote) : withWorkdir((a, stdio) => trialRunSync(a, stdio) === 3, c.prefix) === true);
const worksAsync = async (c: Containment): Promise<boolean> => (c.zygote ? zygoteTrial(c.zygote) : (await withWorkdir((a, stdio) => trialRun(a, stdio), c.prefix)) === 3);

/**
 * The launchers this machine has, strongest first, not yet tried. `group`: of the launchers sharing one, only the
 * first that works counts (the two unshare spellings).
 */
function candidates(): Array<Containment & { readonly group?: string }> {
  const out: Array<Containment & { readonly group?: string }> = [];
  if (process.platform !== 'linux') return out;
  const perl = findPerl();
  if (perl) out.push({ kind: 'pid-namespace', prefix: [], zygote: perl });
  // First choice: bubblewrap with NO restriction but a PID namespace (`--dev-bind / /`): the command runs as
  // PID 2 under bwrap's own init, so signals reach it normally (a SIGTERM grace works, its exit status or signal
  // comes back), and --die-with-parent takes the namespace down with the server.
  const bwrap = find('bwrap');
  // bwrap changes into its old cwd BY PATH after pivot_root; the executor hands every stage the checked
  // folder as WORKDIR_FD, so it changes into that inode instead (a folder swapped for a link is not followed).
  if (bwrap) out.push({ kind: 'pid-namespace', prefix: [bwrap, '--dev-bind', '/', '/', '--unshare-pid', '--die-with-parent', '--chdir', `/proc/self/fd/${WORKDIR_FD}`, '--'] });
  const setpriv = find('setpriv');
  const unshare = find('unshare');
  const death = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--'] : [];
  if (unshare) {
    for (const userns of [[], ['--user', '--map-current-user']]) {
      const prefix = [...death, unshare, ...userns, '--pid', '--fork', '--kill-child', '--'];
      out.push(setpriv
        ? { kind: 'pid-namespace', prefix, group: 'unshare' }
        : { kind: 'pid-namespace', prefix, group: 'unshare', limitation: 'setpriv (util-linux) is missing: if the server is killed with SIGKILL, running commands are not killed with it.' });
    }
  }
  if (setpriv) {
    out.push({ kind: 'pdeathsig', prefix: death, limitation: 'No PID namespace can be created here (no CAP_SYS_ADMIN and no unprivileged user namespaces): a process that calls setsid and closes its descriptors can outlive its call or a SIGKILL of the server.' });
  }
  return out;
}

const plain = ({ group: _group, ...c }: Containment & { readonly group?: string }): Containment => c;

/**
 * Every launcher that really works here, strongest first (each is a trial run). Exported so tests can check
 * each one, not only the one this machine picks.
 */
export function workingLaunchers(): Containment[] {
  const out: Containment[] = [];
  const groups = new Set<string>();
  for (const c of candidates()) {
    if (c.group && groups.has(c.group)) continue;
    if (!works(c)) continue;
    if (c.group) groups.add(c.group);
    out.push(plain(c));
  }
  return out;
}

const NONE_HERE: Containment = { kind: 'none', prefix: [], limitation: 'Neither bwrap, unshare nor setpriv works here: a process that calls setsid and closes its descriptors can outlive its call or a SIGKILL of the server.' };
const NOT_LINUX: Containment = { kind: 'none', prefix: [], limitation: 'Without a sandbox, a process that starts its own session (setsid) and closes its descriptors can outlive its call on this platform; the server kills what /proc or ps shows it.' };

/** Probes once per process which launcher works here (a real trial run, as the sandbox probe does). */
export function probeContainment(): Containment {
  if (probed) return probed;
  if (process.platform !== 'linux') return (probed = NOT_LINUX);
  probed = workingLaunchers()[0] ?? NONE_HERE;
  return probed;
}

/**
 * The same probe without blocking the event loop: the server starts it beside the sandbox probe, so the
 * answer is there (and probeContainment() returns it) before the first session. Same order, same trial.
 */
export async function probeContainmentAsync(): Promise<Containment> {
  if (probed) return probed;
  if (process.platform !== 'linux') return (probed = NOT_LINUX);
  let found: Containment = NONE_HERE;
  for (const c of candidates()) {
    if (await worksAsync(c)) {
      found = plain(c);
      break;
    }
  }
  // (The zygote's trial ran through the zygote itself, which stays up for the first call.)
  return (probed ??= found);
}

/** True when this containment changes how stages start (a launcher prefix, or the zygote). */
export function contains(c: Containment): boolean {
  return c.prefix.length > 0 || c.zygote !== undefined;
}

/** The stage started through the containment launcher. */
export function containStage(stage: ExecStage, c: Containment): ExecStage {
  if (c.zygote) return { ...stage, zygote: c.zygote };
  if (c.prefix.length === 0) return stage;
  const needsDir = c.prefix.includes(`/proc/self/fd/${WORKDIR_FD}`);
  return { file: c.prefix[0]!, args: [...c.prefix.slice(1), stage.file, ...stage.args], ...(needsDir && { workdirFd: true }) };
}
