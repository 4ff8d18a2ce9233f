import * as path from 'node:path';
import { DEFAULT_ALLOW_COMMANDS, ISOLATIONS, MODES, parsePolicy, type Isolation, type Mode, type Policy } from '../policy';
import type { SettingsLayer } from './settings';

/**
 * VS Code settings (`guardedShell.*`) → one SettingsLayer, PURE so it is unit-tested without VS Code.
 *
 * The rule that matters: a workspace (its `.vscode/settings.json`, a `.code-workspace` file, a folder's settings)
 * comes with the repository a person cloned, so it must never be able to loosen the policy — no auto-approval,
 * no `isolation: none`, no extra commands. Loosening values are taken from USER (global) scope only; workspace
 * and folder values are applied only when they make the policy stricter, and every value dropped is reported.
 */

/** What `WorkspaceConfiguration.inspect(key)` returns, reduced to the scopes that matter here. */
export interface InspectedSetting {
  readonly defaultValue?: unknown;
  readonly globalValue?: unknown;
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
}

/** Setting names below `guardedShell.` that this module reads. */
export const VSCODE_SETTING_KEYS = [
  'mode', 'isolation', 'network', 'timeout.default', 'timeout.max', 'concurrency', 'outputLimitBytes',
  'allowCommands', 'allowPatterns', 'autoApprove', 'disableTools', 'protectedPaths', 'childEnvAllowlist',
  'auditLog', 'approvalTimeout', 'sandbox.hiddenPaths', 'sandbox.readOnlyPaths', 'sandbox.allowGitWrites',
] as const;
export type VscodeSettingKey = (typeof VSCODE_SETTING_KEYS)[number];

export type InspectedSettings = Partial<Record<VscodeSettingKey, InspectedSetting>>;

export type SettingScope = 'user' | 'workspace' | 'workspaceFolder';

export interface IgnoredSetting {
  /** Full setting name, e.g. `guardedShell.mode`. */
  readonly setting: string;
  readonly scope: SettingScope;
  readonly value: unknown;
  readonly reason: string;
}

export interface VscodeSettingsResult {
  readonly layer: SettingsLayer;
  readonly ignored: readonly IgnoredSetting[];
}

/** In VS Code the default mode is `confirm` (the CLI's default is `auto`: there a person configured it on purpose). */
export const VSCODE_DEFAULT_MODE: Mode = 'confirm';

/** The core's defaults for every limit, so "lower than the default" can be decided when the user set nothing. */
const CORE: Policy = parsePolicy({ root: path.sep });

// Strictness ranks: a lower number is stricter. A workspace value is applied only when it ranks lower.
const MODE_RANK: Record<Mode, number> = { readOnly: 0, confirm: 1, confirmChanges: 2, auto: 3 };
const ISOLATION_RANK: Record<Isolation, number> = { required: 0, auto: 1, none: 2 };
const NETWORK_RANK: Record<'allow' | 'deny', number> = { deny: 0, allow: 1 };

type NumberKey = 'timeout.default' | 'timeout.max' | 'concurrency' | 'outputLimitBytes' | 'approvalTimeout';
const NUMBERS: Record<NumberKey, { field: keyof SettingsLayer & keyof Policy; integer: boolean; max?: number }> = {
  'timeout.default': { field: 'defaultTimeoutSeconds', integer: false },
  'timeout.max': { field: 'maxTimeoutSeconds', integer: false },
  concurrency: { field: 'concurrency', integer: true, max: 64 },
  outputLimitBytes: { field: 'outputLimitBytes', integer: true },
  approvalTimeout: { field: 'approvalTimeoutSeconds', integer: false },
};

const PREFIX = 'guardedShell.';

export function settingsFromVscode(inspected: InspectedSettings): VscodeSettingsResult {
  const ignored: IgnoredSetting[] = [];
  const layer: SettingsLayer = {};
  const ignore = (key: VscodeSettingKey, scope: SettingScope, value: unknown, reason: string) =>
    ignored.push({ setting: PREFIX + key, scope, value, reason });

  /**
   * A validator reads one raw value: it returns the usable value, or undefined after reporting why not. Lists are
   * cleaned element by element (a bad entry is dropped, the rest kept): falling back to the default instead
   * could allow MORE than the person asked for.
   */
  type Read<T> = (raw: unknown, scope: SettingScope) => T | undefined;
  const single = <T>(key: VscodeSettingKey, check: (v: unknown) => string | undefined): Read<T> => (raw, scope) => {
    const problem = check(raw);
    if (!problem) return raw as T;
    ignore(key, scope, raw, scope === 'user' ? `${problem}; the default applies` : problem);
    return undefined;
  };
  const list = (key: VscodeSettingKey, field: keyof Policy): Read<string[]> => (raw, scope) => {
    if (!Array.isArray(raw)) {
      ignore(key, scope, raw, 'must be a list of strings');
      return undefined;
    }
    return raw.filter((item) => {
      const problem = typeof item !== 'string' ? 'must be a string' : elementProblem(item, field);
      if (problem) ignore(key, scope, item, `entry dropped: ${problem}`);
      return !problem;
    }) as string[];
  };
  const user = <T>(key: VscodeSettingKey, read: Read<T>): T | undefined => {
    const v = inspected[key]?.globalValue;
    return v === undefined || v === null ? undefined : read(v, 'user');
  };
  /** Usable workspace and folder values, in the order they apply (workspace, then folder). */
  const workspace = <T>(key: VscodeSettingKey, read: Read<T>): Array<{ scope: SettingScope; value: T }> => {
    const out: Array<{ scope: SettingScope; value: T }> = [];
    const s = inspected[key];
    for (const [scope, v] of [['workspace', s?.workspaceValue], ['workspaceFolder', s?.workspaceFolderValue]] as const) {
      if (v === undefined || v === null) continue;
      // In a single-folder window VS Code reports the same .vscode/settings.json value in both scopes: use it once.
      if (scope === 'workspaceFolder' && JSON.stringify(v) === JSON.stringify(s?.workspaceValue)) continue;
      const value = read(v, scope);
      if (value !== undefined) out.push({ scope, value });
    }
    return out;
  };

  // Ranked choices: mode, isolation, network.
  const ranked = <T extends string>(key: VscodeSettingKey, values: readonly T[], rank: Record<T, number>, start: T): T => {
    const read = single<T>(key, (v) => (typeof v === 'string' && (values as readonly string[]).includes(v) ? undefined : `must be one of ${values.join(', ')}`));
    let current = user(key, read) ?? start;
    for (const { scope, value } of workspace(key, read)) {
      if (rank[value] < rank[current]) current = value;
      else if (rank[value] > rank[current]) ignore(key, scope, value, `would loosen the policy (user setting: ${current}); a workspace may only make it stricter`);
    }
    return current;
  };
  layer.mode = ranked('mode', MODES, MODE_RANK, VSCODE_DEFAULT_MODE);
  layer.isolation = ranked('isolation', ISOLATIONS, ISOLATION_RANK, CORE.isolation);
  layer.network = ranked('network', ['allow', 'deny'] as const, NETWORK_RANK, CORE.network);

  // Limits: a workspace may only lower them.
  for (const [key, spec] of Object.entries(NUMBERS) as Array<[NumberKey, (typeof NUMBERS)[NumberKey]]>) {
    const read = single<number>(key, (v) => numberProblem(v, spec.integer, spec.max));
    const fromUser = user(key, read);
    let current = fromUser ?? (CORE[spec.field] as number);
    let set = fromUser !== undefined;
    for (const { scope, value } of workspace(key, read)) {
      if (value < current) {
        current = value;
        set = true;
      } else if (value > current) ignore(key, scope, value, `would raise the limit above the user's ${current}; a workspace may only lower it`);
    }
    if (set) (layer as Record<string, unknown>)[spec.field] = current;
  }
  // A lowered maximum pulls the default down with it, so the pair stays valid (default <= max).
  const max = layer.maxTimeoutSeconds ?? CORE.maxTimeoutSeconds;
  if ((layer.defaultTimeoutSeconds ?? CORE.defaultTimeoutSeconds) > max) {
    if (layer.defaultTimeoutSeconds !== undefined) {
      ignore('timeout.default', 'user', layer.defaultTimeoutSeconds, `is larger than the maximum timeout (${max} s); the maximum applies`);
    }
    layer.defaultTimeoutSeconds = max;
  }

  // The allowlist: names and patterns from the user only; a workspace may narrow it to a subset.
  const fromUserCommands = user('allowCommands', list('allowCommands', 'allowCommands'));
  const fromUserPatterns = user('allowPatterns', list('allowPatterns', 'allowPatterns'));
  const userNoAllowlist = fromUserCommands === undefined && fromUserPatterns === undefined;
  let commands: string[] = userNoAllowlist ? [...DEFAULT_ALLOW_COMMANDS] : (fromUserCommands ?? []);
  let patterns: string[] = fromUserPatterns ?? [];
  const narrowed = workspace('allowCommands', list('allowCommands', 'allowCommands'));
  for (const { scope, value } of narrowed) {
    const allowedNow = (name: string) => commands.includes(name) || patterns.some((p) => new RegExp(`^(?:${p})$`).test(name));
    const kept = value.filter(allowedNow);
    const dropped = value.filter((n) => !allowedNow(n));
    if (dropped.length) ignore('allowCommands', scope, dropped, `not allowed by the user's allowlist (a workspace may only narrow it)`);
    commands = [...new Set(kept)];
    patterns = []; // the workspace named its commands: nothing else stays allowed
  }
  if (!userNoAllowlist || narrowed.length) {
    layer.allowCommands = commands;
    layer.allowPatterns = patterns;
  }
  for (const { scope, value } of workspace('allowPatterns', (raw) => raw)) {
    ignore('allowPatterns', scope, value, 'allow patterns widen the allowlist: read from user settings only');
  }

  // Lists that only ever widen what runs: user scope only.
  const userOnly = (key: 'autoApprove' | 'childEnvAllowlist', field: 'autoApprove' | 'childEnvAllowlist', what: string) => {
    const v = user(key, list(key, field));
    if (v !== undefined) layer[field] = [...v];
    for (const { scope, value } of workspace(key, (raw) => raw)) ignore(key, scope, value, `${what}: read from user settings only`);
  };
  userOnly('autoApprove', 'autoApprove', 'commands that run without asking');
  userOnly('childEnvAllowlist', 'childEnvAllowlist', 'environment passed to commands');

  // Lists that only ever tighten: user and workspace values are combined.
  for (const [key, field] of [
    ['disableTools', 'disableTools'],
    ['protectedPaths', 'protectedPaths'],
    ['sandbox.hiddenPaths', 'sandboxHiddenPaths'],
    ['sandbox.readOnlyPaths', 'sandboxReadOnlyPaths'],
  ] as const) {
    const read = list(key, field);
    const all = [...(user(key, read) ?? []), ...workspace(key, read).flatMap((w) => w.value)];
    if (all.length) layer[field] = [...new Set(all)];
  }

  // Git writes inside the sandbox loosen it: user scope only (a workspace may still keep them off).
  const gitWrites = user('sandbox.allowGitWrites', single<boolean>('sandbox.allowGitWrites', (v) => (typeof v === 'boolean' ? undefined : 'must be true or false')));
  if (gitWrites !== undefined) layer.allowGitWrites = gitWrites;
  for (const { scope, value } of workspace('sandbox.allowGitWrites', (raw) => raw)) {
    if (value === true && gitWrites !== true) ignore('sandbox.allowGitWrites', scope, value, 'lets commands write .git (hooks run code later): read from user settings only');
    else if (value === false) layer.allowGitWrites = false;
  }

  // The audit log path: a workspace choosing where the server writes is a write outside the policy.
  const auditLog = user(
    'auditLog',
    single<string>('auditLog', (v) => (typeof v !== 'string' ? 'must be a string' : v === '' || path.isAbsolute(v) ? undefined : 'must be an absolute path')),
  );
  if (auditLog) layer.auditLog = auditLog;
  for (const { scope, value } of workspace('auditLog', (raw) => raw)) {
    if (value !== '') ignore('auditLog', scope, value, 'where the server writes its audit log: read from user settings only');
  }

  return { layer, ignored };
}

/** One line per ignored value, for the log. */
export function describeIgnored(i: IgnoredSetting): string {
  return `ignored ${i.scope} setting ${i.setting} = ${JSON.stringify(i.value)}: ${i.reason}`;
}

function numberProblem(v: unknown, integer: boolean, max?: number): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a number';
  if (v <= 0) return 'must be larger than 0';
  if (integer && !Number.isInteger(v)) return 'must be a whole number';
  if (max !== undefined && v > max) return `must be at most ${max}`;
  return undefined;
}

/** Checks one list entry against the policy schema itself, so the rules (command name shape, regex validity) live in one place. */
function elementProblem(item: string, field: keyof Policy): string | undefined {
  try {
    parsePolicy({ root: path.sep, [field]: [item] });
    return undefined;
  } catch (e) {
    return (e as Error).message.replace(/^[\w.]+: /, '');
  }
}
