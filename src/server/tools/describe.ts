import { modeLabel } from '../../core/modes';
import type { Policy } from '../../core/policy';

/** The part of every command tool's description that tells the agent what it may run and within which limits. */
export function commandLimitsText(policy: Policy): string {
  const names = policy.allowCommands.length ? policy.allowCommands.join(', ') : '(none)';
  const patterns = policy.allowPatterns.length ? ` Command-name patterns: ${policy.allowPatterns.join(', ')}.` : '';
  return [
    `Allowed commands: ${names}.${patterns}`,
    'Shells, interpreters and command wrappers are never allowed; dangerous options (find -exec, tar --to-command, git -c …) are refused.',
    `Timeout: ${policy.defaultTimeoutSeconds} s by default, at most ${policy.maxTimeoutSeconds} s. Output: the first ${policy.outputLimitBytes} bytes of each stream are kept.`,
    `Mode: ${modeLabel(policy.mode)}. Paths stay inside the workspace.`,
  ].join(' ');
}
