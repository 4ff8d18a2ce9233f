import { ToolError } from '../errors';

/**
 * The minimal child environment, exactly as mcp-shell-server documents it ("子プロセスの環境"): a child gets
 * PATH (chosen by a fixed precedence), the Windows launch keys on Windows, and the names the operator put on
 * the allowlist — nothing else of the server's environment, so tokens and credentials are not inherited.
 */

/** PATH for children on POSIX when neither a pass-through PATH nor a non-blank safe PATH is configured. */
export const DEFAULT_SAFE_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

/**
 * Windows fallback when the server itself has no PATH. mcp-shell-server uses Python's `os.defpath` here
 * (`.;C:\bin`); we leave out `.` on purpose: the current directory is the workspace, which the agent writes.
 */
export const WINDOWS_DEFAULT_PATH = 'C:\\Windows\\system32;C:\\Windows';

/** Keys Windows needs to start a process at all; passed on win32 whenever the parent has them. */
export const WINDOWS_LAUNCH_KEYS: readonly string[] = Object.freeze(['COMSPEC', 'PATHEXT', 'SYSTEMROOT', 'WINDIR']);

export interface ChildEnvOptions {
  readonly parentEnv: NodeJS.ProcessEnv;
  /** MCP_SHELL_CHILD_ENV_ALLOWLIST: names inherited from the parent and accepted as per-call overrides. */
  readonly allowlist: readonly string[];
  /** MCP_SHELL_SAFE_PATH, as configured (not trimmed). */
  readonly safePath?: string;
  /** Per-call values; every name must be on the allowlist. */
  readonly overrides?: Readonly<Record<string, string>>;
  readonly platform?: NodeJS.Platform;
}

export function buildChildEnv(opts: ChildEnvOptions): Record<string, string> {
  const platform = opts.platform ?? process.platform;
  const windows = platform === 'win32';
  const allowed = new Set(opts.allowlist.filter((n) => n.length > 0));
  const overrides = validateOverrides(opts.overrides ?? {}, allowed);
  // A Map (then Object.fromEntries) so that a name like `__proto__` is stored as data, never as a prototype.
  const env = new Map<string, string>();

  if (windows) {
    for (const key of WINDOWS_LAUNCH_KEYS) {
      const value = lookup(opts.parentEnv, key, true);
      if (value !== undefined) env.set(key, value);
    }
  }
  for (const name of allowed) {
    if (name === 'PATH') continue; // chosen below, by its own precedence
    const value = lookup(opts.parentEnv, name, windows);
    if (value !== undefined) env.set(name, value);
  }
  for (const [name, value] of overrides) {
    if (name !== 'PATH') env.set(name, value);
  }

  const path = choosePath(opts, allowed, overrides, windows);
  if (path !== undefined) env.set('PATH', path);
  return Object.fromEntries(env);
}

function choosePath(
  opts: ChildEnvOptions,
  allowed: ReadonlySet<string>,
  overrides: ReadonlyMap<string, string>,
  windows: boolean,
): string | undefined {
  // 1. The operator passed PATH through explicitly: the per-call value, else the parent's, as-is (even empty).
  if (allowed.has('PATH')) {
    const passed = overrides.has('PATH') ? overrides.get('PATH') : lookup(opts.parentEnv, 'PATH', windows);
    // A parent without any PATH has nothing to pass through; fall on to the safe PATH rather than none.
    if (passed !== undefined) return passed;
  }
  // 2. A configured safe PATH that is not blank, untrimmed.
  if (opts.safePath !== undefined && opts.safePath.trim() !== '') return opts.safePath;
  // 3. Platform default: POSIX's fixed list; Windows keeps the parent's PATH (its native search ignores the
  //    child's PATH anyway, so this is not a security boundary there).
  if (windows) return lookup(opts.parentEnv, 'PATH', true) ?? WINDOWS_DEFAULT_PATH;
  return DEFAULT_SAFE_PATH;
}

function validateOverrides(overrides: Readonly<Record<string, string>>, allowed: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(overrides)) {
    if (name === '' || name.includes('=') || name.includes('\0')) {
      throw new ToolError('BAD_REQUEST', `invalid environment variable name ${JSON.stringify(name)}`, 'env.bad-name');
    }
    if (!allowed.has(name)) {
      throw new ToolError(
        'BAD_REQUEST',
        `environment variable ${name} may not be set: it is not in the child environment allowlist (MCP_SHELL_CHILD_ENV_ALLOWLIST)`,
        'env.not-allowed',
      );
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new ToolError('BAD_REQUEST', `environment variable ${name} must be a string without NUL bytes`, 'env.bad-value');
    }
    out.set(name, value);
  }
  return out;
}

/** Windows environment names are case-insensitive (`Path` is PATH); a plain object does not know that. */
function lookup(env: NodeJS.ProcessEnv, name: string, caseInsensitive: boolean): string | undefined {
  if (Object.prototype.hasOwnProperty.call(env, name)) return env[name];
  if (!caseInsensitive) return undefined;
  const upper = name.toUpperCase();
  for (const key of Object.keys(env)) {
    if (key.toUpperCase() === upper) return env[key];
  }
  return undefined;
}
