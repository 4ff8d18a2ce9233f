import { modeLabel } from '../../core/modes';
import { unrunnableAllowlistEntries, type UnrunnableEntry } from '../../core/commands/unrunnable';
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

/** The part of every command tool's description that tells the agent what it may run and within which limits. */
export function commandLimitsText(policy: Policy): string {
  const never = new Set(unrunnableEntries(policy).map((u) => u.entry));
  const runnable = (list: readonly string[]) => list.filter((e) => !never.has(e));
  const names = runnable(policy.allowCommands).length ? runnable(policy.allowCommands).join(', ') : '(none)';
  const patterns = runnable(policy.allowPatterns).length ? ` Command-name patterns: ${runnable(policy.allowPatterns).join(', ')}.` : '';
  return [
    `Allowed commands: ${names}.${patterns}`,
    'Shells, interpreters and command wrappers are never allowed; dangerous options (find -exec, tar --to-command, git -c …) are refused.',
    `Timeout: ${policy.defaultTimeoutSeconds} s by default, at most ${policy.maxTimeoutSeconds} s. Output: the first ${policy.outputLimitBytes} bytes of each stream are kept.`,
    `Mode: ${modeLabel(policy.mode)}. Paths stay inside the workspace.`,
  ].join(' ');
}
