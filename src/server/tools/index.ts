import { randomUUID } from 'node:crypto';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../../core/approval';
import { disabledTools } from '../../core/toolNames';
import type { Policy } from '../../core/policy';
import { isolationOutcomeOf } from '../../core/isolationState';
import { notOffered } from '../../core/offers';
import { placeParts } from '../../core/output/place';
import type { ServerContext } from '../context';
import { serveCachedToolList, toolDescription, toolSchemas } from '../toolCatalog';
import { hintsAt, nonDefaultHints, type HintContext } from './annotations';
import applyPatch from './applyPatch';
import cmdshell from './cmdshell';
import copyFile from './copyFile';
import type { ToolDef, ToolEnv } from './define';
import deleteFile from './deleteFile';
import editFile from './editFile';
import fetch from './fetch';
import listFiles from './listFiles';
import mkdir from './mkdir';
import { isolationNote } from './describe';
import moveRenameFile from './moveRenameFile';
import readFile from './readFile';
import readOutput from './readOutput';
import replaceInFile from './replaceInFile';
import rmdir from './rmdir';
import shellBackground from './shellBackground';
import shellExecute from './shellExecute';
import shellReadonly from './shellReadonly';
import writeFile from './writeFile';

/** THE tool registry: every tool the server can offer (test/unit/server: exactly TOOL_NAMES). */
export const TOOLS: readonly ToolDef[] = [
  shellExecute, shellReadonly, cmdshell, readFile, listFiles, writeFile, copyFile, moveRenameFile, deleteFile, mkdir, rmdir, editFile, applyPatch, replaceInFile, fetch, readOutput, shellBackground,
] as unknown as readonly ToolDef[];

export { notOffered } from '../../core/offers';

/**
 * Registers every tool on one MCP server (one loop) and keeps the list true to the live policy: a tool that is
 * disabled, or that the mode or network can never allow (the change tools in readOnly, fetch with network deny),
 * is not offered; descriptions follow the policy; clients hear `notifications/tools/list_changed`.
 */
export function registerTools(server: McpServer, ctx: ServerContext, approver: () => Approver): () => void {
  let warned = false;
  const hinted = new Set<string>();
  const outputs = ctx.spill.session();
  // This session's key for its background runs: only it sees them, and they end with it.
  const session = randomUUID();
  const env: ToolEnv = {
    outputs,
    // Kept for readOutput only while readOutput is offered: no answer names a tool the agent cannot call.
    place: (parts) =>
      placeParts(parts, ctx.policy.outputBudgetBytes, (text) => (disabledTools(ctx.policy.disableTools).has('readOutput') ? undefined : outputs.keep(text, ctx.policy.root))),
    commands: ctx.commandDeps(approver, session),
    files: ctx.fileDeps(approver),
    warnOnce: (warning) => {
      if (!warning || warned) return undefined;
      warned = true;
      return warning;
    },
    hintOnce: (cause) => !hinted.has(cause) && Boolean(hinted.add(cause)),
  };
  // Descriptions per policy (toolCatalog.ts); the sandbox note goes where the limits are (shell_execute, or
  // cmdshell when it stands alone).
  const describe = (def: ToolDef, policy: Policy) => {
    const text = toolDescription(def, policy);
    return text.includes('Allowed: ') ? text + isolationNote(ctx.isolation.kind, policy) : text;
  };
  // Hints per policy and sandbox (annotations.ts): what the client decides its own prompts from.
  const hints = (def: ToolDef, policy: Policy) => nonDefaultHints(hintsAt(def.annotations, hintContext(ctx, policy)));
  // Schemas per process (toolCatalog.ts): a new session does no work another did already.
  const registered = TOOLS.map((def) => {
    const description = describe(def, ctx.policy);
    const annotations = hints(def, ctx.policy);
    // No outputSchema: see ToolDef.outputSchema. Annotations carry only the hints that differ from MCP's defaults.
    const tool: RegisteredTool = server.registerTool(
      def.name,
      { title: def.title, description, inputSchema: toolSchemas(def).input, annotations },
      async (args: unknown, extra: Parameters<ToolDef['run']>[2]) => {
        await ctx.ready; // the sandbox probe's answer, before any tool does anything (see ServerContext.ready)
        // Who calls, and whether it was told this tool only reads (then it asked nobody itself): for the approver.
        const name = server.server.getClientVersion()?.name;
        const client = name ? { name, readOnlyHint: hintsAt(def.annotations, hintContext(ctx, ctx.policy)).readOnlyHint } : undefined;
        // The call's request id reaches an elicitation approver through the call context (callContext.ts), not an
        // AsyncLocalStorage: on Node 20 one turns on async hooks for the whole process, a cost on every promise.
        return def.run(args as never, env, client ? { ...extra, client } : extra);
      },
    );
    // The SDK marks every tool `execution: {taskSupport: "forbidden"}`, which is MCP's default when absent: 40
    // bytes per tool in every tools/list for nothing. Absent, the SDK runs the tool the same way.
    tool.execution = undefined;
    return { def, tool, description, hintsKey: JSON.stringify(annotations) };
  });
  serveCachedToolList(server, registered);
  const apply = (policy: Policy) => {
    for (const r of registered) {
      const offered = notOffered(r.def.name, policy) === undefined;
      if (offered !== r.tool.enabled) {
        if (offered) r.tool.enable();
        else r.tool.disable();
      }
      const description = describe(r.def, policy);
      const annotations = hints(r.def, policy);
      const hintsKey = JSON.stringify(annotations);
      if (description !== r.description || hintsKey !== r.hintsKey) {
        r.description = description;
        r.hintsKey = hintsKey;
        r.tool.update({ description, annotations });
      }
    }
  };
  apply(ctx.policy);
  // The sandbox note and the open-world hint depend on the probe, which may answer after this session opened.
  void ctx.ready.then(() => apply(ctx.policy));
  const unsubscribe = ctx.onPolicyChange(apply);
  return () => {
    unsubscribe();
    outputs.close();
    void ctx.background.endSession(session);
  };
}

/** The hints' inputs now: the policy and what the current sandbox does to a command. */
function hintContext(ctx: ServerContext, policy: Policy): HintContext {
  return { policy, isolation: isolationOutcomeOf(ctx.isolation) };
}
