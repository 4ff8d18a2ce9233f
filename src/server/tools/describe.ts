import { modeLabel } from '../../core/modes';
import { unrunnableAllowlistEntries, type UnrunnableEntry } from '../../core/commands/unrunnable';
import { domainList } from '../../core/network/domains';
import type { Policy } from '../../core/policy';

const unrunnable = new WeakMap<Policy, readonly UnrunnableEntry[]>();

/** Allowlist entries that can never run (`bash`, a pattern that only matches interpreters), once per policy. */
export function unrunnableEntries(policy: Policy): readonly UnrunnableEntry[] {
  let found = unrunnable.get(policy);
  if (!found) unrunnable.set(policy, (found = unrunnableAllowlistEntries(policy)));
  return found;
}

/** One line for the log at start and on a settings change, when the allowlist holds entries that can never run. */
export function unrunnableNote(policy: Policy): string | undefined {
  const found = unrunnableEntries(policy);
  return found.length ? `allowlist entries that can never run (not offered to the agent): ${found.map((u) => `${u.entry} (${u.reason})`).join('; ')}` : undefined;
}

/**
 * The part of a command tool's description that tells the agent what it may run and within which limits. Short:
 * tools/list goes with every model request. cmdshell says "as shell_execute" when both are offered.
 */
export function commandLimitsText(policy: Policy): string {
  const never = new Set(unrunnableEntries(policy).map((u) => u.entry));
  const runnable = (list: readonly string[]) => list.filter((e) => !never.has(e));
  const names = runnable(policy.allowCommands).length ? runnable(policy.allowCommands).join(' ') : '(none)';
  const patterns = runnable(policy.allowPatterns).length ? ` Name patterns: ${runnable(policy.allowPatterns).join(' ')}.` : '';
  const output =
    policy.outputLimitAction === 'keep'
      ? `a longer stream keeps its first and last ${Math.floor(policy.outputLimitBytes / 2)} bytes`
      : `a command writing more than ${policy.outputLimitBytes} bytes to a stream is stopped`;
  return [
    `Allowed: ${names}.${patterns}`,
    'No shells, interpreters or risky options (find -exec …).',
    `Timeout ${policy.defaultTimeoutSeconds} s (max ${policy.maxTimeoutSeconds} s); ${output}. Mode ${modeLabel(policy.mode)}.`,
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

/** One short sentence for the descriptions when commands run without a sandbox (the details go in the instructions). */
export function isolationNote(kind: string): string {
  return kind === 'none' ? " No OS sandbox: commands run with the server's permissions." : '';
}
