import { z } from 'zod';
import { runCommand } from '../../core/commands/run';
import { callContext } from './callContext';
import { commandOutputShape, toToolResult } from './commandResult';
import { defineTool } from './define';
import { commandLimitsText } from './describe';

/** cmdshellmcp's tool: a command name and its argument list. Same pipeline as shell_execute. */
export default defineTool({
  name: 'cmdshell',
  title: 'Run a command (cmdshellmcp form)',
  description: (policy) =>
    [
      'Run an allowlisted command with an argument list, e.g. command "ls", args ["-la"]; command "grep", args ["-R", "needle", "."].',
      'Arguments are passed as they are (no shell, no glob expansion).',
      commandLimitsText(policy),
    ].join(' '),
  inputSchema: {
    command: z.string().min(1).describe('The command name; it must be on the allowlist.'),
    args: z.array(z.string()).default([]).describe('Arguments and flags, one element each.'),
  },
  outputSchema: commandOutputShape,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  actions: ['readOnlyCommand'],
  // Piping is not supported by design in cmdshellmcp: every argument is data, even a lone "|" or ">".
  run: async (args, env, extra) => toToolResult(await runCommand({ command: [args.command, ...args.args], literal: true }, env.commands, callContext('cmdshell', extra))),
});
