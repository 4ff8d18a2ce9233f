import { trialRunSync } from '../exec/helper';
import * as fs from 'node:fs';
import { WORKDIR_FD } from '../exec/redirects';
import type { ExecStage } from '../exec/types';

/**
 * Process containment WITHOUT a sandbox (isolation none / auto with no bubblewrap). Node cannot make itself a
 * child subreaper (PR_SET_CHILD_SUBREAPER is not reachable), so each stage is started through two util-linux
 * launcher, the first that works here (probed once with a real trial run):
 *
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

function works(argv: readonly string[]): boolean {
  // Started the way the executor starts stages: the working directory as descriptor WORKDIR_FD.
  let dir: number | undefined;
  try {
    dir = fs.openSync('/', fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0));
    const stdio: Array<'ignore' | number> = ['ignore', 'ignore', 'ignore', 'ignore', dir];
    return trialRunSync([...argv, '/bin/sh', '-c', 'exit 3'], stdio) === 3;
  } catch {
    return false;
  } finally {
    if (dir !== undefined) fs.closeSync(dir);
  }
}

/**
 * Every launcher that really works here, strongest first (each is a trial run). Exported so tests can check
 * each one, not only the one this machine picks.
 */
export function workingLaunchers(): Containment[] {
  const out: Containment[] = [];
  if (process.platform !== 'linux') return out;
  // First choice: bubblewrap with NO restriction but a PID namespace (`--dev-bind / /`): the command runs as
  // PID 2 under bwrap's own init, so signals reach it normally (a SIGTERM grace works, its exit status or signal
  // comes back), and --die-with-parent takes the namespace down with the server.
  const bwrap = find('bwrap');
  if (bwrap) {
    // bwrap changes into its old cwd BY PATH after pivot_root; the executor hands every stage the checked
    // folder as WORKDIR_FD, so it changes into that inode instead (a folder swapped for a link is not followed).
    const argv = [bwrap, '--dev-bind', '/', '/', '--unshare-pid', '--die-with-parent', '--chdir', `/proc/self/fd/${WORKDIR_FD}`, '--'];
    if (works(argv)) out.push({ kind: 'pid-namespace', prefix: argv });
  }
  const setpriv = find('setpriv');
  const unshare = find('unshare');
  const death = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--'] : [];
  if (unshare) {
    for (const userns of [[], ['--user', '--map-current-user']]) {
      const argv = [...death, unshare, ...userns, '--pid', '--fork', '--kill-child', '--'];
      if (!works(argv)) continue;
      out.push(setpriv
        ? { kind: 'pid-namespace', prefix: argv }
        : { kind: 'pid-namespace', prefix: argv, limitation: 'setpriv (util-linux) is missing: if the server is killed with SIGKILL, running commands are not killed with it.' });
      break;
    }
  }
  if (setpriv && works(death)) {
    out.push({ kind: 'pdeathsig', prefix: death, limitation: 'No PID namespace can be created here (no CAP_SYS_ADMIN and no unprivileged user namespaces): a process that calls setsid and closes its descriptors can outlive its call or a SIGKILL of the server.' });
  }
  return out;
}

/** Probes once per process which launcher works here (a real trial run, as the sandbox probe does). */
export function probeContainment(): Containment {
  if (probed) return probed;
  if (process.platform !== 'linux') {
    probed = { kind: 'none', prefix: [], limitation: 'Without a sandbox, a process that starts its own session (setsid) and closes its descriptors can outlive its call on this platform; the server kills what /proc or ps shows it.' };
    return probed;
  }
  probed = workingLaunchers()[0] ?? { kind: 'none', prefix: [], limitation: 'Neither bwrap, unshare nor setpriv works here: a process that calls setsid and closes its descriptors can outlive its call or a SIGKILL of the server.' };
  return probed;
}

/** The stage started through the containment launcher. */
export function containStage(stage: ExecStage, c: Containment): ExecStage {
  if (c.prefix.length === 0) return stage;
  const needsDir = c.prefix.includes(`/proc/self/fd/${WORKDIR_FD}`);
  return { file: c.prefix[0]!, args: [...c.prefix.slice(1), stage.file, ...stage.args], ...(needsDir && { workdirFd: true }) };
}
