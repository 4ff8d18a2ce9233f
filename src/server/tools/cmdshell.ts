import { z } from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { runCommand, type CommandDeps } from '../../core/commands/run';
import type { Policy } from '../../core/policy';
import { callContext } from './callContext';
import { commandOutputShape, toToolResult } from './commandResult';
import { commandLimitsText } from './describe';

export const CMDSHELL = 'cmdshell';

/** cmdshellmcp's tool: a command name and its argument list. Same pipeline as shell_execute. */
export function cmdshellDescription(policy: Policy): string {
  return [
    'Run an allowlisted command with an argument list, e.g. command "ls", args ["-la"]; command "grep", args ["-R", "needle", "."].',
    'Arguments are passed as they are (no shell, no glob expansion).',
    commandLimitsText(policy),
  ].join(' ');
}

export function registerCmdshell(server: McpServer, deps: CommandDeps): RegisteredTool {
  return server.registerTool(
    CMDSHELL,
    {
      title: 'Run a command (cmdshellmcp form)',
      description: cmdshellDescription(deps.policy()),
      inputSchema: {
        command: z.string().min(1).describe('The command name; it must be on the allowlist.'),
        args: z.array(z.string()).default([]).describe('Arguments and flags, one element each.'),
      },
      outputSchema: commandOutputShape,
      annotations: { title: 'Run a command', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    async (args, extra) => {
      // Piping is not supported by design in cmdshellmcp: every argument is data, even a lone "|" or ">".
      const result = await runCommand({ command: [args.command, ...(args.args ?? [])], literal: true }, deps, callContext(CMDSHELL, extra));
      return toToolResult(result);
    },
  );
}
