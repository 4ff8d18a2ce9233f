import * as fs from 'node:fs';
import type { Program } from './contract';

/**
 * The argv chains the Linux launcher starts a stage through (util-linux's unshare and setpriv, coreutils' timeout,
 * inside bubblewrap or without it), as pure functions of the program and who runs the server. What each step is for:
 *
 *  - the command runs in a PID namespace of its own with ITS OWN /proc: the server, the launcher's processes and
 *    other calls are not in it, so they cannot be seen, signalled or traced, nor their /proc/<pid>/fd, mem or
 *    environ opened (the host's /proc would show them all to a same-user or root command);
 *  - PID 1 of that namespace is `timeout 0` (no time limit: it forks the command, forwards SIGTERM to it, waits, and
 *    exits with its status, 128+N for a signal N as a shell reports it); it keeps a capability the command lacks, so
 *    the kernel refuses the command every ptrace of it and every open of its /proc/1/{mem,environ,fd/*}, and a
 *    signal the command sends its init is dropped (SIGKILL, SIGSTOP) or only forwarded back to the command;
 *  - it dies with the server (a parent-death signal on it and on its parent), and with it the namespace and all
 *    in it: a command that clears its own parent-death signal, leaves its session or closes every descriptor is
 *    still in there;
 *  - the command has no capability: setpriv empties every set and the bounding set and sets no_new_privs before
 *    the exec (root would otherwise get all of them back at exec).
 */

export interface LinuxTools {
  readonly unshare: string;
  readonly setpriv: string;
  /** coreutils' timeout, the namespace's PID 1. */
  readonly timeout: string;
}

/** Who the server runs as: root makes namespaces as is; any other user inside a user namespace of its own. */
export type Identity = { readonly root: true } | { readonly root: false; readonly uid: number; readonly gid: number };

export function currentIdentity(): Identity {
  const uid = process.getuid?.() ?? 0;
  return uid === 0 ? { root: true } : { root: false, uid, gid: process.getgid?.() ?? uid };
}

/** The tools from the system's own folders (never the agent-influenced PATH). */
export function findLinuxTools(): LinuxTools | undefined {
  const find = (name: string) => ['/usr/bin', '/bin', '/usr/sbin', '/sbin'].map((d) => `${d}/${name}`).find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  const unshare = find('unshare');
  const setpriv = find('setpriv');
  const timeout = find('timeout');
  return unshare && setpriv && timeout ? { unshare, setpriv, timeout } : undefined;
}

/** setpriv's arguments that leave the next program no capability, even as root, and no way to gain one. */
export const NO_CAPABILITIES = ['--no-new-privs', '--inh-caps=-all', '--ambient-caps=-all', '--bounding-set=-all'] as const;

/** PID 1 of the command's namespace, holding the capabilities it was started with; the command, holding none. */
export function initAndCommand(program: Program, tools: LinuxTools): string[] {
  return [tools.timeout, '--foreground', '0', tools.setpriv, ...NO_CAPABILITIES, '--', program.file, ...program.args];
}

/**
 * Without a sandbox: setpriv makes this process die with the server; it holds a new PID namespace (and a mount
 * namespace with that namespace's /proc) whose PID 1 dies with it (--kill-child). Not root: in a user namespace that
 * maps only the server's uid and gid, PID 1 keeping the namespace's capabilities across its exec (--keep-caps).
 */
export function namespacesChain(program: Program, tools: LinuxTools, who: Identity): string[] {
  const user = who.root ? [] : ['--user', '--map-current-user', '--keep-caps'];
  return [tools.setpriv, '--pdeathsig', 'KILL', '--', tools.unshare, ...user, '--pid', '--fork', '--kill-child', '--mount-proc', '--', ...initAndCommand(program, tools)];
}

/**
 * Inside bubblewrap (started with --as-pid-1, its children given CAP_SETPCAP and nothing else, and dying with
 * bwrap): the same PID 1 and command. bubblewrap's own init has no capability at all: the command could trace it
 * and clear its death signal.
 */
export function sandboxInit(program: Program, tools: LinuxTools): Program {
  const [file, ...args] = initAndCommand(program, tools);
  return { file: file!, args };
}
