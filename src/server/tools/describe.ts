import { modeLabel } from '../../core/modes';
import type { Policy } from '../../core/policy';

/**
 * The part of a command tool's description that tells the agent what it may run and within which limits. Short:
 * tools/list goes with every model request. cmdshell says "as shell_execute" when both are offered.
 */
export function commandLimitsText(policy: Policy): string {
  const names = policy.allowCommands.length ? policy.allowCommands.join(' ') : '(none)';
  const patterns = policy.allowPatterns.length ? ` Name patterns: ${policy.allowPatterns.join(' ')}.` : '';
  const output =
    policy.outputLimitAction === 'keep'
      ? `a longer stream keeps its first and last ${Math.floor(policy.outputLimitBytes / 2)} bytes`
      : `a command writing more than ${policy.outputLimitBytes} bytes to a stream is stopped`;
  return [
    `Allowed: ${names}.${patterns}`,
    'No shells, interpreters or risky options (find -exec …).',
    `Timeout ${policy.defaultTimeoutSeconds} s (max ${policy.maxTimeoutSeconds} s); ${output}. Mode ${modeLabel(policy.mode)}.`,
  ].join(' ');
}

/** One short sentence for the descriptions when commands run without a sandbox (the details go in the instructions). */
export function isolationNote(kind: string): string {
  return kind === 'none' ? " No OS sandbox: commands run with the server's permissions." : '';
}
