import { z } from 'zod';
import { SETTING_IDS, SETTINGS, type SettingId, type SettingSpec } from './config/registry';

/**
 * The effective policy: everything a security decision depends on, as one schema with defaults, DERIVED from the
 * settings registry (src/core/config/registry.ts). It is built from layers (defaults < config file < environment
 * < flags, or VS Code settings) by src/core/config, and is immutable once built: a settings change builds a new
 * policy and swaps it in whole.
 */

export { MODES, ISOLATIONS, NETWORKS, type Mode, type Isolation, type Network } from './modes';
export { DEFAULT_ALLOW_COMMANDS, stripPatternAnchors } from './config/values';

/** A registry entry's schema with its default (or optional when it has none). */
export function withDefault(s: SettingSpec): z.ZodType {
  return s.default === undefined ? s.schema.optional() : s.schema.default(s.default as never);
}

/** The zod object for every entry of one target, nesting dotted policy paths (`fetch.maxBytes`). */
export function targetShape(target: SettingSpec['target']): Record<string, z.ZodType> {
  const flat: Record<string, z.ZodType> = {};
  const nested: Record<string, Record<string, z.ZodType>> = {};
  for (const id of SETTING_IDS) {
    const s: SettingSpec = SETTINGS[id];
    if (s.target !== target) continue;
    const [head, tail] = (s.policyPath ?? id).split('.') as [string, string | undefined];
    if (tail === undefined) flat[head] = withDefault(s);
    else (nested[head] ??= {})[tail] = withDefault(s);
  }
  for (const [head, shape] of Object.entries(nested)) {
    const object = z.object(shape).strict();
    flat[head] = object.default(object.parse({}) as never);
  }
  return flat;
}

export const PolicySchema = z
  .object({
    /** Absolute, real path of the workspace root. Everything a tool touches stays below it. */
    root: z.string().min(1),
    /** Absolute paths the server itself writes (config, audit log): never writable through a tool. */
    ownFiles: z.array(z.string().min(1)).default([]),
    ...targetShape('policy'),
  })
  .strict()
  .refine((p) => (p as unknown as Record<string, number>).defaultTimeoutSeconds! <= (p as unknown as Record<string, number>).maxTimeoutSeconds!, {
    // Named as a person sets them, not by the internal field names.
    message: 'the default timeout (--timeout, "timeout", guardedShell.timeout.default) cannot be larger than the maximum (--max-timeout, "maxTimeout", guardedShell.timeout.max)',
  });

type Entry<K extends SettingId> = (typeof SETTINGS)[K];
type Setting<K extends SettingId> = z.infer<Entry<K>['schema']>;
/** Policy fields named by their setting id (the fetch settings nest under `fetch`, see FetchPolicy). */
type PolicyId = { [K in SettingId]: Entry<K>['target'] extends 'policy' ? (Entry<K> extends { policyPath: string } ? never : K) : never }[SettingId];

export interface FetchPolicy {
  readonly allowLoopback: Setting<'fetchAllowLoopback'>;
  readonly allowPrivate: Setting<'fetchAllowPrivate'>;
  readonly loopbackPorts: Setting<'fetchLoopbackPorts'>;
  readonly timeoutSeconds: Setting<'fetchTimeoutSeconds'>;
  readonly maxBytes: Setting<'fetchMaxBytes'>;
  readonly maxRedirects: Setting<'fetchMaxRedirects'>;
}

/** The parsed policy, typed from the registry: a setting with a default is always present. */
export type Policy = Readonly<
  { root: string; ownFiles: readonly string[]; fetch: FetchPolicy } & {
    [K in PolicyId]: Entry<K> extends { default: unknown } ? Setting<K> : Setting<K> | undefined;
  }
>;

/** What a caller may hand to parsePolicy: the root and any policy field (the rest take their defaults). */
export type PolicyInput = { root: string } & { [K in keyof Policy]?: (K extends 'fetch' ? Partial<FetchPolicy> : Policy[K]) | undefined };

/** Parses a policy, turning zod's issues into one message that names every bad key. */
export function parsePolicy(input: PolicyInput): Policy {
  const r = PolicySchema.safeParse(input);
  if (!r.success) throw new PolicyError(formatIssues(r.error));
  return r.data as unknown as Policy;
}

export class PolicyError extends Error {
  override name = 'PolicyError';
}

export function formatIssues(err: z.ZodError, name: (path: readonly PropertyKey[]) => string = (p) => p.join('.')): string {
  return err.issues
    .map((i) => {
      const where = i.path.length ? name(i.path) : '(root)';
      if (!i.path.length && i.code === 'custom') return i.message;
      if (i.code === 'unrecognized_keys') return `unknown key(s) ${i.keys.map((k) => `"${k}"`).join(', ')}${i.path.length ? ` in ${where}` : ''}`;
      return `${where}: ${i.message}`;
    })
    .join('; ');
}
