import * as path from 'node:path';
import { z } from 'zod';
import { ISOLATIONS, MODES, NETWORKS } from '../modes';
import { domainEntry } from '../network/domains';
import { DOMAIN_PRESET_NAMES, DOMAIN_PRESETS } from '../network/presets';
import { TOOL_COVERS, TOOL_NAMES } from '../toolNames';
import { commandName, commandRuleText, count, DEFAULT_ALLOW_COMMANDS, envName, nonEmpty, regexSource, seconds, strings } from './values';

/** "writeFile also covers copyFile, …; editFile also covers replaceInFile", from the one table (toolNames.ts). */
function coversText(name: (tool: string) => string): string {
  return Object.entries(TOOL_COVERS).map(([tool, covered]) => `${name(tool)} also covers ${covered!.map(name).join(', ')}`).join('; ');
}

/**
 * THE settings registry: every setting once, with its value shape, defaults, and every way a person can set it
 * (command-line flag, environment variable, config-file key, VS Code setting and its scope rule). The flag
 * parser, the environment reader, the config-file schema, the VS Code reader, the IPC payload the server
 * accepts, the policy and server-option schemas, package.json's `contributes.configuration` and the docs tables
 * are all derived from this table (src/core/config/*.ts, scripts/generate.mjs) or tested against it.
 *
 * Adding a setting = one entry here + its use.
 */

/** Where the value ends up: the policy (security decisions), the server options (transport), or the source (cwd). */
type Target = 'policy' | 'server' | 'source';

export interface CliFlag {
  readonly name: string;
  /** Placeholder in --help; absent for a switch. */
  readonly arg?: string;
  /** A switch sets this fixed value (`--stdio` → 'stdio', `--noauth` → null). */
  readonly value?: unknown;
  /** The flag takes one or more words and may be repeated; the values are appended (`--allow ls pwd`). */
  readonly many?: boolean;
  /** One value holding a comma-separated list (cmdshellmcp's `--disableTools a,b`). */
  readonly commaList?: boolean;
  readonly help?: string;
}

export interface EnvVariable {
  readonly name: string;
  /** How an empty value reads: as the empty list (mcp-shell-server: ALLOW_COMMANDS="" allows nothing), or as unset. */
  readonly empty: 'value' | 'unset';
}

export interface ConfigKey {
  /** Key in the JSON config file; a dot nests (`fetch.maxBytes`). */
  readonly key: string;
  /** The value shape in the file, when it differs from the setting's (e.g. `noauth: true`). */
  readonly schema?: z.ZodType;
  /** File value → setting value (undefined = not set). */
  readonly map?: (value: never, file: { readonly dir: string }) => unknown;
}

/**
 * How VS Code scopes combine. A workspace (its `.vscode/settings.json`, a `.code-workspace` file) comes with the
 * repository a person cloned, so it may never loosen the policy:
 * - `tighten`: a workspace value applies only where it is stricter (modes by the mode table, numbers lower,
 *   choices by `stricter`); a looser one is ignored and logged;
 * - `user`: read from user settings only;
 * - `union`: user and workspace lists are combined (every entry only ever restricts);
 * - `narrow`: the allowlist: from the user, a workspace may only take entries away;
 * - `subset`: the domain lists (allowedDomains with domainPresets): a workspace's entries are kept where the
 *   user's list covers them, and then replace it.
 */
export type VscodeScope = 'tighten' | 'user' | 'union' | 'narrow' | 'subset';

export interface VscodeSetting {
  /** Below `guardedShell.`. */
  readonly key: string;
  readonly scope: VscodeScope;
  readonly description: string;
  readonly enumDescriptions?: readonly string[];
  /** The default in VS Code when it differs from the standalone default. */
  readonly default?: unknown;
  /** For choices: every value from the strictest to the loosest. */
  readonly stricter?: readonly unknown[];
  /** VS Code's own check for a value beyond the schema (e.g. an absolute path). */
  readonly check?: (value: never) => string | undefined;
}

export interface SettingSpec {
  readonly target: Target;
  readonly schema: z.ZodType;
  /** The standalone default (absent: none, e.g. no audit file). */
  readonly default?: unknown;
  /** One line for --help and the docs. */
  readonly summary: string;
  /** Path in the policy when it is not the setting's id (`fetch.maxBytes`). */
  readonly policyPath?: string;
  readonly cli?: readonly CliFlag[];
  readonly env?: readonly EnvVariable[];
  readonly config?: readonly ConfigKey[];
  readonly vscode?: VscodeSetting;
}

/** Which commands run against a copy-on-write view of the workspace (the `commandPreview` setting). */
export const COMMAND_PREVIEWS = ['off', 'asked', 'all'] as const;

/** Generated trees checkpoints skip by default (`checkpointIgnore`): package managers', build tools' and caches'. */
export const CHECKPOINT_IGNORE = [
  'node_modules', '.venv', 'venv', '__pycache__', '.tox', '.mypy_cache', '.pytest_cache', '.ruff_cache', 'target', '.gradle',
  '.next', '.nuxt', '.turbo', '.parcel-cache', '.cache', 'dist', 'build', 'out', 'coverage',
] as const;

/** What a file change keeps of the content it replaces (the `editBackup` setting). */
export const EDIT_BACKUPS = ['numbered', 'storage', 'none'] as const;

const USER_ONLY = 'Read from user settings only: a workspace cannot set it, so a cloned repository cannot loosen the policy.';
const absolute = (v: string) => (v === '' || path.isAbsolute(v) ? undefined : 'must be an absolute path');
const resolved = (v: string, f: { dir: string }) => path.resolve(f.dir, expandHome(v));

export const SETTINGS = {
  cwd: {
    target: 'source', schema: nonEmpty, summary: 'workspace root for every tool (default: the current directory)',
    cli: [{ name: '--cwd', arg: 'PATH' }], config: [{ key: 'cwd', map: resolved }],
  },
  host: { target: 'server', schema: nonEmpty, default: '127.0.0.1', summary: 'bind address', cli: [{ name: '--host', arg: 'HOST' }], config: [{ key: 'host' }] },
  printConfig: {
    target: 'server', schema: z.enum(['generic', 'vscode', 'claude', 'cursor']), default: 'generic',
    summary: "which client's configuration the start-up lines print: generic (URL, header, an mcp-remote line), vscode (.vscode/mcp.json), claude (claude mcp add), cursor (.cursor/mcp.json)",
    cli: [{ name: '--print-config', arg: 'generic|vscode|claude|cursor' }], config: [{ key: 'printConfig' }],
  },
  port: {
    target: 'server', schema: z.number().int().min(0).max(65535), default: 8003, summary: 'bind port (0 picks a free port)',
    cli: [{ name: '--port', arg: 'PORT' }], config: [{ key: 'port' }],
  },
  transport: {
    target: 'server', schema: z.enum(['http', 'sse', 'stdio']), default: 'http',
    summary: 'MCP transport: Streamable HTTP, legacy SSE, or stdin/stdout (default: stdio when stdin is a pipe or socket, i.e. a client launched the server; otherwise http)',
    cli: [
      { name: '--http', value: 'http', help: 'serve Streamable HTTP even when stdin is a pipe' },
      { name: '--sse', value: 'sse', help: 'serve the legacy SSE transport instead of Streamable HTTP' },
      { name: '--stdio', value: 'stdio', help: 'serve MCP over stdin/stdout (an audit stream asked for goes to stderr)' },
    ],
    config: [{ key: 'transport' }],
  },
  auth: {
    target: 'server', schema: nonEmpty.nullable(), summary: 'fixed bearer token (default: a new random token per start); null = no authentication',
    cli: [
      { name: '--auth', arg: 'TOKEN', help: 'fixed bearer token (prefer GUARDED_SHELL_TOKEN: argv is visible in ps)' },
      { name: '--noauth', value: null, help: 'disable bearer authentication (UNSAFE: anyone who can reach the port runs commands)' },
    ],
    env: [{ name: 'GUARDED_SHELL_TOKEN', empty: 'unset' }],
    config: [
      { key: 'auth', schema: z.string().nullable(), map: (v: string | null) => v ?? undefined },
      { key: 'noauth', schema: z.boolean(), map: (v: boolean) => (v ? null : undefined) },
    ],
  },
  approver: {
    target: 'server', schema: z.enum(['elicitation', 'web', 'auto']), default: 'elicitation',
    summary: 'who answers approvals standalone: the client (MCP elicitation), a local web page the client cannot answer, or auto (elicitation when the client offers it, else the page)',
    cli: [{ name: '--approver', arg: 'elicitation|web|auto' }], env: [{ name: 'GUARDED_SHELL_APPROVER', empty: 'unset' }], config: [{ key: 'approver' }],
  },
  tokenFile: {
    target: 'server', schema: nonEmpty, summary: 'keep the bearer token in this file (created with mode 0600 on first start, reused after): a token that survives restarts',
    cli: [{ name: '--token-file', arg: 'FILE' }], env: [{ name: 'GUARDED_SHELL_TOKEN_FILE', empty: 'unset' }], config: [{ key: 'tokenFile', map: resolved }],
  },
  auditStream: {
    target: 'server', schema: z.enum(['none', 'stdout', 'stderr']), default: 'none',
    summary: 'also write the audit events (JSON lines) to this stream of the terminal; by default they go only to --auditlog (and to VS Code), so the console shows the human start-up lines alone',
    cli: [{ name: '--audit-stream', arg: 'none|stdout|stderr' }], config: [{ key: 'auditStream' }],
  },
  quiet: {
    target: 'server', schema: z.boolean(), default: false, summary: 'no audit events on stdout/stderr, whatever --audit-stream says (cmdshellmcp\'s key)',
    cli: [{ name: '--quiet', value: true }], config: [{ key: 'quiet' }],
  },
  corsOrigins: {
    target: 'server', schema: strings, default: [], summary: 'browser origins allowed by CORS (none by default)',
    cli: [{ name: '--cors-origin', arg: 'ORIGIN', many: true }], config: [{ key: 'corsOrigins' }],
  },
  mode: {
    target: 'policy', schema: z.union([z.enum(MODES), z.array(z.enum(MODES)).min(1)]), default: 'auto',
    summary: 'approval mode: readOnly, confirm, confirmChanges or auto (see docs/approvals.md)',
    cli: [{ name: '--mode', arg: MODES.join('|') }], config: [{ key: 'mode' }],
    vscode: {
      key: 'mode', scope: 'tighten', default: 'confirm',
      description: 'How much the agent may do without asking.',
      enumDescriptions: [
        'Denies every file change, output redirect and command not known to be read-only; runs allowlisted commands known to be read-only (`ls`, `cat`, `grep`, `git status`, … without their writing or executing flags). Never asks; the fetch tool and the change tools are not offered.',
        'Asks before **every** command, change and fetch (the default).',
        'Runs allowlisted commands known to be read-only at once; asks before anything that may change files: file changes, output redirects, and other commands (`cp`, `touch`, `npm`, …).',
        'Asks nothing: every allowlisted command and change runs.',
      ],
    },
  },
  isolation: {
    target: 'policy', schema: z.enum(ISOLATIONS), default: 'auto', summary: 'OS sandbox for commands: none, auto or required',
    cli: [{ name: '--isolation', arg: ISOLATIONS.join('|') }], config: [{ key: 'isolation' }],
    vscode: {
      key: 'isolation', scope: 'tighten', stricter: ['required', 'auto', 'none'],
      description: 'Whether commands run inside an OS sandbox.',
      enumDescriptions: [
        'No sandbox: commands run with your own permissions (the allowlist and argument rules still apply).',
        'Use a sandbox when one is available; otherwise run without one and say so in the status bar and the log.',
        'Refuse every command when no sandbox can run (fails closed with a message saying why).',
      ],
    },
  },
  network: {
    target: 'policy', schema: z.enum(NETWORKS), default: 'fetch',
    summary: 'who reaches the network: deny (nothing), fetch (only the fetch tool), domains (the fetch tool and sandboxed commands, only the listed hosts), allow (sandboxed commands reach everything)',
    cli: [{ name: '--network', arg: NETWORKS.join('|') }], config: [{ key: 'network' }],
    vscode: {
      // Ordered by the network table (modes.ts networkAtLeastAsStrict), not by a list here: `fetch` and
      // `domains` are each stricter somewhere, so neither replaces the other from a workspace.
      key: 'network', scope: 'tighten',
      description: 'Who may reach the network. Commands without a sandbox cannot be cut off from it (see `#guardedShell.isolation#`).',
      enumDescriptions: [
        'Nothing: sandboxed commands have no network and the fetch tool is not offered.',
        'Only the fetch tool (public addresses, every redirect checked, asked per mode); sandboxed commands have no network.',
        'The fetch tool and sandboxed commands reach only the hosts of `#guardedShell.domains.allowed#` and `#guardedShell.domains.presets#`, commands through a proxy outside the sandbox that records every attempt. A host not listed can be allowed from a card in the modes that ask.',
        'The fetch tool, and sandboxed commands reach everything this machine reaches.',
      ],
    },
  },
  allowedDomains: {
    target: 'policy', schema: z.array(domainEntry), default: [],
    summary: 'with network domains: hosts the fetch tool and sandboxed commands may reach (a name, *.suffix for the names below it, or an IP address)',
    cli: [{ name: '--allow-domain', arg: 'NAME', many: true }], config: [{ key: 'allowedDomains' }],
    vscode: {
      key: 'domains.allowed', scope: 'subset',
      description: 'With `#guardedShell.network#` `domains`: the hosts the fetch tool and sandboxed commands may reach. An entry is a name (`registry.npmjs.org`), `*.suffix` (every name below it, e.g. `*.githubusercontent.com`) or an IP address. Names are checked before any lookup, and the address a name resolves to must still be public (`#guardedShell.fetch.allowLoopback#`, `#guardedShell.fetch.allowPrivate#` aside); `#guardedShell.domains.denied#` wins over this list. A host not listed can be allowed from a card ("Always" adds it here).',
    },
  },
  domainPresets: {
    target: 'policy', schema: z.array(z.enum(DOMAIN_PRESET_NAMES)), default: [],
    summary: `with network domains: named host lists added to the allowed domains (${DOMAIN_PRESET_NAMES.map((n) => `${n}: ${DOMAIN_PRESETS[n].join(' ')}`).join('; ')})`,
    cli: [{ name: '--domain-preset', arg: DOMAIN_PRESET_NAMES.join('|'), many: true }], config: [{ key: 'domainPresets' }],
    vscode: {
      key: 'domains.presets', scope: 'subset',
      description: `With \`#guardedShell.network#\` \`domains\`: named host lists added to \`#guardedShell.domains.allowed#\`: ${DOMAIN_PRESET_NAMES.map((n) => `\`${n}\` (${DOMAIN_PRESETS[n].join(', ')})`).join(', ')}.`,
    },
  },
  deniedDomains: {
    target: 'policy', schema: z.array(domainEntry), default: [], summary: 'hosts never reached, even when an allowed entry or a preset matches them',
    cli: [{ name: '--deny-domain', arg: 'NAME', many: true }], config: [{ key: 'deniedDomains' }],
    vscode: { key: 'domains.denied', scope: 'union', description: 'Hosts the fetch tool and sandboxed commands never reach, even when an allowed entry or a preset matches them (a name, `*.suffix` or an IP address).' },
  },
  allowCommands: {
    target: 'policy', schema: z.array(commandName), default: DEFAULT_ALLOW_COMMANDS,
    summary: 'command names that may run (replaces the built-in read-mostly list); a relative path glob (node_modules/.bin/*, bin/bats) names programs inside the workspace',
    cli: [{ name: '--allow', arg: 'CMD', many: true }],
    env: [{ name: 'ALLOW_COMMANDS', empty: 'value' }, { name: 'ALLOWED_COMMANDS', empty: 'value' }],
    config: [{ key: 'allowed_commands' }],
    vscode: {
      key: 'allowCommands', scope: 'narrow',
      description: 'Command names (the first argv element) that may run. Each call is further checked by per-command argument rules. When neither this nor `#guardedShell.allowPatterns#` is set, this built-in read-mostly list applies. An entry with a `/` that is not absolute is a path glob inside the folder (`node_modules/.bin/*`, `bin/bats`, `./install.sh`): programs there run only inside the sandbox (or with `#guardedShell.allowUnsandboxedCode#`). A command not on the list is asked about in the modes that ask (`confirm`, `confirmChanges`), with **Always allow** to save a rule.',
    },
  },
  allowReadOnlyCommands: {
    target: 'policy', schema: z.array(commandName), default: [],
    summary: 'programs that may run only in forms known to be read-only (git: status, log, diff, show …); other forms count as not on the allowlist',
    cli: [{ name: '--allow-read-only', arg: 'CMD', many: true }], config: [{ key: 'allowReadOnlyCommands' }],
    vscode: {
      key: 'allowReadOnlyCommands', scope: 'user', default: ['git'],
      description: 'Programs that may run only in forms known to be read-only (for `git`: `status`, `log`, `diff`, `show`, `branch` … with the hardened read-only configuration). Any other form (`git commit`) counts as not on your allowlist: asked about in `confirm` and `confirmChanges`, refused in `readOnly` and `auto`.',
    },
  },
  allowUnsandboxedCode: {
    target: 'policy', schema: z.boolean(), default: false,
    summary: 'let shells, interpreters, package runners (npx, npm exec) and workspace programs run WITHOUT a sandbox, with your own permissions (UNSAFE: any code the agent writes can read your files and keys and reach the network)',
    cli: [{ name: '--allow-unsandboxed-code', value: true }], config: [{ key: 'allowUnsandboxedCode' }],
    vscode: {
      key: 'allowUnsandboxedCode', scope: 'user',
      description: 'Let shells, interpreters (`python3`, `node`), package runners (`npx`, `npm exec`) and programs inside the folder (`./x.sh`, `node_modules/.bin/*`) run when **no sandbox** is in force. They then run any code the agent gives them with your own permissions: your home folder, SSH keys and tokens, the network. Off: they are refused without a sandbox. With a sandbox they need no opt-in and run inside it.',
    },
  },
  allowPatterns: {
    target: 'policy', schema: z.array(regexSource), default: [], summary: 'regular expressions matched against the whole command name',
    cli: [{ name: '--allow-pattern', arg: 'REGEX', many: true }], env: [{ name: 'ALLOW_PATTERNS', empty: 'unset' }], config: [{ key: 'allowPatterns' }],
    vscode: { key: 'allowPatterns', scope: 'user', description: 'Regular expressions matched against the **whole** command name (e.g. `make[0-9]*`). Adds to `#guardedShell.allowCommands#`.' },
  },
  autoApprove: {
    target: 'policy', schema: z.array(commandRuleText), default: [],
    summary: 'command rules that run without asking and need no allowlist entry: an exact command line, or an argv prefix ending in " *" (npm test *)',
    cli: [{ name: '--auto-approve', arg: 'RULE', many: true }],
    config: [{ key: 'autoApprove' }],
    vscode: { key: 'autoApprove', scope: 'user', description: 'Command rules that run without asking, in the modes that would ask, and need no allowlist entry: an exact command line (argv joined by single spaces, e.g. `npm test`), or an argv prefix ending in ` *` for any further arguments (`git log *`, `npm run test *`). The argument rules and the sandbox still apply. **Always allow** on a card adds one here.' },
  },
  defaultTimeoutSeconds: {
    target: 'policy', schema: seconds, default: 30, summary: 'seconds a command may run when the call names no timeout',
    cli: [{ name: '--timeout', arg: 'SECONDS' }], env: [{ name: 'MCP_SHELL_DEFAULT_TIMEOUT_SECONDS', empty: 'unset' }], config: [{ key: 'timeout' }],
    vscode: { key: 'timeout.default', scope: 'tighten', description: 'Seconds a command may run when the call names no timeout. Capped by `#guardedShell.timeout.max#`.' },
  },
  maxTimeoutSeconds: {
    target: 'policy', schema: seconds, default: 300, summary: 'the largest timeout a call may ask for',
    cli: [{ name: '--max-timeout', arg: 'SECONDS' }], env: [{ name: 'MCP_SHELL_MAX_TIMEOUT_SECONDS', empty: 'unset' }], config: [{ key: 'maxTimeout' }],
    vscode: { key: 'timeout.max', scope: 'tighten', description: 'The largest timeout, in seconds, a call may ask for. When a command runs out of time its whole process tree is killed.' },
  },
  outputLimitBytes: {
    target: 'policy', schema: count, default: 1024 * 1024, summary: 'bytes of stdout and of stderr kept per command',
    cli: [{ name: '--output-limit', arg: 'BYTES' }], env: [{ name: 'MCP_SHELL_OUTPUT_LIMIT_BYTES', empty: 'unset' }], config: [{ key: 'outputLimit' }],
    vscode: { key: 'outputLimitBytes', scope: 'tighten', description: 'Bytes of stdout and of stderr kept per command (1 MiB by default). What happens to a command that writes more is `#guardedShell.outputLimitAction#`.' },
  },
  outputLimitAction: {
    target: 'policy', schema: z.enum(['keep', 'kill']), default: 'keep',
    summary: 'past the output limit: keep (run on, keep the first and last part) or kill (stop the command, keep the first part)',
    cli: [{ name: '--output-limit-action', arg: 'keep|kill' }], env: [{ name: 'MCP_SHELL_OUTPUT_LIMIT_ACTION', empty: 'unset' }], config: [{ key: 'outputLimitAction' }],
    vscode: {
      key: 'outputLimitAction', scope: 'tighten', stricter: ['kill', 'keep'],
      description: 'What happens when a command writes more than `#guardedShell.outputLimitBytes#` to a stream.',
      enumDescriptions: [
        'The command runs to its end (or its timeout); the result keeps the first and the last half of the limit and says how many bytes were left out in the middle.',
        'The command is stopped at the limit; the result keeps the first bytes.',
      ],
    },
  },
  outputBudgetBytes: {
    target: 'policy', schema: z.number().int().min(1024).max(16 * 1024 * 1024), default: 32 * 1024,
    summary: "bytes of output one answer carries, as sent (a command's streams together, a file page, a fetched body): the first and last part, the gap marked; readOutput reads the rest in pages",
    cli: [{ name: '--output-budget', arg: 'BYTES' }], env: [{ name: 'GUARDED_SHELL_OUTPUT_BUDGET', empty: 'unset' }], config: [{ key: 'outputBudget' }],
    vscode: {
      key: 'outputBudgetBytes', scope: 'tighten',
      description: "Bytes of output one tool answer carries, as sent to the model (32 KiB by default; a command's stdout and stderr share it, and it bounds a file page and a fetched body). A longer output shows its first and last part with the gap marked; the agent reads all of it (up to `#guardedShell.outputLimitBytes#` per stream) in pages with `readOutput`.",
    },
  },
  concurrency: {
    target: 'policy', schema: z.number().int().min(1).max(64), default: 4, summary: 'commands running at once; more wait in a queue',
    cli: [{ name: '--concurrency', arg: 'N' }], config: [{ key: 'concurrency' }],
    vscode: { key: 'concurrency', scope: 'tighten', description: 'How many commands run at the same time; more wait for a slot.' },
  },
  backgroundMaxRuns: {
    target: 'policy', schema: z.number().int().min(0).max(64), default: 8,
    summary: 'background commands (shell_execute background) kept at once in a folder, running or not yet read to their end; 0 offers none',
    cli: [{ name: '--background-max', arg: 'N' }], config: [{ key: 'background.maxRuns' }],
    vscode: {
      key: 'background.maxRuns', scope: 'tighten',
      description: 'How many background commands (a dev server, a watcher: `shell_execute` with `background`) a folder keeps at once, running or ended but not yet read to their end. One more is refused with a message saying so. `0`: the agent cannot start any.',
    },
  },
  backgroundMaxRunsPerSession: {
    target: 'policy', schema: z.number().int().min(1).max(64), default: 4, summary: 'background commands one MCP session keeps at once',
    cli: [{ name: '--background-max-per-session', arg: 'N' }], config: [{ key: 'background.maxRunsPerSession' }],
    vscode: { key: 'background.maxRunsPerSession', scope: 'tighten', description: 'How many background commands one agent session keeps at once (within `#guardedShell.background.maxRuns#`).' },
  },
  backgroundMaxSeconds: {
    target: 'policy', schema: z.number().int().min(1).max(7 * 24 * 3600), default: 3600,
    summary: 'seconds a background command may run before its whole process tree is stopped',
    cli: [{ name: '--background-max-seconds', arg: 'SECONDS' }], config: [{ key: 'background.maxSeconds' }],
    vscode: { key: 'background.maxSeconds', scope: 'tighten', description: 'Seconds a background command may run (one hour by default); then its whole process tree is stopped. It also stops when its agent session ends, the folder is closed or the server stops.' },
  },
  backgroundOutputBytes: {
    target: 'policy', schema: z.number().int().min(4096).max(64 * 1024 * 1024), default: 1024 * 1024,
    summary: "bytes of a background command's latest output (stdout and stderr together) kept for reading; older bytes are dropped and counted",
    cli: [{ name: '--background-output', arg: 'BYTES' }], config: [{ key: 'background.outputBytes' }],
    vscode: { key: 'background.outputBytes', scope: 'tighten', description: "Bytes of a background command's latest output (stdout and stderr together) kept for the agent to read (1 MiB by default). Older output is dropped, and a read says how much." },
  },
  approvalTimeoutSeconds: {
    target: 'policy', schema: seconds, default: 300, summary: 'seconds to wait for a decision before a request is denied',
    config: [{ key: 'approvalTimeout' }],
    vscode: { key: 'approvalTimeout', scope: 'tighten', description: 'Seconds to wait for your decision on an approval before the request is denied.' },
  },
  disableTools: {
    target: 'policy', schema: z.array(z.enum(TOOL_NAMES)), default: [], summary: `tools never offered (${TOOL_NAMES.join(', ')}); ${coversText((t) => t)}`,
    cli: [{ name: '--disableTools', arg: 'TOOL[,TOOL...]', commaList: true }], config: [{ key: 'disableTools' }],
    vscode: { key: 'disableTools', scope: 'union', description: `MCP tools not offered at all (e.g. \`cmdshell\`, \`writeFile\`, \`fetch\`). As in the origins' configurations, ${coversText((t) => `\`${t}\``)}.` },
  },
  protectedPaths: {
    target: 'policy', schema: strings, default: [], summary: 'globs relative to the root that no tool may change (e.g. .env)',
    cli: [{ name: '--protect', arg: 'GLOB', many: true }], config: [{ key: 'protectedPaths' }],
    vscode: { key: 'protectedPaths', scope: 'union', description: 'Globs relative to the folder that no tool may write (e.g. `.env`, `secrets/**`).' },
  },
  childEnvAllowlist: {
    target: 'policy', schema: z.array(envName), default: [], summary: 'environment variables passed through to commands',
    env: [{ name: 'MCP_SHELL_CHILD_ENV_ALLOWLIST', empty: 'unset' }], config: [{ key: 'childEnvAllowlist' }],
    vscode: { key: 'childEnvAllowlist', scope: 'user', description: "Names of environment variables passed from VS Code's environment to commands. Commands otherwise get a minimal environment (no tokens or keys)." },
  },
  auditLog: {
    target: 'server', schema: nonEmpty, summary: 'append audit events (JSON lines, mode 0600) to this file',
    cli: [{ name: '--auditlog', arg: 'FILE' }],
    config: [{ key: 'auditlog', schema: z.string().nullable(), map: (v: string | null, f) => (v === null || v === '' ? undefined : resolved(v, f)) }],
    vscode: {
      key: 'auditLog', scope: 'user', default: '', check: absolute,
      description: 'Absolute path of a file to which audit events are appended as JSON lines (created with mode 0600). Empty: events go only to the **Guarded Shell** output. Changing it restarts the server.',
    },
  },
  toolchainPath: {
    target: 'policy', schema: z.boolean(), default: true,
    summary: "give commands the toolchain folders of the server's own PATH (pyenv/asdf/volta shims, nvm, ~/.local/bin, ~/.cargo/bin …), read-only inside the sandbox",
    cli: [{ name: '--no-toolchain-path', value: false, help: "commands get only the system folders on PATH, and the sandbox shows nothing of the home folder's toolchains" }],
    config: [{ key: 'toolchainPath' }],
    vscode: {
      key: 'toolchainPath', scope: 'tighten', stricter: [false, true],
      description: "Give commands the toolchain folders on VS Code's own `PATH` (version-manager shims and bins: pyenv, asdf, volta, nvm, fnm, `~/.local/bin`, `~/.cargo/bin`, …), in the same order relative to the system folders, and show exactly those folders **read-only** inside the sandbox (the rest of the home folder stays hidden). Never a relative entry, one inside the workspace, or one someone else could put programs in. Off: commands get only the system folders (`/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`).",
    },
  },
  safePath: {
    target: 'policy', schema: nonEmpty, summary: 'PATH for commands when PATH is not passed through',
    env: [{ name: 'MCP_SHELL_SAFE_PATH', empty: 'unset' }], config: [{ key: 'safePath' }],
  },
  editBackup: {
    target: 'policy', schema: z.enum(EDIT_BACKUPS), default: 'numbered',
    summary: "what a file change keeps of the replaced content: the next numbered backup beside an edited file (file.bk1, file.bk2 …, cmdshellmcp's convention), the previous bytes of every change in a bounded store outside the workspace (storage: VS Code's extension storage, standalone $XDG_STATE_HOME/guarded-shell/backups), or none",
    cli: [{ name: '--edit-backup', arg: EDIT_BACKUPS.join('|') }], config: [{ key: 'editBackup' }],
    vscode: {
      // User only: a cloned repository must not switch backups off, nor scatter .bkN files; where the store lives
      // is not a setting at all (the extension hands its own storage folder to the server).
      key: 'editBackup', scope: 'user', default: 'storage',
      description: 'What a file change keeps of the content it replaces.',
      enumDescriptions: [
        "The next numbered backup beside an edited file (`notes.txt.bk1`, `.bk2` …), cmdshellmcp's convention (the standalone default).",
        "The previous bytes of every file change (edits, writes, copies, moves, deletes) in the extension's storage, outside the workspace; the approval panel's history offers **Undo** for each (the default in VS Code).",
        'Nothing: the file is replaced and no copy is kept.',
      ],
    },
  },
  commandPreview: {
    target: 'policy', schema: z.enum(COMMAND_PREVIEWS), default: 'off',
    summary: 'run commands against a copy-on-write view of the workspace (bubblewrap on Linux) and show what they changed as one diff to apply or discard: off, asked (commands a person approves on a card) or all (every command that may change files)',
    cli: [{ name: '--command-preview', arg: COMMAND_PREVIEWS.join('|') }], config: [{ key: 'commandPreview' }],
    vscode: {
      key: 'commandPreview', scope: 'tighten', default: 'asked', stricter: ['all', 'asked', 'off'],
      description: "Run a command against a **copy-on-write view** of the folder (needs the bubblewrap sandbox): the real folder is not written while it runs, and its changes (created, modified, deleted and renamed files, mode changes) come back as one card with the diff and the command's output, to **Apply** (written like a file tool's change: a file changed meanwhile is a conflict, never overwritten) or **Discard**. What it does outside the folder, to the network or through a process it leaves running is not in the preview.",
      enumDescriptions: [
        'Commands write the folder directly (with a checkpoint for Undo, see `#guardedShell.checkpoints#`).',
        'Commands you approve on a card run in the preview, so you approve their effect too; commands the mode allows, or that you allowed for the session or always, write directly.',
        'Every command that may change files runs in the preview, in `auto` too.',
      ],
    },
  },
  checkpoints: {
    target: 'policy', schema: z.boolean(), default: true,
    summary: 'with editBackup storage: record what each command that writes the workspace directly changed (a content-addressed store outside the workspace), so the history can Undo it',
    cli: [{ name: '--no-checkpoints', value: false, help: 'keep no checkpoint of what a command changes (no Undo of commands)' }], config: [{ key: 'checkpoints' }],
    vscode: {
      key: 'checkpoints', scope: 'user',
      description: "Before a command that writes the folder directly (no preview), record its files in a content-addressed store in the extension's storage, and after it, what it changed: the history lists each command's changes with **Undo**. Needs `#guardedShell.editBackup#` `storage`. Bounded in size and time; folders matched by `#guardedShell.checkpointIgnore#` are not recorded, nor is `.git`.",
    },
  },
  checkpointIgnore: {
    target: 'policy', schema: strings, default: [...CHECKPOINT_IGNORE],
    summary: 'globs of generated trees checkpoints do not record (a name without a slash matches at any depth), besides .git',
    cli: [{ name: '--checkpoint-ignore', arg: 'GLOB', many: true }], config: [{ key: 'checkpointIgnore' }],
    vscode: {
      key: 'checkpointIgnore', scope: 'user',
      description: 'Generated trees that checkpoints do not record, as globs relative to the folder (a name without a slash matches at any depth, like `.gitignore`). What a command changes there cannot be undone from the history; the result says which of them it touched. `.git` is never recorded (use git to undo git).',
    },
  },
  editDeleteBackup: {
    target: 'policy', schema: z.boolean(), default: false, summary: 'delete the numbered backup after a successful edit',
    cli: [{ name: '--editdelbk', value: true }], config: [{ key: 'editdelbk' }],
  },
  sandboxHiddenPaths: {
    target: 'policy', schema: strings, default: [], summary: 'paths made invisible inside the sandbox (absolute, ~/…, or relative to the root)',
    cli: [{ name: '--hide', arg: 'PATH', many: true }], config: [{ key: 'hiddenPaths', map: (v: string[]) => v.map((p) => expandHome(p)) }],
    vscode: { key: 'sandbox.hiddenPaths', scope: 'union', description: 'Paths made **invisible** to sandboxed commands (absolute, `~/…`, or relative to the folder), on top of the home directory and the usual credential stores, which are always hidden.' },
  },
  sandboxReadOnlyPaths: {
    target: 'policy', schema: strings, default: [], summary: 'paths made read-only inside the sandbox (relative to the root or absolute)',
    cli: [{ name: '--read-only', arg: 'PATH', many: true }], config: [{ key: 'readOnlyPaths' }],
    vscode: { key: 'sandbox.readOnlyPaths', scope: 'union', description: 'Paths made **read-only** to sandboxed commands (relative to the folder, or absolute), e.g. `deploy/`.' },
  },
  allowGitWrites: {
    target: 'policy', schema: z.boolean(), default: false, summary: "let sandboxed commands write the workspace's .git (read-only by default)",
    cli: [{ name: '--allow-git-writes', value: true }], config: [{ key: 'allowGitWrites' }],
    vscode: {
      key: 'sandbox.allowGitWrites', scope: 'tighten', stricter: [false, true],
      description: "Let sandboxed commands write the folder's `.git` (commit, branch, fetch). Off by default: a command that can write `.git` can plant a hook that runs later outside the sandbox.",
    },
  },
  fetchAllowLoopback: {
    target: 'policy', policyPath: 'fetch.allowLoopback', schema: z.boolean(), default: false, summary: 'let fetch (and the proxy, network domains) reach 127.0.0.0/8 and ::1',
    cli: [{ name: '--fetch-allow-loopback', value: true }], config: [{ key: 'fetch.allowLoopback' }],
    vscode: {
      key: 'fetch.allowLoopback', scope: 'user',
      description: 'Let the fetch tool, and with `#guardedShell.network#` `domains` the proxy of sandboxed commands, reach loopback addresses (`127.0.0.0/8`, `::1`): a registry or service on this machine. The host must still be allowed.',
    },
  },
  fetchLoopbackPorts: {
    target: 'policy', policyPath: 'fetch.loopbackPorts', schema: z.array(z.number().int().min(1).max(65535)), default: [],
    summary: 'loopback ports the fetch tool may reach (http://localhost:PORT, http://127.0.0.1:PORT) even without --fetch-allow-loopback: a dev server a background command runs',
    cli: [{ name: '--fetch-loopback-port', arg: 'PORT', many: true }], config: [{ key: 'fetch.loopbackPorts' }],
    vscode: {
      key: 'fetch.loopbackPorts', scope: 'user',
      description: "Loopback ports the fetch tool may reach (`http://localhost:PORT`, `http://127.0.0.1:PORT`, `http://[::1]:PORT`) even when `#guardedShell.fetch.allowLoopback#` is off: typically a dev server the agent started in the background. A port a sandboxed background command listens on is reached inside its sandbox; otherwise this machine's loopback. The URL must name the loopback itself (a name that merely resolves there stays refused), and with `#guardedShell.network#` `domains` the host must still be allowed.",
    },
  },
  fetchAllowPrivate: {
    target: 'policy', policyPath: 'fetch.allowPrivate', schema: z.boolean(), default: false, summary: 'let fetch (and the proxy, network domains) reach private and link-local networks',
    cli: [{ name: '--fetch-allow-private', value: true }], config: [{ key: 'fetch.allowPrivate' }],
    vscode: {
      key: 'fetch.allowPrivate', scope: 'user',
      description: 'Let the fetch tool, and with `#guardedShell.network#` `domains` the proxy of sandboxed commands, reach private, link-local, shared and documentation addresses (`10.0.0.0/8`, `192.168.0.0/16`, …): a registry inside your network. Cloud metadata addresses stay refused. The host must still be allowed.',
    },
  },
  fetchTimeoutSeconds: {
    target: 'policy', policyPath: 'fetch.timeoutSeconds', schema: seconds.max(300), default: 30, summary: 'seconds a fetch may take',
    config: [{ key: 'fetch.timeoutSeconds' }],
  },
  fetchMaxBytes: {
    target: 'policy', policyPath: 'fetch.maxBytes', schema: count, default: 5 * 1024 * 1024, summary: 'bytes of a fetched body kept (after decompression)',
    config: [{ key: 'fetch.maxBytes' }],
  },
  fetchMaxRedirects: {
    target: 'policy', policyPath: 'fetch.maxRedirects', schema: z.number().int().min(0).max(20), default: 5, summary: 'redirects a fetch follows',
    config: [{ key: 'fetch.maxRedirects' }],
  },
} as const satisfies Record<string, SettingSpec>;

export type SettingId = keyof typeof SETTINGS;
export const SETTING_IDS = Object.keys(SETTINGS) as SettingId[];

/** One layer of settings (defaults, config file, environment, flags, VS Code): flat, keyed by setting id. */
export type SettingsLayer = { -readonly [K in SettingId]?: z.infer<(typeof SETTINGS)[K]['schema']> } & {
  /** Path of the config file that was read (its own file becomes protected). */
  configFile?: string;
};

export function spec(id: SettingId): SettingSpec {
  return SETTINGS[id];
}

/** The USER_ONLY text and its siblings, for VS Code descriptions and the docs. */
export function scopeText(scope: VscodeScope): string {
  switch (scope) {
    case 'tighten': return 'A workspace or folder setting may only make this stricter; a looser workspace value is ignored (and logged).';
    case 'user': return USER_ONLY;
    case 'union': return 'Workspace values are added to yours.';
    case 'narrow': return 'The list itself comes from user settings; a workspace may only **narrow** it (its list is intersected with yours, and your patterns stop applying there).';
    case 'subset': return 'The list itself comes from user settings (with `guardedShell.domains.presets`); a workspace may only **narrow** it: its entries are kept where your list covers them.';
  }
}

/**
 * How a person sets a setting, for messages that point where it works: the VS Code key and the command-line flag
 * (or config-file key), e.g. "guardedShell.allowCommands (--allow)".
 */
export function settingLabel(id: SettingId): string {
  const s: SettingSpec = SETTINGS[id];
  const other = s.cli?.[0]?.name ?? (s.config?.[0] ? `"${s.config[0].key}" in the config file` : undefined);
  if (!s.vscode) return other ?? id;
  return `guardedShell.${s.vscode.key}${other ? ` (${other})` : ''}`;
}

export function expandHome(p: string, home = process.env.HOME ?? ''): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}
