import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { formatIssues, PolicyError } from '../policy';
import { SETTING_IDS, SETTINGS, type ConfigKey, type SettingId, type SettingsLayer } from './registry';

export { expandHome } from './registry';

/**
 * The JSON config file, derived from the settings registry. It accepts cmdshellmcp.json's keys as they are
 * (`allowed_commands`, `auditlog`, `editdelbk` …) so its users can bring their file, plus Guarded Shell's own
 * keys. An unknown key is an error that names it: a typo must not silently leave a setting at its default.
 */
function keysOf(id: SettingId): readonly ConfigKey[] {
  return (SETTINGS[id] as { config?: readonly ConfigKey[] }).config ?? [];
}

const ConfigFileSchema = (() => {
  const top: Record<string, z.ZodType> = {};
  const nested: Record<string, Record<string, z.ZodType>> = {};
  for (const id of SETTING_IDS) {
    for (const k of keysOf(id)) {
      const schema = (k.schema ?? SETTINGS[id].schema).optional();
      const [head, tail] = k.key.split('.') as [string, string | undefined];
      if (tail === undefined) top[head] = schema;
      else (nested[head] ??= {})[tail] = schema;
    }
  }
  for (const [head, shape] of Object.entries(nested)) top[head] = z.object(shape).strict().optional();
  return z.object(top).strict();
})();

export const CONFIG_FILE_KEYS = Object.keys(ConfigFileSchema.shape);

export function parseConfigFile(text: string, source: string): SettingsLayer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new PolicyError(`${source}: not valid JSON (${(e as Error).message})`);
  }
  const r = ConfigFileSchema.safeParse(json);
  if (!r.success) throw new PolicyError(`${source}: ${formatIssues(r.error)}`);
  const file = { dir: path.dirname(path.resolve(source)) };
  const layer: Record<string, unknown> = { configFile: path.resolve(source) };
  const setBy = new Map<SettingId, string>();
  for (const id of SETTING_IDS) {
    for (const k of keysOf(id)) {
      const [head, tail] = k.key.split('.') as [string, string | undefined];
      const top = (r.data as Record<string, unknown>)[head];
      const raw = tail === undefined ? top : (top as Record<string, unknown> | undefined)?.[tail];
      if (raw === undefined) continue;
      const value = k.map ? k.map(raw as never, file) : raw;
      if (value === undefined) continue;
      const other = setBy.get(id);
      if (other !== undefined) throw new PolicyError(`${source}: "${other}" and "${k.key}" cannot both be set`);
      setBy.set(id, k.key);
      layer[id] = value;
    }
  }
  return layer as SettingsLayer;
}

/**
 * Reads the config file: the one named by --conf (must exist), else `guarded-shell.json` or cmdshellmcp's
 * `cmdshellmcp.json` in the current folder when present.
 */
export function loadConfigFile(explicit: string | undefined, cwd: string): SettingsLayer {
  if (explicit !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(explicit, 'utf8');
    } catch (e) {
      throw new PolicyError(`--conf ${explicit}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return parseConfigFile(text, explicit);
  }
  for (const name of ['guarded-shell.json', 'cmdshellmcp.json']) {
    const candidate = path.join(cwd, name);
    if (fs.existsSync(candidate)) return parseConfigFile(fs.readFileSync(candidate, 'utf8'), candidate);
  }
  return {};
}
