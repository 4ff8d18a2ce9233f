import { SETTING_IDS, SETTINGS, type CliFlag, type SettingId, type SettingsLayer } from '../core/config/registry';
import { ENVIRONMENT_VARIABLES } from '../core/config/environment';
import { checkValue, list, listItemKind, scalarKind } from '../core/config/settings';
import { PolicyError } from '../core/policy';

/**
 * Command-line flags, derived from the settings registry: cmdshellmcp's (`--cwd --host --port --allow --conf
 * --auth --noauth --disableTools --sse --quiet --auditlog --editdelbk`) with the same meanings, plus Guarded
 * Shell's own. `--allow` takes one or more names (`--allow ls pwd date`) and may be repeated, as in the origin.
 */
export class FlagError extends PolicyError {
  override name = 'FlagError';
}

export interface ParsedFlags {
  readonly layer: SettingsLayer;
  readonly conf?: string;
  readonly help: boolean;
  readonly version: boolean;
}

/** Flags that are not settings. */
const OWN: Record<string, { arg?: string; help: string }> = {
  '--conf': { arg: 'FILE', help: 'JSON config file (default: ./guarded-shell.json or ./cmdshellmcp.json when present)' },
  '--help': { help: 'show this help' },
  '--version': { help: 'print the version' },
};

interface Flag extends CliFlag {
  readonly id: SettingId;
}
export const FLAGS: ReadonlyMap<string, Flag> = new Map(
  SETTING_IDS.flatMap((id) => ((SETTINGS[id] as { cli?: readonly CliFlag[] }).cli ?? []).map((f): [string, Flag] => [f.name, { ...f, id }])),
);

export function parseFlags(argv: readonly string[]): ParsedFlags {
  const layer: Record<string, unknown> = {};
  const setBy = new Map<SettingId, string>();
  let conf: string | undefined;
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const name = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    if (name === '-h' || name === '--help' || name === '--version') {
      if (inline !== undefined) throw new FlagError(`${name} takes no value`);
      if (name === '--version') version = true;
      else help = true;
      continue;
    }
    const next = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--'))) throw new FlagError(`${name} needs a value (${flag?.arg ?? OWN[name]?.arg})`);
      return v;
    };
    const flag = FLAGS.get(name);
    if (name === '--conf') {
      conf = next();
      continue;
    }
    if (!flag) throw new FlagError(raw.startsWith('-') ? `unknown flag ${name} (see --help)` : `unexpected argument "${raw}" (see --help)`);
    const other = setBy.get(flag.id);
    if (other !== undefined && other !== name) throw new FlagError(`${[other, name].sort().join(' and ')} cannot be used together`);
    setBy.set(flag.id, name);

    let value: unknown;
    if ('value' in flag) {
      if (inline !== undefined) throw new FlagError(`${name} takes no value`);
      value = flag.value;
    } else if (flag.many) {
      const values = inline !== undefined ? [inline] : [];
      while (inline === undefined && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) values.push(argv[++i]!);
      if (values.length === 0 || values.some((v) => v === '')) throw new FlagError(`${name} needs at least one value (${flag.arg})`);
      const kind = listItemKind(flag.id);
      const items = kind === 'string' ? values : values.map((v) => numberText(v, name, kind));
      value = [...((layer[flag.id] as unknown[] | undefined) ?? []), ...items];
    } else if (flag.commaList) {
      value = list(next());
    } else {
      value = fromText(flag.id, next(), name);
    }
    try {
      layer[flag.id] = checkValue(flag.id, value, name);
    } catch (e) {
      throw new FlagError((e as Error).message);
    }
  }
  return { layer: layer as SettingsLayer, ...(conf !== undefined && { conf }), help, version };
}

/** A flag's text as the setting's scalar kind; a bad number is named with the flag the person typed. */
function fromText(id: SettingId, text: string, name: string): unknown {
  const kind = scalarKind(id);
  if (kind !== 'number' && kind !== 'integer') return text;
  return numberText(text, name, kind);
}

function numberText(text: string, name: string, kind: 'number' | 'integer'): number {
  if (!/^\s*[0-9.]+\s*$/.test(text) || !Number.isFinite(Number(text))) throw new FlagError(`${name}: expected a ${kind === 'integer' ? 'whole' : 'positive'} number, got "${text}"`);
  return Number(text);
}

export function helpText(version: string): string {
  const lines = [`guarded-shell ${version} — a guarded MCP shell and file-editing server for one folder`, '', 'Usage: guarded-shell [options]', '', 'Options:'];
  const row = (name: string, arg: string | undefined, help: string) => {
    const left = `  ${name}${arg ? ' ' + arg : ''}`;
    lines.push(left.length < 34 ? left.padEnd(34) + help : `${left}\n${' '.repeat(34)}${help}`);
  };
  for (const [name, f] of FLAGS) row(name, f.arg && (f.many ? `${f.arg} [${f.arg} ...]` : f.arg), f.help ?? helpFor(f.id));
  for (const [name, f] of Object.entries(OWN)) row(name, f.arg, f.help);
  lines.push('', `Environment: ${ENVIRONMENT_VARIABLES.join(', ')}.`, 'Precedence: defaults < config file < environment < flags. Reference: docs/cli.md.');
  return lines.join('\n');
}

function helpFor(id: SettingId): string {
  const s = SETTINGS[id] as { summary: string; default?: unknown };
  const d = s.default;
  const shown = d === undefined || typeof d === 'boolean' || (Array.isArray(d) && (d.length === 0 || d.length > 4)) ? '' : ` (default ${Array.isArray(d) ? d.join(',') : String(d)})`;
  return s.summary + shown;
}
