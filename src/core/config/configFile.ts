import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { formatIssues, ISOLATIONS, MODES, PolicyError } from '../policy';
import { TRANSPORTS, type SettingsLayer } from './settings';

/**
 * The JSON config file. It accepts cmdshellmcp.json's keys as they are (`allowed_commands`, `auditlog`,
 * `editdelbk` …) so its users can bring their file, plus Guarded Shell's own keys. An unknown key is an error that
 * names it: a typo must not silently leave a setting at its default.
 */
const strings = z.array(z.string());
const ConfigFileSchema = z
  .object({
    // cmdshellmcp.json
    host: z.string(),
    port: z.number().int(),
    quiet: z.boolean(),
    auditlog: z.string().nullable(),
    allowed_commands: strings,
    disableTools: strings,
    auth: z.string().nullable(),
    cwd: z.string(),
    editdelbk: z.boolean(),
    // Guarded Shell
    noauth: z.boolean(),
    transport: z.enum(TRANSPORTS),
    allowPatterns: strings,
    mode: z.enum(MODES),
    isolation: z.enum(ISOLATIONS),
    network: z.enum(['allow', 'deny']),
    timeout: z.number(),
    maxTimeout: z.number(),
    outputLimit: z.number().int(),
    concurrency: z.number().int(),
    childEnvAllowlist: strings,
    safePath: z.string(),
    corsOrigins: strings,
    protectedPaths: strings,
    autoApprove: strings,
    approvalTimeout: z.number(),
    hiddenPaths: strings,
    readOnlyPaths: strings,
    allowGitWrites: z.boolean(),
    fetch: z
      .object({
        allowLoopback: z.boolean(),
        allowPrivate: z.boolean(),
        timeoutSeconds: z.number(),
        maxBytes: z.number().int(),
        maxRedirects: z.number().int(),
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

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
  const c = r.data;
  if (c.noauth && typeof c.auth === 'string') throw new PolicyError(`${source}: "auth" and "noauth" cannot both be set`);
  const base = path.dirname(path.resolve(source));
  const layer: SettingsLayer = {
    host: c.host,
    port: c.port,
    quiet: c.quiet,
    auditLog: c.auditlog === null || c.auditlog === undefined ? undefined : path.resolve(base, c.auditlog),
    allowCommands: c.allowed_commands,
    disableTools: c.disableTools,
    auth: c.noauth ? null : (c.auth ?? undefined),
    cwd: c.cwd === undefined ? undefined : path.resolve(base, expandHome(c.cwd)),
    editDeleteBackup: c.editdelbk,
    transport: c.transport,
    allowPatterns: c.allowPatterns,
    mode: c.mode,
    isolation: c.isolation,
    network: c.network,
    defaultTimeoutSeconds: c.timeout,
    maxTimeoutSeconds: c.maxTimeout,
    outputLimitBytes: c.outputLimit,
    concurrency: c.concurrency,
    childEnvAllowlist: c.childEnvAllowlist,
    safePath: c.safePath,
    corsOrigins: c.corsOrigins,
    protectedPaths: c.protectedPaths,
    autoApprove: c.autoApprove,
    approvalTimeoutSeconds: c.approvalTimeout,
    sandboxHiddenPaths: c.hiddenPaths?.map((p) => expandHome(p)),
    sandboxReadOnlyPaths: c.readOnlyPaths,
    allowGitWrites: c.allowGitWrites,
    fetch: c.fetch,
    configFile: path.resolve(source),
  };
  return layer;
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

export function expandHome(p: string, home = process.env.HOME ?? ''): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}
