import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../core/approval';
import { disabledTools } from '../core/toolNames';
import type { ServerContext } from './context';
import { registerTools } from './tools';

export const SERVER_NAME = 'guarded-shell';

/**
 * One MCP server (one per client session; all sessions share the context). The tool registry offers what the
 * live policy can allow and tells clients when that changes.
 */
export function createServer(ctx: ServerContext, sessionApprover?: (server: McpServer) => Approver | undefined): { server: McpServer; dispose: () => void } {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Guarded Shell', version: ctx.version },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: instructions(ctx),
    },
  );
  const approver = (): Approver => sessionApprover?.(server) ?? ctx.defaultApprover;
  return { server, dispose: registerTools(server, ctx, approver) };
}

/**
 * Said once per session (clients put it in the system prompt), so no result has to repeat it: what the server is,
 * how changes work, and the sandbox / root warning when there is one (also in the first command result).
 */
export function instructions(ctx: Pick<ServerContext, 'isolation' | 'policy'>): string {
  return [
    'Guarded Shell runs allowlisted commands as argv (no shell) and edits files inside one workspace.',
    "Every call is checked by the same rules, may need a person's approval, and is audited.",
    'Paths stay inside the workspace (symbolic links are judged by where they lead); .git internals, the server\'s own files and protected globs cannot be changed.',
    'File changes are shown as a unified diff before anything is written; the old content is kept as the next numbered backup (file.bk1, file.bk2 …) and the file is replaced atomically, keeping CRLF and a missing final newline.',
    'Prefer replaceInFile/editFile for edits. Results carry the details in structuredContent.',
    // The prompt-free way to look around (no client confirmation, no card in confirmChanges), when it is offered.
    ...(disabledTools(ctx.policy.disableTools).has('shell_readonly') ? [] : ['To look around (ls, cat, grep, git log …) prefer shell_readonly: it runs only read-only commands, which need no approval outside mode confirm.']),
    ...(ctx.isolation.warning ? [`Warning: ${ctx.isolation.warning}`] : []),
  ].join(' ');
}
