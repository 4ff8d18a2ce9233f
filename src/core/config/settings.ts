import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { realRoot } from '../paths/confine';
import { formatIssues, parsePolicy, PolicyError, targetShape, type Policy, type PolicyInput } from '../policy';
import { SETTING_IDS, SETTINGS, type SettingId, type SettingsLayer } from './registry';
import { DEFAULT_ALLOW_COMMANDS } from './values';
import { attempt } from '../attempt';

/**
 * Layers of settings (defaults, config file, environment, flags; or the VS Code settings) are merged key by key,
 * later layer winning, then validated into the policy and the server options. Every layer has the registry's flat
 * shape, so a person can tell where a value came from.
 */
export type { SettingsLayer } from './registry';

export const TRANSPORTS = SETTINGS.transport.schema.options;
export type Transport = (typeof TRANSPORTS)[number];

export const ServerOptionsSchema = z.object(targetShape('server')).strict();
type ServerId = { [K in SettingId]: (typeof SETTINGS)[K]['target'] extends 'server' ? K : never }[SettingId];
export type ServerOptions = {
  readonly [K in ServerId]: (typeof SETTINGS)[K] extends { default: unknown } ? z.infer<(typeof SETTINGS)[K]['schema']> : z.infer<(typeof SETTINGS)[K]['schema']> | undefined;
};

export interface EffectiveSettings {
  readonly policy: Policy;
  readonly server: ServerOptions;
}

/**
 * Checks one value against its setting's schema, naming it the way the person wrote it (`--timeout`,
 * `MCP_SHELL_MAX_TIMEOUT_SECONDS`, `config.json: maxTimeout`), never by an internal field name.
 */
export function checkValue<K extends SettingId>(id: K, value: unknown, label: string): SettingsLayer[K] {
  const r = SETTINGS[id].schema.safeParse(value);
  if (r.success) return r.data as SettingsLayer[K];
  const problems = r.error.issues.map((i) => (i.path.length ? `entry ${i.path.map(String).join('.')}${quotedAt(value, i.path)}: ` : '') + humanIssue(i, valueAt(value, i.path)));
  throw new PolicyError(`${label}: ${[...new Set(problems)].join('; ')}, got ${JSON.stringify(value)}`);
}

/** zod's issue as a person would say it ("expected one of a, b", "expected a positive number"). */
function humanIssue(i: z.core.$ZodIssue, got?: unknown): string {
  switch (i.code) {
    case 'invalid_value': {
      // Names are case-sensitive (as in the origins); a near miss is named ("readfile" → "readFile").
      const near = typeof got === 'string' ? i.values.find((v) => typeof v === 'string' && v.toLowerCase() === got.toLowerCase()) : undefined;
      return `${near !== undefined ? `did you mean "${String(near)}"? ` : ''}expected one of ${i.values.map(String).join(', ')}`;
    }
    case 'invalid_union': {
      const values = i.errors.flat().flatMap((e) => (e.code === 'invalid_value' ? e.values.map(String) : []));
      return values.length ? `expected one of ${values.join(', ')}` : i.message;
    }
    case 'invalid_type':
      return i.expected === 'int' ? 'expected a whole number' : `expected ${i.expected === 'array' ? 'a list' : `a ${i.expected}`}`;
    case 'too_small':
      if (i.origin === 'number') return i.minimum === 0 && !i.inclusive ? 'expected a positive number' : `expected at least ${String(i.minimum)}`;
      return i.origin === 'string' ? 'cannot be empty' : i.message;
    case 'too_big':
      return i.origin === 'number' ? `expected at most ${String(i.maximum)}` : i.message;
    default:
      return i.message;
  }
}

/** The kind of scalar a setting holds, for text sources (flags, environment): read from the schema itself. */
export function scalarKind(id: SettingId): 'string' | 'number' | 'integer' | 'boolean' | 'list' {
  const json = z.toJSONSchema(SETTINGS[id].schema, { unrepresentable: 'any' }) as { type?: string | string[]; anyOf?: Array<{ type?: string }> };
  const type = Array.isArray(json.type) ? json.type[0] : (json.type ?? json.anyOf?.[0]?.type);
  if (type === 'array') return 'list';
  return type === 'number' || type === 'integer' || type === 'boolean' ? type : 'string';
}

/** The kind of a list setting's items (`--fetch-loopback-port 8000 5173` are numbers). */
export function listItemKind(id: SettingId): 'string' | 'integer' | 'number' {
  const json = z.toJSONSchema(SETTINGS[id].schema, { unrepresentable: 'any' }) as { items?: { type?: string } };
  const type = json.items?.type;
  return type === 'integer' || type === 'number' ? type : 'string';
}

/** Comma-separated, spaces around items ignored, empty items dropped ("ls ,echo, cat"). */
export function list(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Merges layers (lowest first) and validates the result; every bad value is reported with its key. */
export function resolveSettings(layers: readonly SettingsLayer[], processCwd: string = process.cwd()): EffectiveSettings {
  const merged: SettingsLayer = {};
  for (const layer of layers) for (const [k, v] of Object.entries(layer)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;

  const server: Record<string, unknown> = {};
  const policy: Record<string, unknown> = {};
  for (const id of SETTING_IDS) {
    const value = merged[id];
    const s = SETTINGS[id] as (typeof SETTINGS)[SettingId] & { policyPath?: string };
    if (value === undefined || s.target === 'source') continue;
    if (s.target === 'server') server[id] = value;
    else {
      const [head, tail] = (s.policyPath ?? id).split('.') as [string, string | undefined];
      if (tail === undefined) policy[head] = value;
      else policy[head] = { ...(policy[head] as object), [tail]: value };
    }
  }
  const parsedServer = ServerOptionsSchema.safeParse(server);
  if (!parsedServer.success) throw new PolicyError(formatIssues(parsedServer.error));

  // The default allowlist applies only when no allowlist was given at all (neither names nor patterns).
  if (merged.allowCommands === undefined && merged.allowPatterns === undefined) policy.allowCommands = [...DEFAULT_ALLOW_COMMANDS];
  else policy.allowCommands ??= [];
  const ownFiles = [merged.configFile, merged.auditLog].filter((f): f is string => typeof f === 'string');
  return {
    policy: parsePolicy({
      ...(policy as Partial<PolicyInput>),
      root: realRoot(merged.cwd ?? processCwd),
      ownFiles: ownFiles.map((f) => realIfExists(path.resolve(processCwd, f))),
    }),
    server: parsedServer.data as ServerOptions,
  };
}

function realIfExists(p: string): string {
  return attempt(() => fs.realpathSync.native(p)) ?? p;
}

function valueAt(value: unknown, at: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of at) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** The offending list entry, quoted, so "entry 1" says which one ("entry 1 (\"nosuchtool\")"). */
function quotedAt(value: unknown, at: readonly PropertyKey[]): string {
  const v = valueAt(value, at);
  return typeof v === 'string' ? ` (${JSON.stringify(v)})` : '';
}
