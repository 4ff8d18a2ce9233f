import { z } from 'zod';

/**
 * The effective policy: everything a security decision depends on, as one schema with defaults. It is built
 * from layers (defaults < config file < environment < flags, or VS Code settings) by src/core/config, and is
 * immutable once built: a settings change builds a new policy and swaps it in whole.
 */

export const MODES = ['readOnly', 'confirm', 'confirmChanges', 'auto'] as const;
export const ModeSchema = z.enum(MODES);
export type Mode = z.infer<typeof ModeSchema>;

export const ISOLATIONS = ['none', 'auto', 'required'] as const;
export const IsolationSchema = z.enum(ISOLATIONS);
export type Isolation = z.infer<typeof IsolationSchema>;

export const NetworkSchema = z.enum(['allow', 'deny']);

/** The read-mostly default allowlist, used only when no allowlist is given at all (listed in the README). */
export const DEFAULT_ALLOW_COMMANDS: readonly string[] = Object.freeze([
  'ls', 'pwd', 'date', 'echo', 'cat', 'head', 'tail', 'wc', 'grep', 'find', 'sort', 'uniq', 'cut', 'tr',
  'diff', 'file', 'stat', 'du', 'df', 'uname', 'whoami', 'seq', 'true', 'false', 'basename', 'dirname',
  'realpath', 'printf', 'sha256sum', 'md5sum',
]);

const commandName = z
  .string()
  .min(1, 'a command name cannot be empty')
  .refine((s) => !/[\s\0;&|<>`$(){}\[\]*?!'"\\]/.test(s), {
    message: 'a command name cannot contain white space or shell metacharacters',
  });

/**
 * ALLOW_PATTERNS entries: full-match regular expressions over a command name. mcp-shell-server's own tests
 * write them anchored (`^cmd[0-9]+$`); a leading `^` and a trailing unescaped `$` are accepted and mean what a
 * full match means anyway. Elsewhere white space and shell metacharacters are refused, `$` included.
 */
export function stripPatternAnchors(s: string): string {
  let body = s.startsWith('^') ? s.slice(1) : s;
  if (body.endsWith('$') && !/(^|[^\\])(\\\\)*\\\$$/.test(body)) body = body.slice(0, -1);
  return body;
}

const regexSource = z.string().min(1).refine(
  (s) => {
    const body = stripPatternAnchors(s);
    if (body === '' || /[\s;&|<>`$'"]/.test(body)) return false;
    try {
      new RegExp(`^(?:${body})$`);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'a command pattern must be a valid regular expression without white space or shell metacharacters (a leading ^ and a trailing $ are accepted)' },
);

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

export const FetchPolicySchema = z
  .object({
    allowLoopback: z.boolean().default(false),
    allowPrivate: z.boolean().default(false),
    timeoutSeconds: z.number().positive().max(300).default(30),
    maxBytes: z.number().int().positive().default(5 * 1024 * 1024),
    maxRedirects: z.number().int().min(0).max(20).default(5),
  })
  .strict();

export const PolicySchema = z
  .object({
    /** Absolute, real path of the workspace root. Everything a tool touches stays below it. */
    root: z.string().min(1),
    allowCommands: z.array(commandName).default([...DEFAULT_ALLOW_COMMANDS]),
    /** Regular expressions matched against the WHOLE command name (mcp-shell-server's ALLOW_PATTERNS). */
    allowPatterns: z.array(regexSource).default([]),
    mode: ModeSchema.default('auto'),
    isolation: IsolationSchema.default('auto'),
    network: NetworkSchema.default('deny'),
    defaultTimeoutSeconds: z.number().positive().default(30),
    maxTimeoutSeconds: z.number().positive().default(300),
    /** Captured bytes per stream (stdout, stderr). */
    outputLimitBytes: z.number().int().positive().default(1024 * 1024),
    concurrency: z.number().int().min(1).max(64).default(4),
    childEnvAllowlist: z.array(envName).default([]),
    /** PATH for children when PATH is not passed through (MCP_SHELL_SAFE_PATH). */
    safePath: z.string().optional(),
    /** Exact command lines (argv joined by single spaces) that run without asking. */
    autoApprove: z.array(z.string().min(1)).default([]),
    disableTools: z.array(z.string().min(1)).default([]),
    /** Delete the numbered backup after a successful edit (cmdshellmcp's --editdelbk). */
    editDeleteBackup: z.boolean().default(false),
    /** Extra protected globs relative to the root (writes denied), e.g. `.env`. */
    protectedPaths: z.array(z.string().min(1)).default([]),
    /** Absolute paths the server itself writes (config, audit log): never writable through a tool. */
    ownFiles: z.array(z.string().min(1)).default([]),
    /** Paths made invisible inside the sandbox (absolute, `~/…`, or relative to the root), e.g. `~/.config/app`. */
    sandboxHiddenPaths: z.array(z.string().min(1)).default([]),
    /** Paths made read-only inside the sandbox (relative to the root or absolute), e.g. `deploy/`. */
    sandboxReadOnlyPaths: z.array(z.string().min(1)).default([]),
    /** Let sandboxed commands write the workspace's `.git` (commits, branches); read-only by default. */
    allowGitWrites: z.boolean().default(false),
    /** Seconds to wait for a person's decision before the request is denied. */
    approvalTimeoutSeconds: z.number().positive().default(300),
    fetch: FetchPolicySchema.default(FetchPolicySchema.parse({})),
  })
  .strict()
  .refine((p) => p.defaultTimeoutSeconds <= p.maxTimeoutSeconds, {
    message: 'the default timeout cannot be larger than the maximum timeout',
    path: ['defaultTimeoutSeconds'],
  });

export type Policy = z.infer<typeof PolicySchema>;
export type PolicyInput = z.input<typeof PolicySchema>;
export type FetchPolicy = z.infer<typeof FetchPolicySchema>;

/** Parses a policy, turning zod's issues into one message that names every bad key. */
export function parsePolicy(input: PolicyInput): Policy {
  const r = PolicySchema.safeParse(input);
  if (!r.success) throw new PolicyError(formatIssues(r.error));
  return r.data;
}

export class PolicyError extends Error {
  override name = 'PolicyError';
}

export function formatIssues(err: z.ZodError): string {
  return err.issues
    .map((i) => {
      const where = i.path.length ? i.path.join('.') : '(root)';
      if (i.code === 'unrecognized_keys') return `unknown key(s) ${i.keys.map((k) => `"${k}"`).join(', ')}${i.path.length ? ` in ${where}` : ''}`;
      return `${where}: ${i.message}`;
    })
    .join('; ');
}
