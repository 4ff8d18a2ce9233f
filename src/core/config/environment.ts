import { SETTING_IDS, SETTINGS, type EnvVariable, type SettingId, type SettingsLayer } from './registry';
import { checkValue, list, scalarKind } from './settings';

export { list } from './settings';
import { PolicyError } from '../policy';

/**
 * Environment variables, derived from the settings registry: mcp-shell-server's, read exactly as it documents
 * them, plus GUARDED_SHELL_TOKEN (a token in the environment is not visible in `ps` the way `--auth TOKEN` is).
 */
export const ENVIRONMENT_VARIABLES: readonly string[] = SETTING_IDS.flatMap((id) => envOf(id).map((e) => e.name));

function envOf(id: SettingId): readonly EnvVariable[] {
  return (SETTINGS[id] as { env?: readonly EnvVariable[] }).env ?? [];
}

export function settingsFromEnvironment(env: NodeJS.ProcessEnv): SettingsLayer {
  const layer: Record<string, unknown> = {};
  for (const id of SETTING_IDS) {
    for (const variable of envOf(id)) {
      const raw = env[variable.name];
      // A list variable that is SET (even to "") can be a value: ALLOW_COMMANDS="" allows nothing, as in
      // mcp-shell-server. Others treat a blank value as unset (the default applies).
      if (raw === undefined || (raw.trim() === '' && variable.empty === 'unset')) continue;
      // Read from the schema only for a variable that is set (a JSON Schema conversion each: start-up time).
      const kind = scalarKind(id);
      let value: unknown;
      if (kind === 'list') value = [...new Set([...((layer[id] as string[] | undefined) ?? []), ...list(raw)])];
      else if (kind === 'number' || kind === 'integer') {
        const n = Number(raw.trim());
        if (!Number.isFinite(n)) throw new PolicyError(`${variable.name}: expected a positive ${kind === 'integer' ? 'whole ' : ''}number, got "${raw}"`);
        value = n;
      } else value = raw; // exactly as configured (MCP_SHELL_SAFE_PATH is used untrimmed)
      layer[id] = checkValue(id, value, variable.name);
    }
  }
  return layer as SettingsLayer;
}
