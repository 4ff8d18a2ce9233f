import { modeLabel } from '../../core/modes';
import { unrunnableEntries } from '../../core/offers';
import type { Policy } from '../../core/policy';

export { unrunnableEntries };

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
  // "keep" (the default) runs on and keeps head and tail: the answer's own marks say so. "kill" stops the command.
  const output = policy.outputLimitAction === 'kill' ? `; a command writing more than ${policy.outputLimitBytes} bytes to a stream is stopped` : '';
  return [
    `Allowed: ${names}.${patterns}`,
    'No shells, interpreters, or options that run programs or write files.',
    `Timeout ${policy.defaultTimeoutSeconds} s (max ${policy.maxTimeoutSeconds} s)${output}. Mode ${modeLabel(policy.mode)}.`,
  ].join(' ');
}

/** One short sentence for the descriptions when commands run without a sandbox (the details go in the instructions). */
export function isolationNote(kind: string): string {
  return kind === 'none' ? " No OS sandbox: commands run with the server's permissions." : '';
}
