import { workspaceReadOnly } from '../modes';
import * as os from 'node:os';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { isInside } from '../paths/confine';
import type { ProxyWiring } from '../network/sandboxWiring';
import type { SandboxContext, SandboxLimits } from './types';

/**
 * Checks a SandboxContext before any sandbox argv or profile is built from it, and fills the defaults. Both
 * wrappers share it so that bubblewrap and Seatbelt refuse exactly the same contexts.
 */

/** Generous enough for builds and test runners, small enough that a fork bomb stops long before the machine. */
export const DEFAULT_SANDBOX_LIMITS: Required<SandboxLimits> = Object.freeze({
  processes: 1024,
  fileSizeBytes: 1024 * 1024 * 1024,
  cpuSeconds: 600,
});

/**
 * Credential stores below HOME. They are already hidden with the rest of HOME; these entries matter only when the
 * workspace CONTAINS the home directory (workspace = HOME), where hiding HOME would hide nothing. Last: the CLI's
 * V8 code cache (src/cli/start.ts, COMPILE_CACHE_DIR): code the server itself runs at its next start.
 */
export const SENSITIVE_HOME_ENTRIES: readonly string[] = Object.freeze([
  '.ssh', '.aws', '.azure', '.gnupg', '.config/gh', '.config/gcloud', '.docker', '.kube', '.netrc',
  '.git-credentials', '.npmrc', '.pypirc', '.cargo/credentials.toml', '.local/share/keyrings',
  '.cache/guarded-shell',
]);

/**
 * What of the commands' private HOME lasts from one call to the next inside the sandbox: package managers' caches
 * (npm, pip/uv/go-build and the rest of ~/.cache, yarn, pnpm, cargo's registry, Go's modules, Maven, Gradle, bun,
 * NuGet). The HOME around them is a fresh empty folder for every call, so a configuration file a command writes
 * there (~/.curlrc, ~/.wgetrc, ~/.gitconfig, ~/.ssh/config, ~/.npmrc …) is gone for the next one: nothing planted
 * in one call changes what a later, perhaps unasked, command does. Caches are data that later runs trust, as the
 * workspace's node_modules or .venv are.
 */
export const PRIVATE_HOME_CACHES: readonly string[] = Object.freeze([
  '.cache', '.npm', '.yarn/berry/cache', '.local/share/pnpm/store', '.cargo/registry', '.cargo/git', 'go/pkg/mod',
  '.m2/repository', '.gradle/caches', '.gradle/wrapper', '.bun/install/cache', '.nuget/packages',
]);

export interface CheckedContext {
  readonly root: string;
  readonly cwd: string;
  /** Undefined when there is no home worth hiding (`/`, or not absolute). */
  readonly home: string | undefined;
  readonly privateHome: string | undefined;
  readonly toolchainPaths: readonly string[];
  readonly workspaceReadOnly: boolean;
  readonly network: 'allow' | 'deny';
  readonly proxy: ProxyWiring | undefined;
  readonly allowGitWrites: boolean;
  readonly hiddenPaths: readonly string[];
  readonly readOnlyPaths: readonly string[];
  readonly protectedPaths: readonly string[];
  readonly limits: Required<SandboxLimits>;
}

export function checkContext(ctx: SandboxContext): CheckedContext {
  const root = absolute(ctx.root, 'workspace root');
  if (root === path.parse(root).root) {
    // Binding "/" read-write would undo the whole sandbox: refuse rather than silently run unconfined.
    throw new ToolError('ISOLATION_UNAVAILABLE', `The workspace root "${root}" is the file-system root; it cannot be sandboxed.`, 'isolation.root-is-slash');
  }
  const cwd = absolute(ctx.cwd, 'working directory');
  if (!isInside(root, cwd)) {
    throw new ToolError('PATH_OUTSIDE_ROOT', `The working directory "${cwd}" is outside the workspace (${root}).`, 'isolation.cwd-outside-root');
  }
  if (ctx.network !== 'allow' && ctx.network !== 'deny') {
    throw new ToolError('BAD_REQUEST', `Unknown network setting "${String(ctx.network)}" (expected allow or deny).`, 'isolation.bad-network');
  }
  if (ctx.proxy && ctx.network !== 'deny') {
    // The proxy is the only way out of a sandbox WITHOUT a network; beside the host's network it would be a bypass.
    throw new ToolError('BAD_REQUEST', 'The egress proxy is wired only into a sandbox without a network of its own.', 'isolation.bad-network');
  }
  if (ctx.proxy) {
    absolute(ctx.proxy.socket, 'proxy socket');
    absolute(ctx.proxy.perl, 'proxy bridge program');
  }
  const homeText = ctx.home ?? os.homedir();
  const home = homeText && path.isAbsolute(homeText) && !homeText.includes('\0') && path.resolve(homeText) !== path.parse(homeText).root
    ? path.resolve(homeText)
    : undefined;
  // The commands' own HOME is bound read-write and the toolchain folders read-only ON TOP of the hidden home: one
  // that held the workspace, the home folder or the whole system would undo those mounts, so such a context is
  // refused, never confined less.
  const privateHome = ctx.privateHome === undefined ? undefined : absolute(ctx.privateHome, "commands' HOME");
  if (privateHome !== undefined && (isInside(privateHome, root) || isInside(root, privateHome) || (home !== undefined && isInside(privateHome, home)))) {
    throw new ToolError('ISOLATION_UNAVAILABLE', `The commands' HOME "${privateHome}" overlaps the workspace or holds the home folder; it cannot be given to sandboxed commands.`, 'isolation.private-home');
  }
  const toolchainPaths = (ctx.toolchainPaths ?? []).map((p) => absolute(p, 'toolchain folder'));
  for (const p of toolchainPaths) {
    if (p === path.parse(p).root || (home !== undefined && isInside(p, home))) {
      throw new ToolError('ISOLATION_UNAVAILABLE', `The toolchain folder "${p}" would show the whole home folder or system to sandboxed commands.`, 'isolation.toolchain-path');
    }
  }
  return {
    root,
    cwd,
    home,
    privateHome,
    toolchainPaths,
    workspaceReadOnly: workspaceReadOnly(ctx.mode),
    network: ctx.network,
    proxy: ctx.proxy,
    allowGitWrites: ctx.allowGitWrites === true,
    hiddenPaths: (ctx.hiddenPaths ?? []).map((p) => absolute(p, 'hidden path')),
    readOnlyPaths: (ctx.readOnlyPaths ?? []).map((p) => absolute(p, 'read-only path')),
    protectedPaths: [...(ctx.protectedPaths ?? [])],
    limits: {
      processes: limit(ctx.limits?.processes, DEFAULT_SANDBOX_LIMITS.processes, 'processes'),
      fileSizeBytes: limit(ctx.limits?.fileSizeBytes, DEFAULT_SANDBOX_LIMITS.fileSizeBytes, 'fileSizeBytes'),
      cpuSeconds: limit(ctx.limits?.cpuSeconds, DEFAULT_SANDBOX_LIMITS.cpuSeconds, 'cpuSeconds'),
    },
  };
}

function absolute(p: string, what: string): string {
  if (typeof p !== 'string' || p.length === 0 || p.includes('\0') || p.includes('\n')) {
    throw new ToolError('BAD_REQUEST', `The sandbox ${what} is empty or contains a NUL byte or a line break.`, 'isolation.bad-path');
  }
  if (!path.isAbsolute(p)) {
    throw new ToolError('BAD_REQUEST', `The sandbox ${what} "${p}" is not an absolute path.`, 'isolation.relative-path');
  }
  return path.resolve(p);
}

function limit(v: number | undefined, fallback: number, name: string): number {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < 1) {
    throw new ToolError('BAD_REQUEST', `The sandbox limit ${name} must be a positive whole number (got ${String(v)}).`, 'isolation.bad-limit');
  }
  return v;
}
