import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Approver, ApprovalRequest } from '../../core/approval';
import { describeApproval } from '../../shared/approvalText';
import { alwaysRuleProblem } from '../../shared/approvalPanel/alwaysRule';

const REMEMBER_TEXT = { once: 'Only this call', session: 'This exact command, until the server stops', always: 'Always: save the rule below to the config file' } as const;
import type { ServerContext } from '../context';

/**
 * Approval through MCP elicitation (standalone server): the client shows the question to its user and returns
 * the answer. Only when the client declared the elicitation capability; otherwise undefined (the default
 * approver — "unavailable" standalone — applies). The wait is bounded by the policy's approval timeout.
 */
export function elicitationApprover(server: McpServer, ctx: ServerContext): Approver | undefined {
  const capabilities = server.server.getClientCapabilities();
  if (!capabilities?.elicitation) return undefined;
  return {
    kind: 'elicitation',
    approve: async (request, signal, call) => {
      const timeoutMs = ctx.policy.approvalTimeoutSeconds * 1000;
      try {
        const command = request.command !== undefined;
        // Commands also offer "this session" and, where the server keeps rules (the config file), "always" with a
        // rule the person may edit; the rule must cover this command (checked here and again by run.ts).
        const options = command ? ['once', 'session', ...(ctx.rules ? ['always'] : [])] : ['once'];
        const answer = await server.server.elicitInput(
          {
            message: approvalText(request),
            requestedSchema: {
              type: 'object',
              properties: {
                approve: { type: 'boolean', title: 'Approve', description: 'Run / apply exactly this?' },
                reason: { type: 'string', title: 'Reason (optional, sent back to the agent when denied)' },
                ...(options.length > 1 && {
                  remember: {
                    type: 'string', title: 'Remember', enum: options, default: 'once',
                    enumNames: options.map((o) => REMEMBER_TEXT[o as keyof typeof REMEMBER_TEXT]),
                  },
                }),
                ...(ctx.rules && command && { rule: { type: 'string', title: 'Rule to save with "always" (an exact command line, or a prefix ending in " *")', default: request.rules?.[request.rules.length - 1] ?? request.key } }),
              },
              required: ['approve'],
            },
          },
          // On the call's own response stream (approval.ts ApprovalCall), never only on the optional standalone one.
          { timeout: timeoutMs, ...(signal && { signal }), ...withRelated(call?.relatedRequestId) },
        );
        const approved = answer.action === 'accept' && answer.content?.approve === true;
        const reason = typeof answer.content?.reason === 'string' && answer.content.reason ? answer.content.reason : undefined;
        const remember = approved && options.includes(String(answer.content?.remember)) ? (String(answer.content?.remember) as 'once' | 'session' | 'always') : 'once';
        if (remember === 'always') {
          const rule = typeof answer.content?.rule === 'string' && answer.content.rule.trim() ? answer.content.rule.trim() : request.key;
          const problem = alwaysRuleProblem(request, rule);
          // A rule that does not cover the command is not saved; the approval stands for this call only.
          return problem ? { approved, by: 'elicitation', option: 'once' } : { approved, by: 'elicitation', option: 'always', rule };
        }
        return { approved, by: 'elicitation', option: remember, ...(reason && { reason }) };
      } catch (e) {
        const timedOut = /timed? ?out/i.test((e as Error).message);
        return { approved: false, by: timedOut ? 'timeout' : 'elicitation', reason: timedOut ? 'Nobody approved the request in time.' : `Approval failed: ${(e as Error).message}` };
      }
    },
  };
}

/** The question as plain text: the same words the VS Code side uses (every argv element quoted). */
export function approvalText(r: ApprovalRequest): string {
  const { message, detail } = describeApproval(r, 'workspace');
  return `${message}\n${detail}`;
}

function withRelated(id: RequestId | undefined): { relatedRequestId?: RequestId } {
  return id === undefined ? {} : { relatedRequestId: id };
}
