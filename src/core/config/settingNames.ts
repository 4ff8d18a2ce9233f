import { SETTINGS, type SettingId } from './registry';
import { PREFIX } from './vscodeSettings';

/** Where the person sets things: VS Code's settings, or the command line / environment / config file. */
export type SettingsHost = 'vscode' | 'standalone';

interface Ways {
  readonly cli?: readonly { name: string; value?: unknown; arg?: string }[];
  readonly env?: readonly { name: string }[];
  readonly config?: readonly { key: string }[];
  readonly vscode?: { key: string };
}

/**
 * A setting named the way the person sets it, from the registry: its VS Code key under VS Code; standalone its
 * command-line flag, else its environment variable, else its config-file key.
 */
export function settingName(id: SettingId, host: SettingsHost): string {
  const s = SETTINGS[id] as Ways;
  if (host === 'vscode' && s.vscode) return `${PREFIX}${s.vscode.key}`;
  if (s.cli?.length) return s.cli.find((f) => f.arg !== undefined)?.name ?? s.cli[0]!.name;
  if (s.env?.length) return s.env[0]!.name;
  return s.config?.length ? `"${s.config[0]!.key}" in the config file` : id;
}

/**
 * What to do to give a setting a value, as an instruction: "set guardedShell.network to "allow" in your user
 * settings", "start the server with --network allow", "set "toolchainPath": true in the config file".
 */
export function howToSet(id: SettingId, host: SettingsHost, value: string | boolean): string {
  const s = SETTINGS[id] as Ways;
  const shown = JSON.stringify(value);
  if (host === 'vscode' && s.vscode) return `set ${PREFIX}${s.vscode.key} to ${shown} in your user settings`;
  // A switch that sets exactly this value is named alone (`--allow-git-writes`); a flag that takes one, with it.
  const sw = s.cli?.find((f) => f.arg === undefined && f.value === value);
  if (sw) return `start the server with ${sw.name}`;
  const withArg = s.cli?.find((f) => f.arg !== undefined);
  if (withArg) return `start the server with ${withArg.name} ${String(value)}`;
  // The only switch sets the other value (`--no-toolchain-path`): the default is this one.
  const opposite = s.cli?.find((f) => f.arg === undefined && f.value !== undefined);
  if (opposite) {
    const key = s.config?.[0]?.key;
    return `start the server without ${opposite.name}${key ? ` (and without "${key}": ${JSON.stringify(opposite.value)} in the config file)` : ''}`;
  }
  if (s.env?.length) return `set ${s.env[0]!.name}=${String(value)} for the server`;
  if (s.config?.length) return `set "${s.config[0]!.key}": ${shown} in the config file`;
  return `set ${id} to ${shown}`;
}
