import { ISOLATIONS, MODES } from '../core/policy';
import { list } from '../core/config/environment';
import type { SettingsLayer } from '../core/config/settings';

/**
 * Command-line flags: cmdshellmcp's (`--cwd --host --port --allow --conf --auth --noauth --disableTools --sse
 * --quiet --auditlog --editdelbk`) with the same meanings, plus Guarded Shell's own. `--allow` takes one or more
 * names (`--allow ls pwd date`) and may be repeated, as in the origin.
 */
export class FlagError extends Error {
  override name = 'FlagError';
}

export interface ParsedFlags {
  readonly layer: SettingsLayer;
  readonly conf?: string;
  readonly help: boolean;
  readonly version: boolean;
}

type Kind = 'string' | 'int' | 'number' | 'bool' | 'multi';
interface FlagSpec {
  readonly kind: Kind;
  readonly apply: (layer: SettingsLayer, value: string | string[] | true) => void;
  readonly help: string;
  readonly arg?: string;
}

const oneOf = (flag: string, allowed: readonly string[], v: string): string => {
  if (!allowed.includes(v)) throw new FlagError(`${flag}: expected one of ${allowed.join(', ')}, got "${v}"`);
  return v;
};

export const FLAGS: Record<string, FlagSpec> = {
  '--cwd': { kind: 'string', arg: 'PATH', help: 'workspace root for every tool (default: the current directory)', apply: (l, v) => (l.cwd = v as string) },
  '--host': { kind: 'string', arg: 'HOST', help: 'bind address (default 127.0.0.1)', apply: (l, v) => (l.host = v as string) },
  '--port': { kind: 'int', arg: 'PORT', help: 'bind port (default 8003; 0 picks a free port)', apply: (l, v) => (l.port = Number(v)) },
  '--allow': { kind: 'multi', arg: 'CMD [CMD ...]', help: 'replace the command allowlist (repeatable)', apply: (l, v) => (l.allowCommands = [...(l.allowCommands ?? []), ...(v as string[])]) },
  '--allow-pattern': { kind: 'multi', arg: 'REGEX [REGEX ...]', help: 'command-name patterns, full match (like ALLOW_PATTERNS)', apply: (l, v) => (l.allowPatterns = [...(l.allowPatterns ?? []), ...(v as string[])]) },
  '--conf': { kind: 'string', arg: 'FILE', help: 'JSON config file (default: ./guarded-shell.json or ./cmdshellmcp.json when present)', apply: () => {} },
  '--auth': { kind: 'string', arg: 'TOKEN', help: 'fixed bearer token (prefer GUARDED_SHELL_TOKEN: argv is visible in ps)', apply: (l, v) => (l.auth = v as string) },
  '--noauth': { kind: 'bool', help: 'disable bearer authentication (UNSAFE: anyone who can reach the port runs commands)', apply: (l) => (l.auth = null) },
  '--disableTools': { kind: 'string', arg: 'TOOL[,TOOL...]', help: 'tools to leave out, exact names', apply: (l, v) => (l.disableTools = list(v as string)) },
  '--editdelbk': { kind: 'bool', help: 'delete the numbered backup after a successful edit', apply: (l) => (l.editDeleteBackup = true) },
  '--sse': { kind: 'bool', help: 'serve the legacy SSE transport instead of Streamable HTTP', apply: (l) => (l.transport = 'sse') },
  '--stdio': { kind: 'bool', help: 'serve MCP over stdin/stdout (audit goes to stderr)', apply: (l) => (l.transport = 'stdio') },
  '--quiet': { kind: 'bool', help: 'no audit events on stdout/stderr', apply: (l) => (l.quiet = true) },
  '--auditlog': { kind: 'string', arg: 'FILE', help: 'append audit events (JSON lines) to FILE', apply: (l, v) => (l.auditLog = v as string) },
  '--mode': { kind: 'string', arg: MODES.join('|'), help: 'approval mode (default auto when standalone)', apply: (l, v) => (l.mode = oneOf('--mode', MODES, v as string) as SettingsLayer['mode']) },
  '--isolation': { kind: 'string', arg: ISOLATIONS.join('|'), help: 'OS sandbox for commands (default auto)', apply: (l, v) => (l.isolation = oneOf('--isolation', ISOLATIONS, v as string) as SettingsLayer['isolation']) },
  '--network': { kind: 'string', arg: 'allow|deny', help: 'network inside the sandbox (default deny)', apply: (l, v) => (l.network = oneOf('--network', ['allow', 'deny'], v as string) as 'allow' | 'deny') },
  '--timeout': { kind: 'number', arg: 'SECONDS', help: 'default command timeout (30)', apply: (l, v) => (l.defaultTimeoutSeconds = Number(v)) },
  '--max-timeout': { kind: 'number', arg: 'SECONDS', help: 'largest timeout a client may ask for (300)', apply: (l, v) => (l.maxTimeoutSeconds = Number(v)) },
  '--output-limit': { kind: 'int', arg: 'BYTES', help: 'captured bytes per stream (1048576)', apply: (l, v) => (l.outputLimitBytes = Number(v)) },
  '--concurrency': { kind: 'int', arg: 'N', help: 'commands running at once; more wait in a queue (4)', apply: (l, v) => (l.concurrency = Number(v)) },
  '--cors-origin': { kind: 'multi', arg: 'ORIGIN [ORIGIN ...]', help: 'browser origins allowed by CORS (none by default)', apply: (l, v) => (l.corsOrigins = [...(l.corsOrigins ?? []), ...(v as string[])]) },
  '--protect': { kind: 'multi', arg: 'GLOB [GLOB ...]', help: 'extra paths no tool may change (e.g. .env)', apply: (l, v) => (l.protectedPaths = [...(l.protectedPaths ?? []), ...(v as string[])]) },
  '--hide': { kind: 'multi', arg: 'PATH [PATH ...]', help: 'paths made invisible inside the sandbox (e.g. ~/.config/app)', apply: (l, v) => (l.sandboxHiddenPaths = [...(l.sandboxHiddenPaths ?? []), ...(v as string[])]) },
  '--read-only': { kind: 'multi', arg: 'PATH [PATH ...]', help: 'paths made read-only inside the sandbox (relative to --cwd or absolute)', apply: (l, v) => (l.sandboxReadOnlyPaths = [...(l.sandboxReadOnlyPaths ?? []), ...(v as string[])]) },
  '--allow-git-writes': { kind: 'bool', help: "let sandboxed commands write the workspace's .git (read-only by default)", apply: (l) => (l.allowGitWrites = true) },
  '--fetch-allow-loopback': { kind: 'bool', help: 'let fetch reach 127.0.0.0/8 and ::1', apply: (l) => (l.fetch = { ...l.fetch, allowLoopback: true }) },
  '--fetch-allow-private': { kind: 'bool', help: 'let fetch reach private and link-local networks', apply: (l) => (l.fetch = { ...l.fetch, allowPrivate: true }) },
  '--help': { kind: 'bool', help: 'show this help', apply: () => {} },
  '--version': { kind: 'bool', help: 'print the version', apply: () => {} },
};

export function parseFlags(argv: readonly string[]): ParsedFlags {
  const layer: SettingsLayer = {};
  let conf: string | undefined;
  let help = false;
  let version = false;
  let sawAuth = false;
  let sawNoauth = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (raw === '-h') {
      help = true;
      continue;
    }
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const name = eq > 0 ? raw.slice(0, eq) : raw;
    const spec = FLAGS[name];
    if (!spec) throw new FlagError(raw.startsWith('-') ? `unknown flag ${name} (see --help)` : `unexpected argument "${raw}" (see --help)`);
    let value: string | string[] | true;
    if (spec.kind === 'bool') {
      if (eq > 0) throw new FlagError(`${name} takes no value`);
      value = true;
    } else if (spec.kind === 'multi') {
      const values: string[] = eq > 0 ? [raw.slice(eq + 1)] : [];
      while (eq < 0 && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) values.push(argv[++i]!);
      if (values.length === 0 || values.some((v) => v === '')) throw new FlagError(`${name} needs at least one value`);
      value = values;
    } else {
      const v = eq > 0 ? raw.slice(eq + 1) : argv[++i];
      if (v === undefined || (eq < 0 && v.startsWith('--'))) throw new FlagError(`${name} needs a value (${spec.arg})`);
      if (spec.kind === 'int' && !/^\d+$/.test(v)) throw new FlagError(`${name}: expected a whole number, got "${v}"`);
      if (spec.kind === 'number' && !(Number(v) > 0)) throw new FlagError(`${name}: expected a positive number, got "${v}"`);
      value = v;
    }
    if (name === '--help') help = true;
    else if (name === '--version') version = true;
    else if (name === '--conf') conf = value as string;
    else {
      if (name === '--auth') sawAuth = true;
      if (name === '--noauth') sawNoauth = true;
      spec.apply(layer, value);
    }
  }
  if (sawAuth && sawNoauth) throw new FlagError('--auth and --noauth cannot be used together');
  return { layer, ...(conf !== undefined && { conf }), help, version };
}

export function helpText(version: string): string {
  const lines = [`guarded-shell ${version} — a guarded MCP shell and file-editing server for one folder`, '', 'Usage: guarded-shell [options]', '', 'Options:'];
  for (const [name, spec] of Object.entries(FLAGS)) {
    const left = `  ${name}${spec.arg ? ' ' + spec.arg : ''}`;
    lines.push(left.length < 34 ? left.padEnd(34) + spec.help : `${left}\n${' '.repeat(34)}${spec.help}`);
  }
  lines.push('', 'Environment: ALLOW_COMMANDS (ALLOWED_COMMANDS), ALLOW_PATTERNS, MCP_SHELL_DEFAULT_TIMEOUT_SECONDS,', '  MCP_SHELL_MAX_TIMEOUT_SECONDS, MCP_SHELL_OUTPUT_LIMIT_BYTES, MCP_SHELL_CHILD_ENV_ALLOWLIST, MCP_SHELL_SAFE_PATH,', '  GUARDED_SHELL_TOKEN. Precedence: defaults < config file < environment < flags.');
  return lines.join('\n');
}
