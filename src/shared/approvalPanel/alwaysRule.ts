import type { ApprovalRequest } from '../../core/approval';
import { parseRule, ruleCoversRequest } from '../../core/commands/commandRules';

/**
 * Why a rule a person typed for "Always allow" cannot be saved for this request, or undefined when it can: it must
 * parse, and it must cover the command the person is approving (a rule that does not would save something else
 * than what the card shows). The server checks the same again before it keeps the rule (run.ts alwaysRule).
 */
export function alwaysRuleProblem(request: ApprovalRequest, rule: string): string | undefined {
  const c = request.command;
  if (!c) return 'only commands can be always allowed';
  const parsed = parseRule(rule);
  if ('error' in parsed) return `"${rule}" is not a command rule: ${parsed.error}`;
  const command = { stages: c.stages, ...(c.stdinFile !== undefined && { stdinFile: c.stdinFile }), ...(c.stdoutFile && { stdoutFile: c.stdoutFile }) };
  if (!ruleCoversRequest(parsed.rule, command, request.key)) return `"${rule}" does not cover this command (${request.key}); edit it so that it does`;
  return undefined;
}
