import { findLinuxTools, initAndCommand, type LinuxTools } from '../exec/launch/linuxChains';
import { runHelper } from '../exec/launch/spawn';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SANDBOX_EXEC_PATH } from './seatbelt';
import type { IsolationProbe } from './types';
import { attempt } from '../attempt';

/**
 * Capability probe, run once at start: is a sandbox program installed, and can it REALLY start a sandbox here?
 * Being installed is not enough: containers (Docker's default seccomp profile), Ubuntu 23.10+'s AppArmor
 * restriction of unprivileged user namespaces and `user.max_user_namespaces=0` all make bwrap fail at run time,
 * and its stderr says which; that text is passed on verbatim.
 */

export interface ProbeOptions {
  /** Where to look for bwrap, in order. Default: the usual system locations, then the server's PATH. */
  readonly bwrapCandidates?: readonly string[];
  readonly prlimitCandidates?: readonly string[];
  /** unshare and setpriv (util-linux); null: none here. Default: found in the system's folders. */
  readonly tools?: LinuxTools | null;
  /** Milliseconds allowed for each trial run. */
  readonly timeoutMs?: number;
}

interface RunResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(file: string, args: readonly string[], timeoutMs: number): Promise<RunResult> {
  const { error, stdout, stderr } = await runHelper(file, args, { timeoutMs, env: { PATH: '/usr/bin:/bin' } });
  const errText = error && !stderr.trim() ? (error.killed ? `timed out after ${timeoutMs} ms` : error.message) : '';
  return { ok: !error, stdout: stdout.toString('utf8'), stderr: (stderr.trim() || errText).trim() };
}

function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function defaultCandidates(name: string): string[] {
  const fromPath = (process.env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d)).map((d) => path.join(d, name));
  return [`/usr/bin/${name}`, `/bin/${name}`, `/usr/local/bin/${name}`, ...fromPath];
}

function firstExecutable(candidates: readonly string[]): string | undefined {
  return candidates.find(isExecutableFile);
}

/** The flags every wrapped command uses, and the same PID 1 step; the trial run must use them too, or it proves nothing. */
function trialArgs(truePath: string, disableUserns: boolean, tools: LinuxTools): string[] {
  return [
    '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp',
    '--unshare-all', '--unshare-user', ...(disableUserns ? ['--disable-userns'] : []), '--cap-drop', 'ALL',
    '--as-pid-1', '--cap-add', 'CAP_SETPCAP',
    '--die-with-parent', '--new-session', '--', ...initAndCommand({ file: truePath, args: [] }, tools),
  ];
}

function namespaceHint(): string {
  const read = (p: string) => {
    return attempt(() => fs.readFileSync(p, 'utf8').trim());
  };
  if (read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1') {
    return ' AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns=1): '
      + 'install an AppArmor profile that allows bwrap userns (Ubuntu 24.04 ships one in apparmor-profiles as "bwrap-userns-restrict") '
      + 'or set that sysctl to 0.';
  }
  if (read('/proc/sys/user/max_user_namespaces') === '0') return ' User namespaces are disabled (user.max_user_namespaces=0).';
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0') return ' Unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0).';
  if (fs.existsSync('/.dockerenv') || fs.existsSync('/run/.containerenv')) {
    return ' This looks like a container, whose seccomp profile usually forbids creating namespaces: run the server outside it, or give the container a profile that allows unshare/clone of namespaces.';
  }
  return '';
}

async function probeBwrap(opts: ProbeOptions): Promise<IsolationProbe> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const bwrap = firstExecutable(opts.bwrapCandidates ?? defaultCandidates('bwrap'));
  if (!bwrap) {
    return {
      kind: 'bwrap',
      available: false,
      reason: 'bubblewrap (bwrap) is not installed. Install it: `apt-get install bubblewrap` (Debian/Ubuntu), `dnf install bubblewrap` (Fedora), `pacman -S bubblewrap` (Arch).',
    };
  }
  const tools = opts.tools === undefined ? findLinuxTools() : opts.tools ?? undefined;
  if (!tools) {
    return { kind: 'bwrap', available: false, path: bwrap, reason: 'util-linux\'s unshare and setpriv or coreutils\' timeout are not in /usr/bin or /bin: the sandbox needs them for its PID 1 and to leave commands no capability. Install util-linux and coreutils.' };
  }
  const truePath = firstExecutable(['/usr/bin/true', '/bin/true']) ?? '/bin/true';
  // The version and the trial sandbox side by side: the probe is on the start-up path (sessions wait for it).
  const [versionRun, firstTrial] = await Promise.all([run(bwrap, ['--version'], timeoutMs), run(bwrap, trialArgs(truePath, true, tools), timeoutMs)]);
  const version = versionRun.ok ? versionRun.stdout.trim().replace(/^bubblewrap\s+/i, '') : undefined;
  let trial = firstTrial;
  let disableUserns = true;
  if (!trial.ok) {
    // bubblewrap < 0.8 has no --disable-userns; the sandbox is still sound without it (see docs/isolation.md).
    const older = await run(bwrap, trialArgs(truePath, false, tools), timeoutMs);
    if (older.ok) {
      trial = older;
      disableUserns = false;
    }
  }
  if (!trial.ok) {
    return {
      kind: 'bwrap',
      available: false,
      path: bwrap,
      ...(version && { version }),
      reason: `bubblewrap is installed (${bwrap}) but cannot create a sandbox here: ${trial.stderr || 'it failed without a message'}.${namespaceHint()}`,
    };
  }
  const prlimitPath = firstExecutable(opts.prlimitCandidates ?? defaultCandidates('prlimit'));
  const limitations: string[] = [];
  if (!prlimitPath) limitations.push('prlimit (util-linux) was not found: no process, file-size or CPU limits are applied; only the timeout bounds a command.');
  if (process.getuid?.() === 0) {
    limitations.push('The server runs as root: the kernel does not enforce the process-count limit (RLIMIT_NPROC) for root, so a fork bomb is bounded only by the timeout. Run the server as a normal user.');
  }
  if (!disableUserns) limitations.push(`bubblewrap ${version ?? ''} has no --disable-userns (needs 0.8+): commands may create nested user namespaces (they still cannot undo the sandbox's mounts).`.replace('  ', ' '));
  return {
    kind: 'bwrap',
    available: true,
    path: bwrap,
    ...(version && { version }),
    ...(prlimitPath && { prlimitPath }),
    tools,
    disableUserns,
    ...(limitations.length && { limitations }),
  };
}

async function probeSeatbelt(opts: ProbeOptions): Promise<IsolationProbe> {
  if (!isExecutableFile(SANDBOX_EXEC_PATH)) {
    return { kind: 'seatbelt', available: false, reason: `${SANDBOX_EXEC_PATH} is missing; it ships with macOS and cannot be installed separately.` };
  }
  const trial = await run(SANDBOX_EXEC_PATH, ['-p', '(version 1)(allow default)', '--', '/usr/bin/true'], opts.timeoutMs ?? 5000);
  if (!trial.ok) {
    return { kind: 'seatbelt', available: false, path: SANDBOX_EXEC_PATH, reason: `sandbox-exec cannot start a sandbox here: ${trial.stderr || 'it failed without a message'}.` };
  }
  return {
    kind: 'seatbelt',
    available: true,
    path: SANDBOX_EXEC_PATH,
    limitations: ['macOS: no process, file-size or CPU limits (only the timeout); /tmp is shared, not private; the profile is untested on a real Mac.'],
  };
}

export async function probeIsolation(platform: NodeJS.Platform = process.platform, opts: ProbeOptions = {}): Promise<IsolationProbe> {
  if (platform === 'linux') return probeBwrap(opts);
  if (platform === 'darwin') return probeSeatbelt(opts);
  if (platform === 'win32') {
    return { kind: 'none', available: false, reason: 'Windows has no sandbox for Guarded Shell; run it inside WSL (with bubblewrap) for one.' };
  }
  return { kind: 'none', available: false, reason: `No sandbox is supported on ${platform} (only Linux with bubblewrap and macOS with sandbox-exec).` };
}
