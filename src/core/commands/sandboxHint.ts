import * as fs from 'node:fs';
import * as path from 'node:path';
import { howToSet, settingName, type SettingsHost } from '../config/settingNames';
import { isInside } from '../paths/confine';

/**
 * "Say what the sandbox did": when a command failed on a limit the server set — `.git`'s configuration and hooks
 * read-only, no network, a program that is not on the commands' PATH or that the sandbox hides — one line naming
 * the setting that changes it. Two steps, both pure: what the output shows (failureSigns: the real messages of
 * git, curl, wget, npm/node, Python, pip, ssh, make, env, sh, bash and zsh), then whether a setting of ours caused
 * it and which (sandboxHint). The once-per-session bookkeeping is the session's (src/server/tools).
 */

export type SandboxCause = 'git-read-only' | 'network' | 'program-missing';

export interface SandboxHint {
  /** What the session remembers, so each cause is explained once. */
  readonly cause: SandboxCause;
  readonly text: string;
}

export interface FailureSigns {
  /** A write under a `.git` folder failed with EROFS or EBUSY. */
  readonly gitReadOnly: boolean;
  /** A name lookup or a connection failed the way it does without a network. */
  readonly network: boolean;
  /** Programs reported missing (bare names as a shell or launcher looked them up, or absolute paths). */
  readonly missing: readonly string[];
}

/**
 * A write to `.git` the sandbox stopped: EROFS where a folder is read-only (hooks), EBUSY where git renames its
 * lock file over the read-only configuration file ("could not write config file .git/config: Device or resource
 * busy": a file bound read-only cannot be replaced).
 */
const GIT_PATH = String.raw`(?:^|[\s'"\u2018\`(/=])\.git(?:[/\s'"\u2019\`):]|$)`;
const REFUSED_WRITE = '(?:Read-only file system|Device or resource busy)';
const EROFS_GIT = new RegExp(`${GIT_PATH}.*${REFUSED_WRITE}|${REFUSED_WRITE}.*${GIT_PATH}`, 'm');

/** Name resolution and connection failures as the programs print them when there is no network at all. */
const NETWORK = [
  /\bEAI_AGAIN\b/, // node, npm: getaddrinfo EAI_AGAIN registry.npmjs.org
  /\bENOTFOUND\b/, // node when no resolver is reachable
  /\bENETUNREACH\b/, // node: connect ENETUNREACH 1.1.1.1:80
  /Temporary failure in name resolution/, // glibc: Python, pip, wget, ssh
  /Could not resolve host(?:name)?\b/, // curl, git over https, ssh
  /unable to resolve host address/, // wget
  /Name or service not known/, // glibc, when no resolver answers at all
  /Network is unreachable/, // Python's OSError 101, many C programs
  /getaddrinfo failed/, // Python on some platforms
  // curl to an address: "Failed to connect to 1.1.1.1 port 80 after 0 ms: Couldn't connect to server" — not to
  // loopback, which the sandbox has (a local server that is not running fails the same way with a network).
  /Failed to connect to (?!localhost\b|127\.|\[?::1\]?\b)\S+ port \d+/,
];

/** Shell and launcher messages for a program that was not found, with the name in group 1. */
const MISSING = [
  /^(?:.*?: )?(?:line \d+: )?([^\s:]+): command not found$/, // bash: "bash: line 1: python: command not found"
  /^[^:\n]+: \d+: ([^\s:]+): not found$/, // dash: "/bin/sh: 1: python: not found"
  /command not found: (\S+)$/, // zsh: "zsh:1: command not found: python"
  /^(?:\S*\/)?(?:make(?:\[\d+\])?|env|xargs|nice|nohup|timeout|stdbuf|setsid|flock|ionice|chrt|time): ['\u2018]?([^\s'\u2019:]+)['\u2019]?: No such file or directory$/, // make, env, xargs …
  /\bspawn(?:Sync)? (\S+) ENOENT\b/, // node's child_process, and the server's own "spawn python ENOENT"
  /FileNotFoundError: \[Errno 2\] No such file or directory: '([^'/\s]+)'$/, // Python's subprocess
];

export function failureSigns(output: string): FailureSigns {
  const lines = output.split(/\r?\n/);
  const missing = new Set<string>();
  for (const line of lines) {
    for (const re of MISSING) {
      const m = re.exec(line.trim());
      if (m) missing.add(m[1]!);
    }
  }
  return {
    gitReadOnly: lines.some((l) => EROFS_GIT.test(l)),
    network: NETWORK.some((re) => re.test(output)),
    missing: [...missing],
  };
}

/** What the server knows about the call: its sandbox, its settings, the PATHs and what the sandbox shows. */
export interface HintFacts {
  /** A kernel sandbox confined the command. */
  readonly sandboxed: boolean;
  readonly host: SettingsHost;
  readonly allowGitWrites: boolean;
  /** The workspace itself is read-only (readOnly mode): then `.git` being read-only is not a setting of its own. */
  readonly workspaceReadOnly: boolean;
  /** The network setting (`deny`, `fetch`, `allow`) and whether sandboxed commands have the network under it. */
  readonly network: string;
  readonly commandsHaveNetwork: boolean;
  /** The server's own PATH, and the PATH the command got. */
  readonly serverPath: string;
  readonly childPath: string;
  /** Whether PATH was passed through (childEnvAllowlist) or set (safePath): then the toolchain folders are not added. */
  readonly pathChosenBy?: 'childEnvAllowlist' | 'safePath';
  /** The toolchain setting; and server PATH entries left out of the child's, with why. */
  readonly toolchainPath: boolean;
  readonly toolchainSkipped: readonly { readonly entry: string; readonly reason: string }[];
  /** Folders the sandbox shows (system, workspace, toolchain binds, the commands' HOME): see visibleInSandbox. */
  readonly visible: (p: string) => boolean;
  /** Where a bare program name is on a PATH (the first folder holding an executable file), or undefined. */
  readonly find?: (name: string, pathValue: string) => string | undefined;
}

export function findOnPath(name: string, pathValue: string): string | undefined {
  for (const dir of pathValue.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    try {
      const p = path.join(dir, name);
      const st = fs.statSync(p);
      if (st.isFile() && (st.mode & 0o111) !== 0) return dir;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** The hint for a failed command's output, or undefined when no setting of ours explains it. */
export function sandboxHint(output: string, facts: HintFacts): SandboxHint | undefined {
  const signs = failureSigns(output);
  if (signs.gitReadOnly && facts.sandboxed && !facts.allowGitWrites && !facts.workspaceReadOnly) {
    return {
      cause: 'git-read-only',
      text: `The sandbox keeps .git's configuration and hooks read-only (commits, branches and the index are writable), so git cannot change them (git remote add, git config, a hook). To let sandboxed commands write them, ${howToSet('allowGitWrites', facts.host, true)} (a command that can write .git can plant a hook that runs later, outside the sandbox).`,
    };
  }
  if (signs.network && facts.sandboxed && !facts.commandsHaveNetwork) {
    const fetchTool = facts.network === 'fetch' ? ' The fetch tool can still read public URLs.' : '';
    return {
      cause: 'network',
      text: facts.network === 'domains'
        ? `Sandboxed commands reach only the listed hosts, and only through the proxy in HTTP_PROXY/HTTPS_PROXY (${settingName('network', facts.host)} is "domains"); a program that ignores those variables, or its own name lookups, cannot get out. Use the program's proxy setting, or ${howToSet('network', facts.host, 'allow')} to give commands the whole network.`
        : `Sandboxed commands have no network (${settingName('network', facts.host)} is "${facts.network}"), so this name lookup or connection failed. To let them reach the hosts you list, ${howToSet('network', facts.host, 'domains')} (with the hosts or a preset such as npm); to give them the whole network, ${howToSet('network', facts.host, 'allow')}.${fetchTool}`,
    };
  }
  for (const program of signs.missing) {
    const text = missingProgramText(program, facts);
    if (text) return { cause: 'program-missing', text };
  }
  return undefined;
}

function missingProgramText(program: string, facts: HintFacts): string | undefined {
  const turnOn = howToSet('toolchainPath', facts.host, true);
  if (program.startsWith('/')) {
    // An absolute program the host has but the sandbox does not show (a shebang into the hidden home folder).
    if (!facts.sandboxed || facts.visible(program) || !fs.existsSync(program)) return undefined;
    const fix = facts.toolchainPath ? "Only the toolchain folders on the server's PATH are shown there." : `To show the toolchain folders on the server's PATH (read-only), ${turnOn}.`;
    return `${program} exists, but the sandbox hides the home folder it is in. ${fix}`;
  }
  if (program.includes('/')) return undefined;
  const dir = (facts.find ?? findOnPath)(program, facts.serverPath);
  if (dir === undefined) return undefined; // not installed where the server could see it: no setting of ours
  const real = realOr(dir);
  const onChild = facts.childPath.split(path.delimiter).some((d) => d === dir || (path.isAbsolute(d) && realOr(d) === real));
  const skipped = facts.toolchainSkipped.find((s) => s.entry === dir || (path.isAbsolute(s.entry) && realOr(s.entry) === real));
  const found = `"${program}" is in ${dir} on the server's PATH`;
  if (onChild) {
    if (!facts.sandboxed || facts.visible(real)) return undefined; // the sandbox shows it: not our doing
    if (!facts.toolchainPath) return `${found}, but the sandbox hides that folder. To show the toolchain folders of the server's PATH (read-only), ${turnOn}.`;
    return `${found}, but the sandbox hides that folder${skipped ? `, which is not shown as a toolchain folder: ${skipped.reason}` : ''}.`;
  }
  if (!facts.toolchainPath) return `${found}, but commands get only the system folders on PATH. To give them the toolchain folders (read-only inside the sandbox), ${turnOn}.`;
  if (facts.pathChosenBy === 'safePath') return `${found}, but commands get ${settingName('safePath', facts.host)} as their PATH; add ${dir} there.`;
  if (skipped) return `${found}, which commands do not get: ${skipped.reason}.`;
  return `${found}, but not on the commands' PATH; adding PATH to ${settingName('childEnvAllowlist', facts.host)} passes the server's whole PATH through.`;
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** True when `p` is visible inside a bubblewrap sandbox laid out by mountPlan (approximation for the hint only). */
export function visibleInSandbox(p: string, shown: { home?: string; root: string; toolchain: readonly string[]; privateHome?: string; hidden: readonly string[] }): boolean {
  if (shown.hidden.some((h) => isInside(h, p))) return false;
  if (isInside(shown.root, p) || shown.toolchain.some((t) => isInside(t, p)) || (shown.privateHome !== undefined && isInside(shown.privateHome, p))) return true;
  if (['/tmp', '/run'].some((h) => isInside(h, p))) return false;
  return !(shown.home && isInside(shown.home, p));
}
