import { SETTINGS, type SettingId } from './registry';
import { PREFIX } from './vscodeSettings';

/** Where the person sets things: VS Code's settings, or the command line / environment / config file. */
export type SettingsHost = 'vscode' | 'standalone';

/**
 * A setting named the way the person sets it, from the registry: its VS Code key under VS Code; standalone its
 * command-line flag, else its environment variable, else its config-file key. With `value`, how to set it so
 * (`guardedShell.network` to "allow", `--network allow`).
 */
export function settingName(id: SettingId, host: SettingsHost, value?: string | boolean): string {
  const s = SETTINGS[id] as (typeof SETTINGS)[SettingId] & {
    cli?: readonly { name: string; value?: unknown; arg?: string }[];
    env?: readonly { name: string }[];
    config?: readonly { key: string }[];
    vscode?: { key: string };
  };
  const shown = value === undefined ? '' : JSON.stringify(value);
  if (host === 'vscode' && s.vscode) return `${PREFIX}${s.vscode.key}${shown && ` set to ${shown}`}`;
  if (value === undefined && s.cli?.length) return s.cli[0]!.name;
  // A switch that sets exactly this value is named alone (`--allow-git-writes`); a flag that takes one, with it.
  const sw = s.cli?.find((f) => f.value === value && f.arg === undefined);
  if (sw) return sw.name;
  const withArg = s.cli?.find((f) => f.arg !== undefined);
  if (withArg) return `${withArg.name} ${String(value)}`;
  if (s.env?.length) return `${s.env[0]!.name}${value === undefined ? '' : `=${String(value)}`}`;
  if (s.config?.length) return `"${s.config[0]!.key}"${shown && `: ${shown}`} in the config file`;
  return id;
}
