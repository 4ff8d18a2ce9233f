import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../core/approval';
import type { Policy } from '../core/policy';
import type { ServerContext } from './context';
import { cmdshellDescription, CMDSHELL, registerCmdshell } from './tools/cmdshell';
import { registerShellExecute, SHELL_EXECUTE, shellExecuteDescription } from './tools/shellExecute';
import { registerFileTools } from './tools/fileTools';

export const SERVER_NAME = 'guarded-shell';

/**
 * One MCP server (one per client session; all sessions share the context). Tools named in `disableTools` are
 * never registered. When the policy changes, tool descriptions (allowlist, limits) are refreshed and clients are
 * told the tool list changed.
 */
export function createServer(ctx: ServerContext, sessionApprover?: (server: McpServer) => Approver | undefined): { server: McpServer; dispose: () => void } {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Guarded Shell', version: ctx.version },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions:
        'Guarded Shell runs allowlisted commands as argv (no shell) and edits files inside one workspace. Every call is checked by the same rules, may need a person\'s approval, and is audited. Prefer replaceInFile/editFile for edits: they show a diff before anything is written.',
    },
  );
  const approver = (): Approver => sessionApprover?.(server) ?? ctx.defaultApprover;
  const deps = ctx.commandDeps(approver);
  const disabled = new Set(ctx.policy.disableTools);
  const described: Array<{ tool: RegisteredTool; describe: (p: Policy) => string }> = [];
  if (!disabled.has(SHELL_EXECUTE)) described.push({ tool: registerShellExecute(server, deps), describe: shellExecuteDescription });
  if (!disabled.has(CMDSHELL)) described.push({ tool: registerCmdshell(server, deps), describe: cmdshellDescription });
  registerFileTools(server, ctx, approver, disabled);

  const unsubscribe = ctx.onPolicyChange((policy) => {
    for (const { tool, describe } of described) tool.update({ description: describe(policy) });
  });
  return { server, dispose: unsubscribe };
}
