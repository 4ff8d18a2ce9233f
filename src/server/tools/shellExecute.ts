import { z } from 'zod';
import { runCommand } from '../../core/commands/run';
import { callContext } from './callContext';
import { commandOutputShape, toToolResult } from './commandResult';
import { defineTool } from './define';
import { commandLimitsText } from './describe';

/** mcp-shell-server's tool: argv with optional `|`, `<`, `>`, `>>` elements, stdin, directory, timeout. */
export default defineTool({
  name: 'shell_execute',
  title: 'Run a command',
  description: (policy) =>
    [
      'Run an allowlisted command as an argv array (never a shell string) inside the workspace.',
      'Pipelines and redirects are separate elements: ["grep","-n","TODO","src/a.ts","|","wc","-l"], ["sort","in.txt",">","out.txt"].',
      'Redirect targets stay inside the working directory. A non-zero exit returns isError with the output.',
      commandLimitsText(policy),
    ].join(' '),
  inputSchema: {
    command: z.array(z.string()).min(1).describe('The program and its arguments; "|", "<", ">", ">>" as separate elements make pipelines and redirects.'),
    stdin: z.string().optional().describe("Text written to the command's standard input."),
    directory: z.string().optional().describe('Working directory, relative to the workspace root (default: the root).'),
    timeout: z.number().positive().optional().describe('Seconds before the whole process tree is killed (capped by the server).'),
    envs: z.record(z.string(), z.string()).optional().describe('Environment overrides; only names the server allows are accepted.'),
  },
  outputSchema: commandOutputShape,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  actions: ['readOnlyCommand'],
  run: async (args, env, extra) =>
    toToolResult(
      await runCommand(
        {
          command: args.command,
          ...(args.stdin !== undefined && { stdin: args.stdin }),
          ...(args.directory !== undefined && { directory: args.directory }),
          ...(args.timeout !== undefined && { timeoutSeconds: args.timeout }),
          ...(args.envs !== undefined && { env: args.envs }),
        },
        env.commands,
        callContext('shell_execute', extra),
      ),
    ),
});
