import { checkAllowlist } from './commands/allowlist';
import { isKnownReadOnly } from './commands/rules/readonly';
import { unrunnableAllowlistEntries, type UnrunnableEntry } from './commands/unrunnable';
import { modeAnswer, neverAllowed, type Action } from './modes';
import type { Policy } from './policy';
import { disabledTools, TOOL_NAMES, type ToolName } from './toolNames';

/**
 * What the live policy offers the agent: which tools it can call, which commands can run, what a file change keeps.
 * Every message and description that names a tool, a command or a backup asks here first, so that none advises
 * something the policy refuses (test/unit/core/messages.test.ts walks them under several policies).
 */

/** What each tool does, for the mode table: a tool whose every use the mode or network denies is not offered. */
export const TOOL_ACTIONS: Readonly<Record<ToolName, readonly Action[]>> = {
  shell_execute: ['readOnlyCommand'],
  shell_readonly: ['readOnlyCommand'],
  cmdshell: ['readOnlyCommand'],
  readFile: ['read'],
  listFiles: ['read'],
  writeFile: ['fileChange'],
  copyFile: ['fileChange'],
  moveRenameFile: ['fileChange'],
  deleteFile: ['fileChange'],
  mkdir: ['fileChange'],
  rmdir: ['fileChange'],
  editFile: ['fileChange'],
  applyPatch: ['fileChange'],
  replaceInFile: ['fileChange'],
  fetch: ['egress'],
  readOutput: ['read'],
  shell_background: ['readOnlyCommand'],
};

type OfferPolicy = Pick<Policy, 'disableTools' | 'mode' | 'network' | 'backgroundMaxRuns'>;

/** Why a tool is not offered under a policy, or undefined when it is. */
export function notOffered(name: ToolName, policy: OfferPolicy): string | undefined {
  if (disabledTools(policy.disableTools).has(name)) return 'disabled by disableTools';
  if (neverAllowed(policy.mode, policy.network, TOOL_ACTIONS[name])) return 'never allowed by the current mode or network setting';
  if (name === 'shell_background' && policy.backgroundMaxRuns === 0) return 'background commands are turned off (background.maxRuns 0)';
  return undefined;
}

/** Whether background commands can be used whole: started (shell_execute), read (readOutput) and stopped (shell_background). */
export const backgroundOffered = (policy: OfferPolicy): boolean => offers(policy, 'shell_execute') && offers(policy, 'shell_background') && offers(policy, 'readOutput');

export const offers = (policy: OfferPolicy, name: ToolName): boolean => notOffered(name, policy) === undefined;

/** The first of `names` the policy offers. */
export function firstOffered(policy: OfferPolicy, names: readonly ToolName[]): ToolName | undefined {
  return names.find((n) => offers(policy, n));
}

export const offeredTools = (policy: OfferPolicy): ToolName[] => TOOL_NAMES.filter((n) => offers(policy, n));

const unrunnable = new WeakMap<Policy, readonly UnrunnableEntry[]>();
const unrunnableSandboxed = new WeakMap<Policy, readonly UnrunnableEntry[]>();

/**
 * Allowlist entries that cannot run here, once per policy: without a sandbox (and without the person's opt-in) a
 * shell, an interpreter or a pattern that only matches them (commands/delegation.ts); inside a sandbox, none.
 */
export function unrunnableEntries(policy: Policy, sandboxed = false): readonly UnrunnableEntry[] {
  const cache = sandboxed ? unrunnableSandboxed : unrunnable;
  let found = cache.get(policy);
  if (!found) cache.set(policy, (found = unrunnableAllowlistEntries(policy, { delegationAllowed: sandboxed || policy.allowUnsandboxedCode })));
  return found;
}

/**
 * A command the allowlist lets run (and that is not an entry that cannot run without a sandbox). With `argv`, a
 * program listed for its read-only forms only (allowReadOnlyCommands) counts when that argv is one.
 */
export function commandOffered(policy: Policy, name: string, argv?: readonly string[]): boolean {
  const listed = checkAllowlist(name, policy).kind === 'allow' || (argv !== undefined && policy.allowReadOnlyCommands.includes(name) && isKnownReadOnly(argv));
  if (!listed) return false;
  return !unrunnableEntries(policy).some((u) => u.kind === 'command' && u.entry === name);
}

/** Some command tool the agent can call. */
export const commandToolOffered = (policy: Policy): ToolName | undefined => firstOffered(policy, ['shell_execute', 'cmdshell', 'shell_readonly']);

/** Examples of what shell_readonly would run here: allowlisted and known to be read-only. */
const READ_ONLY_EXAMPLES: readonly (readonly string[])[] = [['ls'], ['cat'], ['grep', 'x'], ['find'], ['git', 'log'], ['git', 'status'], ['head'], ['wc'], ['stat', 'x'], ['diff', 'a', 'b']];

export function readOnlyExamples(policy: Policy, most = 4): string[] {
  return READ_ONLY_EXAMPLES.filter((argv) => commandOffered(policy, argv[0]!, argv) && isKnownReadOnly(argv))
    .slice(0, most)
    .map((argv) => (argv[0] === 'git' ? argv.join(' ') : argv[0]!));
}

/**
 * How a command can write its output to a file here: a `>` redirect of shell_execute, when that tool is offered
 * and the mode can allow a redirect. Undefined when nothing can.
 */
export function redirectOffered(policy: Policy): boolean {
  return offers(policy, 'shell_execute') && modeAnswer(policy.mode, 'redirect') !== 'deny';
}

/** The tool for editing a file in place (shown as a diff first), in the order an agent would prefer them. */
export const editToolOffered = (policy: Policy): ToolName | undefined => firstOffered(policy, ['replaceInFile', 'editFile', 'applyPatch', 'writeFile']);

/** What a file change keeps of the content it replaces, as one clause. */
export function backupClause(policy: Pick<Policy, 'editBackup' | 'editDeleteBackup'>): string {
  switch (policy.editBackup) {
    case 'numbered':
      return policy.editDeleteBackup ? 'keeps the old content as the next numbered backup (file.bkN) until the edit succeeds' : 'keeps the old content as the next numbered backup (file.bk1, file.bk2 …)';
    case 'storage':
      return 'keeps the old content in a store outside the workspace (the change can be undone from the history)';
    case 'none':
      return 'keeps no copy of the old content';
  }
}

/** An argv in JSON, the form the command tools take. */
const argvText = (argv: readonly string[]) => JSON.stringify(argv);

/**
 * Examples for shell_execute's description, built from programs the allowlist lets run: a pipeline, and an output
 * redirect where one can run. Empty when the allowlist offers nothing to show.
 */
export function commandExamples(policy: Policy): string[] {
  const ok = (name: string) => commandOffered(policy, name);
  const out: string[] = [];
  if (ok('grep') && ok('wc')) out.push(argvText(['grep', '-n', 'x', 'a.ts', '|', 'wc', '-l']));
  else if (ok('cat') && ok('head')) out.push(argvText(['cat', 'a.txt', '|', 'head', '-n', '5']));
  if (redirectOffered(policy)) {
    if (ok('sort')) out.push(argvText(['sort', 'a', '>', 'b']));
    else if (ok('echo')) out.push(argvText(['echo', 'x', '>', 'b']));
  }
  return out;
}

/** cmdshell's example call: the first of a few programs the allowlist offers, with arguments that suit it. */
export function exampleCall(policy: Policy): readonly string[] | undefined {
  const calls = [['grep', '-R', 'needle', '.'], ['ls', '-l', '.'], ['cat', 'a.txt'], ['echo', 'hello'], ['git', 'status']];
  return calls.find((c) => commandOffered(policy, c[0]!));
}

/** The same, short, for the tool descriptions (tools/list travels with every model request). */
export function backupShort(policy: Pick<Policy, 'editBackup'>): string {
  return policy.editBackup === 'numbered' ? 'old content kept as file.bkN' : policy.editBackup === 'storage' ? 'old content kept outside the workspace' : 'no copy kept';
}
