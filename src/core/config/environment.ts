import { PolicyError } from '../policy';
import type { SettingsLayer } from './settings';

/**
 * mcp-shell-server's environment variables, read exactly as it documents them, plus GUARDED_SHELL_TOKEN (a token
 * in the environment is not visible in `ps` the way `--auth TOKEN` is).
 */
export const ENVIRONMENT_VARIABLES = [
  'ALLOW_COMMANDS', 'ALLOWED_COMMANDS', 'ALLOW_PATTERNS', 'MCP_SHELL_DEFAULT_TIMEOUT_SECONDS', 'MCP_SHELL_MAX_TIMEOUT_SECONDS',
  'MCP_SHELL_OUTPUT_LIMIT_BYTES', 'MCP_SHELL_CHILD_ENV_ALLOWLIST', 'MCP_SHELL_SAFE_PATH', 'GUARDED_SHELL_TOKEN',
] as const;

export function settingsFromEnvironment(env: NodeJS.ProcessEnv): SettingsLayer {
  const layer: SettingsLayer = {};
  // A variable that is SET (even to "") is an allowlist given: empty means nothing runs, as in mcp-shell-server.
  // Only when neither is set does the default allowlist apply.
  if (env.ALLOW_COMMANDS !== undefined || env.ALLOWED_COMMANDS !== undefined) {
    layer.allowCommands = [...new Set([...list(env.ALLOW_COMMANDS), ...list(env.ALLOWED_COMMANDS)])];
  }
  const patterns = list(env.ALLOW_PATTERNS);
  if (patterns.length) layer.allowPatterns = patterns;
  const def = number(env, 'MCP_SHELL_DEFAULT_TIMEOUT_SECONDS');
  if (def !== undefined) layer.defaultTimeoutSeconds = def;
  const max = number(env, 'MCP_SHELL_MAX_TIMEOUT_SECONDS');
  if (max !== undefined) layer.maxTimeoutSeconds = max;
  const limit = number(env, 'MCP_SHELL_OUTPUT_LIMIT_BYTES', true);
  if (limit !== undefined) layer.outputLimitBytes = limit;
  const envAllow = list(env.MCP_SHELL_CHILD_ENV_ALLOWLIST);
  if (envAllow.length) layer.childEnvAllowlist = envAllow;
  // A blank MCP_SHELL_SAFE_PATH means "use the default"; a non-blank one is used exactly as configured (untrimmed).
  const safe = env.MCP_SHELL_SAFE_PATH;
  if (safe !== undefined && safe.trim() !== '') layer.safePath = safe;
  if (env.GUARDED_SHELL_TOKEN !== undefined && env.GUARDED_SHELL_TOKEN !== '') layer.auth = env.GUARDED_SHELL_TOKEN;
  return layer;
}

/** Comma-separated, spaces around items ignored, empty items dropped ("ls ,echo, cat"). */
export function list(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function number(env: NodeJS.ProcessEnv, name: string, integer = false): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw.trim());
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new PolicyError(`${name}: expected a positive ${integer ? 'whole ' : ''}number, got "${raw}"`);
  }
  return n;
}
