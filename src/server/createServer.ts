import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../core/approval';
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
      instructions:
        "Guarded Shell runs allowlisted commands as argv (no shell) and edits files inside one workspace. Every call is checked by the same rules, may need a person's approval, and is audited. Prefer replaceInFile/editFile for edits: they show a diff before anything is written.",
    },
  );
  const approver = (): Approver => sessionApprover?.(server) ?? ctx.defaultApprover;
  return { server, dispose: registerTools(server, ctx, approver) };
}
