import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver, ApprovalRequest } from '../../core/approval';
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
    approve: async (request, signal) => {
      const timeoutMs = ctx.policy.approvalTimeoutSeconds * 1000;
      try {
        const answer = await server.server.elicitInput(
          {
            message: approvalText(request),
            requestedSchema: {
              type: 'object',
              properties: {
                approve: { type: 'boolean', title: 'Approve', description: 'Run / apply exactly this?' },
                reason: { type: 'string', title: 'Reason (optional, sent back to the agent when denied)' },
              },
              required: ['approve'],
            },
          },
          { timeout: timeoutMs, ...(signal && { signal }) },
        );
        const approved = answer.action === 'accept' && answer.content?.approve === true;
        const reason = typeof answer.content?.reason === 'string' && answer.content.reason ? answer.content.reason : undefined;
        return { approved, by: 'elicitation', option: 'once', ...(reason && { reason }) };
      } catch (e) {
        const timedOut = /timed? ?out/i.test((e as Error).message);
        return { approved: false, by: timedOut ? 'timeout' : 'elicitation', reason: timedOut ? 'Nobody approved the request in time.' : `Approval failed: ${(e as Error).message}` };
      }
    },
  };
}

/** The question as plain text: every argv element quoted so spaces and odd characters are visible. */
export function approvalText(r: ApprovalRequest): string {
  const lines = [`Guarded Shell asks: allow ${r.tool}? (${r.reason || r.rule})`];
  if (r.command) {
    lines.push(`Command: ${r.command.stages.map((s) => s.map((a) => JSON.stringify(a)).join(' ')).join(' | ')}`);
    lines.push(`In: ${r.command.cwd}   Isolation: ${r.command.isolation}`);
    if (r.command.stdinFile) lines.push(`stdin from: ${r.command.stdinFile}`);
    if (r.command.stdoutFile) lines.push(`stdout ${r.command.stdoutFile.append ? 'appended' : 'written'} to: ${r.command.stdoutFile.path}`);
    if (r.command.stdinPreview !== undefined) lines.push(`stdin:\n${r.command.stdinPreview}`);
  }
  if (r.change) {
    lines.push(`Change (${r.change.kind}): ${r.change.files.join(' -> ')}`);
    if (r.change.diff) lines.push(r.change.diff);
  }
  if (r.fetch) lines.push(`Fetch: ${r.fetch.url}`);
  return lines.join('\n');
}
