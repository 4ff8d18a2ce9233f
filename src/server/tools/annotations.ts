import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { commandsOnlyRead, commandsReachNetwork, type IsolationOutcome } from '../../core/modes';
import type { Policy } from '../../core/policy';

/**
 * Tool annotations that are true for the live policy. A client decides its own prompts from them: VS Code 1.139
 * asks before every call of an MCP tool not annotated `readOnlyHint`, and asks to review the result of every
 * tool annotated `openWorldHint`. A hint that claims more danger than there is costs the user a needless click on
 * every call; one that claims less would skip a question the user is owed. So each hint is derived from the same
 * tables that decide what a call may do (src/core/modes.ts), never hand-kept.
 */

export type Hints = Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint'>>;

/** What the hints of a tool may depend on. */
export interface HintContext {
  readonly policy: Policy;
  /** What happens to a command now (sandboxed, unsandboxed, denied); undefined while the sandbox probe runs. */
  readonly isolation: IsolationOutcome | undefined;
}

/** A tool's hints: fixed, or computed from the policy and the sandbox. */
export type ToolHints = Hints | ((at: HintContext) => Hints);

export function hintsAt(hints: ToolHints, at: HintContext): Hints {
  return typeof hints === 'function' ? hints(at) : hints;
}

/**
 * shell_execute and cmdshell. Read-only exactly when the mode refuses every command not known to be read-only and
 * every output redirect (readOnly). Open-world exactly when a command can reach the network: with no sandbox in
 * force, or a sandbox that lets it out (`network: allow`).
 */
export function anyCommandHints({ policy, isolation }: HintContext): Hints {
  const readOnly = commandsOnlyRead(policy.mode);
  return { readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: false, openWorldHint: commandsReachNetwork(policy.network, isolation) };
}

/**
 * shell_readonly: only commands known to be read-only run (the same classification as the mode table's
 * read-only-command action), and none of those is a network client (curl, wget, git fetch/ls-remote/remote show
 * are not on that list), so it is neither destructive nor open-world whatever the sandbox.
 */
export const READ_ONLY_COMMAND_HINTS: Hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/**
 * MCP's defaults: readOnly false, destructive true, idempotent false, openWorld true. Only what differs is sent,
 * except the ones a client's safety prompt reads (readOnlyHint, openWorldHint, and destructiveHint for a tool that
 * changes things): those are always explicit.
 */
const HINT_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true } as const;

export function nonDefaultHints(hints: Hints): Partial<Hints> {
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(hints) as [keyof typeof HINT_DEFAULTS, boolean][]) {
    // destructiveHint means nothing for a read-only tool.
    const explicit = k === 'readOnlyHint' || k === 'openWorldHint' || (k === 'destructiveHint' && !hints.readOnlyHint);
    if (explicit || (v !== HINT_DEFAULTS[k] && k !== 'destructiveHint')) out[k] = v;
  }
  return out;
}
