import { SETTINGS, type ConfigKey, type SettingId, type SettingsLayer, type VscodeSetting } from './registry';

/**
 * The setup the docs recommend to a person who wants an agent to do the whole job in five minutes (README, "An
 * agent that does the whole job"): the sandbox required, so the agent's own tools — interpreters, package
 * managers, the project's scripts — run inside it without questions; the package registries open to those commands
 * (installs), nothing else; backups of every file change kept outside the folder, with Undo.
 *
 * One source: scripts/reference.ts renders it in the docs as VS Code user settings and as guarded-shell.json,
 * and the scripted-agent suite (test/integration/agentJob.test.ts) starts the real server with exactly this and
 * counts the goals an agent completes with it.
 */
export const RECOMMENDED_SETUP = {
  // Nothing runs without a sandbox: everything below is bounded by it, never by your own permissions.
  isolation: 'required',
  // Inside the sandbox an allowlisted command runs without a card; file changes keep a copy (Undo).
  mode: 'auto',
  // Package installs reach the registries, and nothing else, through the proxy (docs/network.md); `fetch` keeps
  // commands offline (then installs fail at once and say so).
  network: 'domains',
  domainPresets: ['npm', 'pypi'],
  allowCommands: [
    // reading and searching
    'ls', 'cat', 'head', 'tail', 'wc', 'grep', 'find', 'sort', 'uniq', 'cut', 'tr', 'diff', 'file', 'stat', 'du',
    'pwd', 'echo', 'printf', 'basename', 'dirname', 'realpath', 'date', 'seq', 'true', 'false', 'sed', 'awk',
    // making (deleting and moving go through the file tools, which keep a copy)
    'mkdir', 'touch', 'cp', 'tar',
    // the project's own tools
    'git', 'make', 'npm', 'npx', 'node', 'bash', 'sh', 'pytest',
    // programs inside the folder, by path: the project's scripts and what its package managers install
    'node_modules/.bin/*', '.venv/bin/*', 'bin/*', 'scripts/*', './*.sh',
  ],
  // mcp-shell-server's own example: python, python3, python3.12 …; pip and pip3.
  allowPatterns: ['python[0-9.]*', 'pip[0-9.]*'],
  // Installs and test suites often take longer than 30 s.
  defaultTimeoutSeconds: 120,
  editBackup: 'storage',
} as const satisfies SettingsLayer;

export type RecommendedId = keyof typeof RECOMMENDED_SETUP;
const IDS = Object.keys(RECOMMENDED_SETUP) as RecommendedId[];

/** The setup as VS Code user settings (`guardedShell.*`). */
export function recommendedVscodeSettings(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of IDS) {
    const v = (SETTINGS[id as SettingId] as { vscode?: VscodeSetting }).vscode;
    if (!v) throw new Error(`the recommended setting ${id} has no VS Code setting`);
    out[`guardedShell.${v.key}`] = RECOMMENDED_SETUP[id];
  }
  return out;
}

/** The setup as a config file (guarded-shell.json), in the file's own keys. */
export function recommendedConfigFile(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of IDS) {
    const key = ((SETTINGS[id as SettingId] as { config?: readonly ConfigKey[] }).config ?? [])[0]?.key;
    if (!key || key.includes('.')) throw new Error(`the recommended setting ${id} has no top-level config-file key`);
    out[key] = RECOMMENDED_SETUP[id];
  }
  return out;
}
