import * as fs from 'node:fs';
import * as path from 'node:path';
import { sandboxIdentity } from '../effects/overlay';
import { sandboxInit, type LinuxTools } from '../exec/launch/linuxChains';
import type { ExecStage } from '../exec/types';
import { proxyMounts, proxyPrefix } from '../network/sandboxWiring';
import { isInside } from '../paths/confine';
import { gitProgramPaths } from './gitCreation';
import { checkContext, PRIVATE_HOME_CACHES, SENSITIVE_HOME_ENTRIES, type CheckedContext } from './context';
import { scanProtected, type ProtectedScan } from './protectedScan';
import type { Sandbox, SandboxContext } from './types';

/**
 * bubblewrap (Linux). The command sees the real system read-only, the workspace read-write (read-only in
 * readOnly mode), and empty tmpfs over everything private: /tmp, /run, HOME, user-hidden paths. Inside the
 * hidden HOME: the person's toolchain folders read-only, the commands' own HOME (fresh per call, its caches kept).
 *
 * Mounts are applied from the broadest path to the narrowest, so a narrower rule always lands ON TOP of a
 * broader one: the workspace stays visible inside a hidden HOME, `.git` stays read-only inside a read-write
 * workspace. On the same path the stricter rule is applied last and wins (hidden > read-only > read-write).
 */

export interface BwrapOptions {
  /** Absolute path of bwrap (from the probe). */
  readonly bwrapPath: string;
  /** Absolute path of prlimit; without it no resource limit is applied (the probe reports that). */
  readonly prlimitPath?: string;
  /** Add --disable-userns (bubblewrap >= 0.8): nothing inside can create a user namespace of its own. */
  readonly disableUserns: boolean;
  /** The sandbox's PID 1 and the command's loss of capabilities (the probe's; linuxChains.ts). */
  readonly tools?: LinuxTools;
  /** How paths on disk are looked at; tests replace it. Returns the real path and its type, or undefined. */
  readonly lookup?: (p: string) => PathInfo | undefined;
  /** Finds nested `.git` and protected-glob paths below the root; tests replace it. */
  readonly scan?: (root: string, globs: readonly string[]) => ProtectedScan;
}

export interface PathInfo {
  readonly real: string;
  readonly isDirectory: boolean;
}

export type MountKind = 'rw' | 'ro' | 'hide';

export interface MountEntry {
  readonly path: string;
  readonly kind: MountKind;
  readonly isDirectory: boolean;
}

const STRICTNESS: Record<MountKind, number> = { rw: 0, ro: 1, hide: 2 };

export function lookupPath(p: string): PathInfo | undefined {
  try {
    const real = fs.realpathSync(p);
    return { real, isDirectory: fs.statSync(real).isDirectory() };
  } catch {
    return undefined;
  }
}

/**
 * The ordered mounts laid over the read-only system. Paths that do not exist are left out on purpose: bwrap
 * would CREATE the mount point, and inside a read-write workspace that would be a real directory on the host.
 */
export function mountPlan(c: CheckedContext, lookup: (p: string) => PathInfo | undefined = lookupPath, scan: BwrapOptions['scan'] = scanProtected): MountEntry[] {
  // `exact`: mounted only where the path is its own real path. The toolchain folders and the private HOME's caches
  // were resolved when they were chosen; a link put in their place since (a cache folder made a link to ~/.ssh by
  // an unsandboxed command) must not bind its target instead.
  const wanted: { path: string; kind: MountKind; exact?: boolean }[] = [
    // Private, empty, writable: /tmp (shared sockets such as ssh-agent's and X11's live there) and /run (the
    // docker, D-Bus and systemd sockets: a read-only mount does not stop connect() on a Unix socket).
    { path: '/tmp', kind: 'hide' },
    { path: '/run', kind: 'hide' },
  ];
  // A workspace that contains HOME must stay visible: then only the credential stores below are hidden.
  if (c.home && !isInside(c.root, c.home)) wanted.push({ path: c.home, kind: 'hide' });
  wanted.push({ path: c.root, kind: c.workspaceReadOnly ? 'ro' : 'rw' });
  // Without git writes, what makes git run a program later, outside the sandbox, is read-only: the configuration
  // and hooks of the root's git directory and of nested repositories' and submodules' (gitCreation.ts). The rest of
  // .git stays writable, so `git add` and `git commit` work. A `.git` FILE (a linked worktree or submodule) names
  // where its git directory is: read-only whole. Whatever a protected glob matches: read-only.
  if (!c.allowGitWrites) wanted.push(...gitReadOnly(path.join(c.root, '.git'), lookup));
  if (!c.allowGitWrites || c.protectedPaths.length > 0) {
    const found = scan(c.root, c.protectedPaths);
    if (!c.allowGitWrites) for (const p of found.git) wanted.push(...gitReadOnly(p, lookup));
    for (const p of found.globbed) wanted.push({ path: p, kind: 'ro' });
  }
  // The person's toolchain folders, read-only, over the hidden home folder (a credential store inside one stays
  // hidden); the commands' own HOME: empty and writable for each call, with only its caches kept (PRIVATE_HOME_CACHES).
  for (const p of c.toolchainPaths) wanted.push({ path: p, kind: 'ro', exact: true });
  if (c.privateHome) {
    wanted.push({ path: c.privateHome, kind: 'hide', exact: true });
    for (const cache of PRIVATE_HOME_CACHES) wanted.push({ path: path.join(c.privateHome, cache), kind: 'rw', exact: true });
  }
  if (c.home) {
    const holders = [...(isInside(c.root, c.home) ? [c.root] : []), ...c.toolchainPaths];
    for (const e of SENSITIVE_HOME_ENTRIES) {
      const p = path.join(c.home, e);
      if (holders.some((h) => isInside(h, p))) wanted.push({ path: p, kind: 'hide' });
    }
  }
  // With the network allowed, DNS often goes through systemd-resolved's stub, whose resolv.conf lives in /run.
  if (c.network === 'allow') wanted.push({ path: '/run/systemd/resolve', kind: 'ro' });
  for (const p of c.readOnlyPaths) wanted.push({ path: p, kind: 'ro' });
  for (const p of c.hiddenPaths) wanted.push({ path: p, kind: 'hide' });

  const entries: MountEntry[] = [];
  for (const w of wanted) {
    const info = lookup(w.path);
    if (!info || info.real === '/' || (w.exact && info.real !== w.path)) continue;
    entries.push({ path: info.real, kind: w.kind, isDirectory: info.isDirectory });
  }
  const depth = (p: string) => p.split('/').filter(Boolean).length;
  // Array.prototype.sort is stable: equal depth and kind keep their listed order.
  entries.sort((a, b) => depth(a.path) - depth(b.path) || STRICTNESS[a.kind] - STRICTNESS[b.kind]);
  return entries;
}

/** The read-only mounts that keep a `.git` from naming programs: its program entries, or all of it when not a folder. */
function gitReadOnly(gitPath: string, lookup: (p: string) => PathInfo | undefined): { path: string; kind: MountKind }[] {
  const info = lookup(gitPath);
  if (!info) return [];
  if (!info.isDirectory || info.real !== gitPath) return [{ path: gitPath, kind: 'ro' }];
  return gitProgramPaths(gitPath).map((p) => ({ path: p, kind: 'ro' as const }));
}

function mountArgs(e: MountEntry): string[] {
  switch (e.kind) {
    case 'rw':
      return ['--bind', e.path, e.path];
    case 'ro':
      return ['--ro-bind', e.path, e.path];
    case 'hide':
      // A directory becomes an empty tmpfs; a file (or socket) becomes /dev/null bound without device access
      // (bwrap binds are nodev), so opening it fails with EACCES: neither its content nor a write gets through.
      return e.isDirectory ? ['--tmpfs', e.path] : ['--ro-bind', '/dev/null', e.path];
  }
}

/** The bwrap argv (without the program itself) that runs `stage` confined by `ctx`. */
export function bwrapArgs(stage: ExecStage, ctx: SandboxContext, opts: BwrapOptions): string[] {
  const c = checkContext(ctx);
  const args = [
    '--die-with-parent', // the server (or the executor's kill of bwrap) takes the whole sandbox down
    '--new-session', // setsid: no TIOCSTI keystroke injection into a terminal the server might own
    '--unshare-all', // user, pid, ipc, uts, cgroup and network namespaces
    '--unshare-user', // explicit: --unshare-all only TRIES it, and a server running as root must get one too
    ...(opts.disableUserns ? ['--disable-userns'] : []),
    // Without it a server running as root hands the command every capability inside its user namespace, and the
    // command can umount the tmpfs hiding HOME and remount / read-write (verified with bubblewrap 0.8).
    '--cap-drop', 'ALL',
    // No bwrap init: PID 1 is sandboxInit()'s (src/core/exec/launch/linuxChains.ts), which keeps this one
    // capability while the command it forks has none, so the command cannot trace it or clear its death signal.
    '--as-pid-1', '--cap-add', 'CAP_SETPCAP',
    ...(c.network === 'allow' ? ['--share-net'] : []),
    '--ro-bind', '/', '/',
    '--dev', '/dev', // null, zero, random, tty, pts, shm only: no disks, no /dev/kmsg
    '--proc', '/proc', // a procfs of the sandbox's own PID namespace: the host's processes are invisible
  ];
  if (ctx.overlay) args.push(...sandboxIdentity(ctx.overlay.tools));
  for (const e of mountPlan(c, opts.lookup, opts.scan)) {
    // Preview: the copy-on-write view where the workspace is; every narrower mount (.git's program paths, protected
    // and hidden paths) still lands on top of it.
    if (ctx.overlay && e.path === c.root && e.kind === 'rw') args.push('--bind', ctx.overlay.view.merged, c.root);
    else args.push(...mountArgs(e));
  }
  // The egress proxy's socket, over the tmpfs the plan put on /run (sandboxWiring.ts).
  if (c.proxy) args.push(...proxyMounts(c.proxy, c.root));
  args.push('--chdir', c.cwd, '--');
  if (opts.prlimitPath) {
    // prlimit runs INSIDE the namespaces, sets soft = hard limits on itself, then execs the command: nothing in
    // the sandbox holds CAP_SYS_RESOURCE, so no descendant can raise them again.
    args.push(
      opts.prlimitPath,
      `--nproc=${c.limits.processes}`,
      `--fsize=${c.limits.fileSizeBytes}`,
      `--cpu=${c.limits.cpuSeconds}`,
      '--',
    );
  }
  // Under the limits too: the bridge listens on the sandbox's loopback, then execs the command in its place.
  if (c.proxy) args.push(...proxyPrefix(c.proxy));
  args.push(stage.file, ...stage.args);
  return args;
}

const DEFAULT_TOOLS: LinuxTools = { unshare: '/usr/bin/unshare', setpriv: '/usr/bin/setpriv', timeout: '/usr/bin/timeout' };

export function createBwrapSandbox(opts: BwrapOptions): Sandbox {
  return {
    kind: 'bwrap',
    // Preview (ctx.overlay): the workspace's place holds the copy-on-write view; the Linux launcher puts the mount
    // step that makes it in front of this argv (exec/launch/linux.ts).
    wrap: (stage, ctx) => ({ file: opts.bwrapPath, args: bwrapArgs(sandboxInit(stage, opts.tools ?? DEFAULT_TOOLS), ctx, opts) }),
  };
}
