import type { OverlayTools, OverlayView } from '../effects/overlay';
import type { LinuxTools } from '../exec/launch/linuxChains';
import type { ExecStage } from '../exec/types';
import type { ProxyWiring } from '../network/sandboxWiring';
import type { Policy } from '../policy';

/**
 * Everything a sandbox needs to know to confine ONE stage of a command. Paths are absolute REAL paths (symlinks
 * already resolved by the caller), because both bubblewrap and Seatbelt match mount points / rules by the real
 * path and a symlinked workspace would otherwise be exposed under one name and missed under the other.
 */
export interface SandboxContext {
  /** Real path of the workspace root: the only place a command may write. */
  readonly root: string;
  /** Real working directory of the stage, inside `root`. */
  readonly cwd: string;
  /** `readOnly` makes the workspace itself read-only (a fact of the kernel, not a table of flags). */
  readonly mode: Policy['mode'];
  readonly network: 'allow' | 'deny';
  /**
   * With network `deny`: the egress proxy of this call (src/core/network), the only way out of the sandbox. Its
   * socket is bound in and the bridge runs in front of the command (sandboxWiring.ts).
   */
  readonly proxy?: ProxyWiring;
  /** The user's home directory, hidden except for the workspace. Defaults to os.homedir(). */
  readonly home?: string;
  /**
   * The commands' private HOME (exec/developer/privateHome.ts): bound read-write, the one writable place besides
   * the workspace that outlives a call (package managers' caches).
   */
  readonly privateHome?: string;
  /** Toolchain folders inside the home directory (exec/developer/toolchains.ts): bound read-only. */
  readonly toolchainPaths?: readonly string[];
  /** Extra paths made invisible (empty directory / empty file) inside the sandbox. */
  readonly hiddenPaths?: readonly string[];
  /** Extra paths made read-only inside the sandbox (typically below the workspace). */
  readonly readOnlyPaths?: readonly string[];
  /**
   * When false (default) every `.git` below the root (the root's, nested repositories', submodules' gitdirs) is
   * read-only: no hook, config or ref can be planted by a command.
   */
  readonly allowGitWrites?: boolean;
  /** Protected globs relative to the root (`.env`, `secrets/**`): what they match is mounted read-only. */
  readonly protectedPaths?: readonly string[];
  /** Per-process resource limits; missing fields take DEFAULT_SANDBOX_LIMITS. */
  readonly limits?: SandboxLimits;
  /**
   * Preview: the command sees this copy-on-write view where the workspace is, made by a mount step in front of the
   * sandbox (src/core/effects/overlay.ts); the workspace itself is not written.
   */
  readonly overlay?: { readonly tools: OverlayTools; readonly view: OverlayView };
}

export interface SandboxLimits {
  /** RLIMIT_NPROC: processes (threads count too) of the user inside the sandbox's user namespace. */
  readonly processes?: number;
  /** RLIMIT_FSIZE: largest file a process may write, in bytes. */
  readonly fileSizeBytes?: number;
  /** RLIMIT_CPU: CPU seconds per process (SIGXCPU, then SIGKILL). */
  readonly cpuSeconds?: number;
}

export type SandboxKind = 'bwrap' | 'seatbelt' | 'none';

export interface Sandbox {
  readonly kind: SandboxKind;
  /**
   * Returns the stage to spawn instead of `stage`: the sandbox program with the original command at the end of
   * its argv. Pure except for reading which of the configured paths exist. Throws a ToolError when the context
   * cannot be confined (relative paths, cwd outside the root, the root being `/`).
   */
  wrap(stage: ExecStage, ctx: SandboxContext): ExecStage;
}

export interface IsolationProbe {
  readonly kind: SandboxKind;
  /** True when the sandbox was really started once here (not merely found on disk). */
  readonly available: boolean;
  /** Why not, in words a person can act on (includes the sandbox program's own stderr). */
  readonly reason?: string;
  readonly version?: string;
  /** Absolute path of the sandbox program. */
  readonly path?: string;
  /** bubblewrap: absolute path of prlimit (util-linux), used for resource limits. Missing: no limits possible. */
  readonly prlimitPath?: string;
  /** bubblewrap: the sandbox's PID 1 and the command's loss of capabilities (src/core/exec/launch/linuxChains.ts). */
  readonly tools?: LinuxTools;
  /** bubblewrap: whether `--disable-userns` works here (bubblewrap >= 0.8). */
  readonly disableUserns?: boolean;
  /** Things the sandbox does NOT guarantee on this machine (e.g. running as root). Shown with the status. */
  readonly limitations?: readonly string[];
}
