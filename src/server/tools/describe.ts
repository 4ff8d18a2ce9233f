import { modeLabel } from '../../core/modes';
import { domainList } from '../../core/network/domains';
import { unrunnableEntries } from '../../core/offers';
import type { Policy } from '../../core/policy';

export { unrunnableEntries };

/** One line for the log at start and on a settings change, when the allowlist holds entries that can never run. */
export function unrunnableNote(policy: Policy, sandboxed = false): string | undefined {
  const found = unrunnableEntries(policy, sandboxed);
  return found.length ? `allowlist entries that cannot run without a sandbox (not offered to the agent; ${'allowUnsandboxedCode'} would run them with your own permissions): ${found.map((u) => `${u.entry} (${u.reason})`).join('; ')}` : undefined;
}

/**
 * The part of a command tool's description that tells the agent what it may run and within which limits. Short:
 * tools/list goes with every model request. cmdshell says "as shell_execute" when both are offered.
 */
export function commandLimitsText(policy: Policy): string {
  // Entries that run any code are named by the sandbox's sentence (isolationNote), which knows whether one is in force.
  const never = new Set(unrunnableEntries(policy).map((u) => u.entry));
  const runnable = (list: readonly string[]) => list.filter((e) => !never.has(e));
  const names = runnable(policy.allowCommands).length ? runnable(policy.allowCommands).join(' ') : '(none)';
  const patterns = runnable(policy.allowPatterns).length ? ` Name patterns: ${runnable(policy.allowPatterns).join(' ')}.` : '';
  const readOnly = policy.allowReadOnlyCommands.length ? ` Read-only forms only: ${policy.allowReadOnlyCommands.join(' ')}.` : '';
  // "keep" (the default) runs on and keeps head and tail: the answer's own marks say so. "kill" stops the command.
  const output = policy.outputLimitAction === 'kill' ? `; a command writing more than ${policy.outputLimitBytes} bytes to a stream is stopped` : '';
  return [
    `Allowed: ${names}.${patterns}${readOnly}`,
    `Timeout ${policy.defaultTimeoutSeconds} s (max ${policy.maxTimeoutSeconds} s)${output}. Mode ${modeLabel(policy.mode)}.`,
    ...(policy.network === 'domains' ? [networkText(policy)] : []),
  ].join(' ');
}

/** Hosts named in a description at most (tools/list travels with every model request). */
const DOMAINS_SHOWN = 8;

/** network: domains: which hosts a command may reach (the agent need not find out by trying), and how. */
function networkText(policy: Policy): string {
  const allowed = domainList(policy).allowed;
  const shown = allowed.slice(0, DOMAINS_SHOWN).join(' ');
  const more = allowed.length > DOMAINS_SHOWN ? ` and ${allowed.length - DOMAINS_SHOWN} more` : '';
  return allowed.length ? `Network: only ${shown}${more}, through the proxy in HTTP(S)_PROXY.` : 'Network: no host is allowed yet (network: domains).';
}

/**
 * The descriptions' sentence about the sandbox (the details go in the instructions): what runs inside it, or that
 * there is none and what that refuses.
 */
export function isolationNote(kind: string, policy: Policy): string {
  // The entries that need a sandbox (left out of "Allowed:", which is the same with and without one).
  const delegating = unrunnableEntries(policy).map((u) => u.entry);
  if (kind !== 'none') {
    return delegating.length
      ? ` Runs in an OS sandbox, where ${delegating.join(' ')} (any code) run too.`
      : ' Runs in an OS sandbox.';
  }
  if (policy.allowUnsandboxedCode) return ' No OS sandbox, interpreters allowed.';
  return ' No OS sandbox: interpreters, shells and workspace scripts are refused.';
}
