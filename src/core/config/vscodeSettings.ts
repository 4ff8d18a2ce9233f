import { z } from 'zod';
import { tightenMode, tightenNetwork, type ModeSetting, type Network } from '../modes';
import { narrowDomains } from '../network/domains';
import { DOMAIN_PRESETS, type DomainPreset } from '../network/presets';
import { SETTING_IDS, SETTINGS, type SettingId, type SettingsLayer, type VscodeSetting } from './registry';
import { DEFAULT_ALLOW_COMMANDS, stripPatternAnchors } from './values';

/**
 * VS Code settings (`guardedShell.*`) → one SettingsLayer, PURE so it is unit-tested without VS Code, and DERIVED
 * from the settings registry: which key, which scope rule, which default.
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

type VscodeId = { [K in SettingId]: (typeof SETTINGS)[K] extends { vscode: unknown } ? K : never }[SettingId];
const vscodeOf = (id: SettingId): VscodeSetting | undefined => (SETTINGS[id] as { vscode?: VscodeSetting }).vscode;

/** The settings VS Code can set, by id; the extension pushes exactly these, and the server accepts only these. */
export const VSCODE_SETTING_IDS = SETTING_IDS.filter((id) => vscodeOf(id) !== undefined) as VscodeId[];
/** Setting names below `guardedShell.` that this module reads. */
export const VSCODE_SETTING_KEYS: readonly string[] = VSCODE_SETTING_IDS.map((id) => vscodeOf(id)!.key);

export type InspectedSettings = Partial<Record<string, InspectedSetting>>;
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

export const PREFIX = 'guardedShell.';

/** The default a VS Code setting has (the registry's VS Code default, else the standalone one). */
export function vscodeDefault(id: SettingId): unknown {
  const v = vscodeOf(id);
  return v && 'default' in v ? v.default : (SETTINGS[id] as { default?: unknown }).default;
}

export function settingsFromVscode(inspected: InspectedSettings): VscodeSettingsResult {
  const ignored: IgnoredSetting[] = [];
  const layer: Record<string, unknown> = {};
  const explicit = new Set<SettingId>();
  let narrow: (() => void) | undefined; // the allowlist is narrowed once the user's patterns are known
  const subsets: SubsetSetting[] = []; // the domain lists, narrowed together once both are read

  for (const id of VSCODE_SETTING_IDS) {
    const v = vscodeOf(id)!;
    const s = inspected[v.key];
    const ignore = (scope: SettingScope, value: unknown, reason: string) => ignored.push({ setting: PREFIX + v.key, scope, value, reason });
    /** A usable value, or undefined after reporting why not. Lists are cleaned entry by entry: dropping the whole list could allow MORE. */
    const read = (raw: unknown, scope: SettingScope): unknown => {
      const schema = SETTINGS[id].schema as z.ZodType;
      if (schema instanceof z.ZodArray) {
        if (!Array.isArray(raw)) return void ignore(scope, raw, 'must be a list of strings');
        return raw.filter((item) => {
          const r = (schema.element as z.ZodType).safeParse(item);
          if (!r.success) ignore(scope, item, `entry dropped: ${r.error.issues[0]?.message ?? 'invalid'}`);
          return r.success;
        });
      }
      const r = schema.safeParse(raw);
      const problem = r.success ? v.check?.(raw as never) : r.error.issues[0]?.message;
      if (!problem) return raw;
      ignore(scope, raw, scope === 'user' ? `${problem}; the default applies` : problem);
      return undefined;
    };
    const user = s?.globalValue === undefined || s.globalValue === null ? undefined : read(s.globalValue, 'user');
    const workspace: Array<{ scope: SettingScope; value: unknown }> = [];
    for (const [scope, raw] of [['workspace', s?.workspaceValue], ['workspaceFolder', s?.workspaceFolderValue]] as const) {
      if (raw === undefined || raw === null) continue;
      // In a single-folder window VS Code reports the same .vscode/settings.json value in both scopes: use it once.
      if (scope === 'workspaceFolder' && JSON.stringify(raw) === JSON.stringify(s?.workspaceValue)) continue;
      if (v.scope === 'user') {
        if (raw !== '') ignore(scope, raw, 'read from user settings only (a workspace cannot loosen the policy)');
        continue;
      }
      const value = read(raw, scope);
      if (value !== undefined) workspace.push({ scope, value });
    }
    if (user !== undefined) explicit.add(id);

    switch (v.scope) {
      case 'user': {
        // Unset: VS Code's own default when it differs from the standalone one (editBackup: storage).
        const value = user ?? ('default' in v ? v.default : undefined);
        if (value !== undefined && value !== '') layer[id] = value;
        break;
      }
      case 'union': {
        const all = [...((user as string[] | undefined) ?? []), ...workspace.flatMap((w) => w.value as string[])];
        if (all.length) layer[id] = [...new Set(all)];
        break;
      }
      case 'tighten': {
        let current = user ?? vscodeDefault(id);
        for (const w of workspace) {
          const t = tighter(id, v, current, w.value);
          if (t.loosens) ignore(w.scope, w.value, `would loosen the policy (user setting: ${JSON.stringify(current)}); a workspace may only make it stricter`);
          else {
            current = t.value;
            explicit.add(id);
          }
        }
        layer[id] = current;
        break;
      }
      case 'narrow':
        narrow = () => narrowAllowlist(layer, user as string[] | undefined, workspace, ignore);
        break;
      case 'subset':
        subsets.push({ id, user: user as string[] | undefined, workspace, ignore });
        break;
    }
  }

  narrow?.();
  narrowDomainLists(layer, subsets);

  // A lowered maximum pulls the default down with it, so the pair stays valid (default <= max).
  const max = layer.maxTimeoutSeconds as number;
  if ((layer.defaultTimeoutSeconds as number) > max) {
    if (explicit.has('defaultTimeoutSeconds')) {
      ignored.push({ setting: `${PREFIX}timeout.default`, scope: 'user', value: layer.defaultTimeoutSeconds, reason: `is larger than the maximum timeout (${max} s); the maximum applies` });
    }
    layer.defaultTimeoutSeconds = max;
  }
  return { layer: layer as SettingsLayer, ignored };
}

/** A workspace value against the current one: the stricter, or `loosens`. Orders come from the mode table and the registry. */
function tighter(id: SettingId, v: VscodeSetting, current: unknown, proposed: unknown): { value: unknown; loosens: boolean } {
  if (id === 'mode') {
    const t = tightenMode(current as ModeSetting, proposed as ModeSetting);
    return { value: t.mode, loosens: t.loosens };
  }
  if (id === 'network') {
    const t = tightenNetwork(current as Network, proposed as Network);
    return { value: t.network, loosens: t.loosens };
  }
  if (typeof proposed === 'number') return proposed <= (current as number) ? { value: proposed, loosens: false } : { value: current, loosens: true };
  const order = v.stricter ?? [];
  return order.indexOf(proposed) <= order.indexOf(current) ? { value: proposed, loosens: false } : { value: current, loosens: true };
}

/**
 * The allowlist: names and patterns from the user only (patterns are `user` scope in the registry); a workspace may
 * narrow the names to a subset, and then the user's patterns stop applying there.
 */
function narrowAllowlist(
  layer: Record<string, unknown>,
  fromUser: string[] | undefined,
  workspace: ReadonlyArray<{ scope: SettingScope; value: unknown }>,
  ignore: (scope: SettingScope, value: unknown, reason: string) => void,
): void {
  const userPatterns = layer.allowPatterns as string[] | undefined;
  const userNoAllowlist = fromUser === undefined && userPatterns === undefined;
  let commands: string[] = userNoAllowlist ? [...DEFAULT_ALLOW_COMMANDS] : (fromUser ?? []);
  let patterns: string[] = userPatterns ?? [];
  for (const { scope, value } of workspace) {
    const allowedNow = (name: string) => commands.includes(name) || patterns.some((p) => new RegExp(`^(?:${stripPatternAnchors(p)})$`).test(name));
    const names = value as string[];
    const dropped = names.filter((n) => !allowedNow(n));
    if (dropped.length) ignore(scope, dropped, `not allowed by the user's allowlist (a workspace may only narrow it)`);
    commands = [...new Set(names.filter(allowedNow))];
    patterns = []; // the workspace named its commands: nothing else stays allowed
  }
  if (!userNoAllowlist || workspace.length) {
    layer.allowCommands = commands;
    layer.allowPatterns = patterns;
  }
}

interface SubsetSetting {
  readonly id: SettingId;
  readonly user: string[] | undefined;
  readonly workspace: ReadonlyArray<{ scope: SettingScope; value: unknown }>;
  readonly ignore: (scope: SettingScope, value: unknown, reason: string) => void;
}

/**
 * The domain lists (allowedDomains and domainPresets, read together): from the user; a workspace scope that sets
 * either names its whole list, kept only where the current list covers it (an entry by entryCovers, a preset when
 * every host of it is covered), and the rest of the current list stops applying there. Denied entries are a
 * `union` setting: a workspace may always add some.
 */
function narrowDomainLists(layer: Record<string, unknown>, subsets: readonly SubsetSetting[]): void {
  const of = (id: SettingId) => subsets.find((s) => s.id === id);
  const allowedSetting = of('allowedDomains'), presetSetting = of('domainPresets');
  let allowed: string[] = allowedSetting?.user ?? [];
  let presets = (presetSetting?.user ?? []) as DomainPreset[];
  let narrowed = allowedSetting?.user !== undefined || presetSetting?.user !== undefined;
  for (const scope of ['workspace', 'workspaceFolder'] as const) {
    const wsAllowed = allowedSetting?.workspace.find((w) => w.scope === scope)?.value as string[] | undefined;
    const wsPresets = presetSetting?.workspace.find((w) => w.scope === scope)?.value as DomainPreset[] | undefined;
    if (wsAllowed === undefined && wsPresets === undefined) continue;
    const covering = [...allowed, ...presets.flatMap((p) => DOMAIN_PRESETS[p])];
    const entries = narrowDomains(covering, wsAllowed ?? []);
    if (entries.dropped.length) allowedSetting!.ignore(scope, entries.dropped, "not covered by the user's allowed domains (a workspace may only narrow them)");
    const keptPresets = (wsPresets ?? []).filter((p) => presets.includes(p) || narrowDomains(covering, DOMAIN_PRESETS[p]).dropped.length === 0);
    const droppedPresets = (wsPresets ?? []).filter((p) => !keptPresets.includes(p));
    if (droppedPresets.length) presetSetting!.ignore(scope, droppedPresets, "its hosts are not all covered by the user's allowed domains (a workspace may only narrow them)");
    allowed = entries.kept;
    presets = [...new Set(keptPresets)];
    narrowed = true;
  }
  if (narrowed) {
    layer.allowedDomains = allowed;
    layer.domainPresets = presets;
  }
}

/** One line per ignored value, for the log. */
export function describeIgnored(i: IgnoredSetting): string {
  return `ignored ${i.scope} setting ${i.setting} = ${JSON.stringify(i.value)}: ${i.reason}`;
}
