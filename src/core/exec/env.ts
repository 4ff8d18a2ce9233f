import { ToolError } from '../errors';
import type { DeveloperContext } from './developer/context';
import { gitIdentityEnv } from './developer/gitIdentity';

/**
 * THE child environment (decide.ts looks programs up on it, run.ts spawns with it). Of the server's environment a
 * child inherits exactly what mcp-shell-server documents ("子プロセスの環境"): PATH (chosen by a fixed
 * precedence), the Windows launch keys on Windows, and the names the operator put on the allowlist — nothing
 * else, so tokens and credentials are not inherited. On top, fixed values the server sets, as DATA:
 *  - no editor, pager or password prompt (NON_INTERACTIVE_ENV);
 *  - a terminal description that works and colours nothing (TERMINAL_ENV);
 *  - a developer's context (developer/context.ts): the commands' private HOME, the toolchain folders' roots, the
 *    person's git identity as GIT_AUTHOR_* / GIT_COMMITTER_*;
 *  - without a network (a sandbox that gives commands none): no retries by package managers (OFFLINE_ENV).
 * A name the operator passes through (and the parent has), or a per-call value for it, wins over all of these.
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

/**
 * Nobody is at a terminal, and an editor is a shell escape: git and friends must never start an editor, a pager
 * or a password prompt.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = Object.freeze({
  GIT_EDITOR: 'false',
  GIT_SEQUENCE_EDITOR: 'false',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'false',
  SSH_ASKPASS: 'false',
});

/**
 * What a program learns about "its terminal" (there is none: output goes to a pipe and then to a model).
 *  - TERM=dumb: a terminal type every terminfo has (`tput cols` works; bats' suite and scripts that call tput
 *    fail on an unset TERM), which has no colours and no cursor movement, so scripts that ask terminfo emit no
 *    escape codes; NO_COLOR=1 asks the programs that follow no-color.org to stay plain too. Escape codes are
 *    noise the model pays for and may misread.
 *  - LANG=C.UTF-8 (macOS: en_US.UTF-8, which it has and C.UTF-8 it may not): UTF-8 file names and text pass
 *    through undamaged, and messages stay untranslated English — what the model reads best, and what the
 *    sandbox hints recognise ("Read-only file system", "command not found"). The server's own locale is not
 *    inherited: VS Code's may be any language.
 *  - COLUMNS=100: wide enough that messages rarely wrap, narrow enough that the ruler lines test runners draw to
 *    the terminal's width (pytest's ==== lines) stay short.
 */
export function terminalEnv(platform: NodeJS.Platform): Record<string, string> {
  return {
    TERM: 'dumb',
    NO_COLOR: '1',
    COLUMNS: '100',
    ...(platform === 'darwin' ? { LANG: 'en_US.UTF-8' } : platform === 'win32' ? {} : { LANG: 'C.UTF-8' }),
  };
}

/**
 * A command in a sandbox without a network cannot reach a registry, however often it tries: npm retries a failed
 * lookup with back-off for over two minutes (the call times out, saying nothing about the network), pip for about
 * ten seconds. With no retries they fail at once with their own "getaddrinfo EAI_AGAIN" / "Temporary failure in
 * name resolution", which the sandbox hint (commands/sandboxHint.ts) recognises and explains, naming the network
 * setting. A cached package still installs. npm's variable is read by pnpm as well.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = Object.freeze({
  npm_config_fetch_retries: '0',
  PIP_RETRIES: '0',
});

export interface ChildEnvOptions {
  readonly parentEnv: NodeJS.ProcessEnv;
  /** MCP_SHELL_CHILD_ENV_ALLOWLIST: names inherited from the parent and accepted as per-call overrides. */
  readonly allowlist: readonly string[];
  /** MCP_SHELL_SAFE_PATH, as configured (not trimmed). */
  readonly safePath?: string;
  /** Per-call values; every name must be on the allowlist. */
  readonly overrides?: Readonly<Record<string, string>>;
  readonly platform?: NodeJS.Platform;
  /** HOME, the toolchain folders and their roots, the git identity (absent: none of them). */
  readonly developer?: DeveloperContext;
  /** The command will have no network (a sandbox that gives it none): OFFLINE_ENV. */
  readonly offline?: boolean;
}

export function buildChildEnv(opts: ChildEnvOptions): Record<string, string> {
  const platform = opts.platform ?? process.platform;
  const windows = platform === 'win32';
  const allowed = new Set(opts.allowlist.filter((n) => n.length > 0));
  const overrides = validateOverrides(opts.overrides ?? {}, allowed);
  // A Map (then Object.fromEntries) so that a name like `__proto__` is stored as data, never as a prototype.
  const env = new Map<string, string>();
  const set = (values: Readonly<Record<string, string>>) => {
    for (const [name, value] of Object.entries(values)) env.set(name, value);
  };

  // The server's own values first: what the operator passes through below replaces them.
  set(NON_INTERACTIVE_ENV);
  set(terminalEnv(platform));
  const dev = opts.developer;
  if (dev?.home !== undefined) env.set('HOME', dev.home);
  if (dev?.toolchain) set(dev.toolchain.env);
  if (dev?.identity) set(gitIdentityEnv(dev.identity));
  if (opts.offline) set(OFFLINE_ENV);

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
  // 3. Platform default: POSIX's fixed list, with the toolchain folders of the server's PATH merged in (when that
  //    setting is on); Windows keeps the parent's PATH (its native search ignores the child's PATH anyway, so this
  //    is not a security boundary there).
  if (windows) return lookup(opts.parentEnv, 'PATH', true) ?? WINDOWS_DEFAULT_PATH;
  return opts.developer?.toolchain?.path ?? DEFAULT_SAFE_PATH;
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
