import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../../core/approval';
import { neverAllowed } from '../../core/modes';
import type { Policy } from '../../core/policy';
import type { ServerContext } from '../context';
import { serveCachedToolList, toolDescription, toolSchemas } from '../toolCatalog';
import applyPatch from './applyPatch';
import cmdshell from './cmdshell';
import copyFile from './copyFile';
import type { ToolDef, ToolEnv } from './define';
import deleteFile from './deleteFile';
import editFile from './editFile';
import fetch from './fetch';
import listFiles from './listFiles';
import mkdir from './mkdir';
import moveRenameFile from './moveRenameFile';
import readFile from './readFile';
import replaceInFile from './replaceInFile';
import rmdir from './rmdir';
import shellExecute from './shellExecute';
import writeFile from './writeFile';

/** THE tool registry: every tool the server can offer (test/unit/server: exactly TOOL_NAMES). */
export const TOOLS: readonly ToolDef[] = [
  shellExecute, cmdshell, readFile, listFiles, writeFile, copyFile, moveRenameFile, deleteFile, mkdir, rmdir, editFile, applyPatch, replaceInFile, fetch,
] as unknown as readonly ToolDef[];

/** Why a tool is not offered under a policy, or undefined when it is. */
export function notOffered(def: Pick<ToolDef, 'name' | 'actions'>, policy: Policy): string | undefined {
  if (policy.disableTools.includes(def.name)) return 'disabled by disableTools';
  if (neverAllowed(policy.mode, policy.network, def.actions)) return 'never allowed by the current mode or network setting';
  return undefined;
}

/**
 * Registers every tool on one MCP server (one loop) and keeps the list true to the live policy: a tool that is
 * disabled, or that the mode or network can never allow (the change tools in readOnly, fetch with network deny),
 * is not offered; descriptions follow the policy; clients hear `notifications/tools/list_changed`.
 */
export function registerTools(server: McpServer, ctx: ServerContext, approver: () => Approver): () => void {
  const env: ToolEnv = { commands: ctx.commandDeps(approver), files: { policy: () => ctx.policy, approver, audit: ctx.audit } };
  // Schemas per process, descriptions per policy (toolCatalog.ts): a new session does no work another did already.
  const registered = TOOLS.map((def) => {
    const description = toolDescription(def, ctx.policy);
    const { input, output } = toolSchemas(def);
    const tool: RegisteredTool = server.registerTool(
      def.name,
      { title: def.title, description, inputSchema: input, outputSchema: output, annotations: { title: def.title, ...def.annotations } },
      async (args: unknown, extra: Parameters<ToolDef['run']>[2]) => {
        await ctx.ready; // the sandbox probe's answer, before any tool does anything (see ServerContext.ready)
        return def.run(args as never, env, extra);
      },
    );
    return { def, tool, description };
  });
  serveCachedToolList(server, registered);
  const apply = (policy: Policy) => {
    for (const r of registered) {
      const offered = notOffered(r.def, policy) === undefined;
      if (offered !== r.tool.enabled) {
        if (offered) r.tool.enable();
        else r.tool.disable();
      }
      const description = toolDescription(r.def, policy);
      if (description !== r.description) {
        r.description = description;
        r.tool.update({ description });
      }
    }
  };
  apply(ctx.policy);
  return ctx.onPolicyChange(apply);
}
