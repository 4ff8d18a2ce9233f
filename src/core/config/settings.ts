import { z } from 'zod';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { realRoot } from '../paths/confine';
import { DEFAULT_ALLOW_COMMANDS, formatIssues, parsePolicy, PolicyError, type FetchPolicy, type Isolation, type Mode, type Policy } from '../policy';

/**
 * One layer of settings (defaults, config file, environment, flags). Every layer has the same flat shape, so
 * merging is "later layer wins, key by key" and a person can tell where a value came from.
 */
export interface SettingsLayer {
  cwd?: string;
  host?: string;
  port?: number;
  transport?: Transport;
  /** A fixed bearer token; `null` = authentication explicitly disabled (--noauth). */
  auth?: string | null;
  quiet?: boolean;
  auditLog?: string;
  corsOrigins?: string[];
  allowCommands?: string[];
  allowPatterns?: string[];
  mode?: Mode;
  isolation?: Isolation;
  network?: 'allow' | 'deny';
  defaultTimeoutSeconds?: number;
  maxTimeoutSeconds?: number;
  outputLimitBytes?: number;
  concurrency?: number;
  childEnvAllowlist?: string[];
  safePath?: string;
  disableTools?: string[];
  editDeleteBackup?: boolean;
  protectedPaths?: string[];
  autoApprove?: string[];
  approvalTimeoutSeconds?: number;
  sandboxHiddenPaths?: string[];
  sandboxReadOnlyPaths?: string[];
  allowGitWrites?: boolean;
  fetch?: Partial<FetchPolicy>;
  /** Path of the config file that was read (its own file becomes protected). */
  configFile?: string;
}

export const TRANSPORTS = ['http', 'sse', 'stdio'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const ServerOptionsSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8003),
    transport: z.enum(TRANSPORTS).default('http'),
    /** undefined = generate a random token at start; null = no authentication. */
    auth: z.string().min(1).nullable().optional(),
    quiet: z.boolean().default(false),
    auditLog: z.string().min(1).optional(),
    corsOrigins: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type ServerOptions = z.infer<typeof ServerOptionsSchema>;

export interface EffectiveSettings {
  readonly policy: Policy;
  readonly server: ServerOptions;
}

const SERVER_KEYS = ['host', 'port', 'transport', 'auth', 'quiet', 'auditLog', 'corsOrigins'] as const;

/** Merges layers (lowest first) and validates the result; every bad value is reported with its key. */
export function resolveSettings(layers: readonly SettingsLayer[], processCwd: string = process.cwd()): EffectiveSettings {
  const merged: SettingsLayer = {};
  for (const layer of layers) {
    for (const [k, v] of Object.entries(layer)) {
      if (v === undefined) continue;
      if (k === 'fetch') merged.fetch = { ...merged.fetch, ...(v as Partial<FetchPolicy>) };
      else (merged as Record<string, unknown>)[k] = v;
    }
  }
  const server: Record<string, unknown> = {};
  for (const k of SERVER_KEYS) if (k in merged) server[k] = merged[k];
  const parsedServer = ServerOptionsSchema.safeParse(server);
  if (!parsedServer.success) throw new PolicyError(formatIssues(parsedServer.error));

  const root = realRoot(merged.cwd ?? processCwd);
  // The default allowlist applies only when no allowlist was given at all (neither names nor patterns).
  const noAllowlist = merged.allowCommands === undefined && merged.allowPatterns === undefined;
  const ownFiles = [merged.configFile, merged.auditLog].filter((f): f is string => typeof f === 'string');
  const policy = parsePolicy({
    root,
    allowCommands: noAllowlist ? [...DEFAULT_ALLOW_COMMANDS] : (merged.allowCommands ?? []),
    allowPatterns: merged.allowPatterns ?? [],
    ...pick(merged, ['mode', 'isolation', 'network', 'defaultTimeoutSeconds', 'maxTimeoutSeconds', 'outputLimitBytes', 'concurrency', 'childEnvAllowlist', 'safePath', 'disableTools', 'editDeleteBackup', 'protectedPaths', 'autoApprove', 'approvalTimeoutSeconds', 'fetch', 'sandboxHiddenPaths', 'sandboxReadOnlyPaths', 'allowGitWrites']),
    ownFiles: ownFiles.map((f) => realIfExists(path.resolve(processCwd, f))),
  });
  return { policy, server: parsedServer.data };
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

function realIfExists(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}
