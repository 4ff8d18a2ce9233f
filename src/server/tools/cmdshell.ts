import { z } from 'zod';
import { exampleCall, offers } from '../../core/offers';
import { runCommand } from '../../core/commands/run';
import { anyCommandHints } from './annotations';
import { callContext } from './callContext';
import { commandOutputShape, toToolResult, sessionNotes } from './commandResult';
import { defineTool } from './define';
import { commandLimitsText } from './describe';

/** cmdshellmcp's tool: a command name and its argument list. Same pipeline as shell_execute. */
export default defineTool({
  name: 'cmdshell',
  title: 'Run a command (cmdshellmcp form)',
  description: (policy) => {
    const example = exampleCall(policy);
    return [
      `Run an allowlisted command with its arguments${example ? `, e.g. command "${example[0]}", args ${JSON.stringify(example.slice(1))}` : ''}. No shell: no globs, pipes or redirects.`,
      offers(policy, 'shell_execute') ? 'Allowlist and limits as shell_execute.' : commandLimitsText(policy),
    ].join(' ');
  },
  inputSchema: {
    command: z.string().min(1).describe('Command name.'),
    args: z.array(z.string()).default([]).describe('One element per argument.'),
  },
  outputSchema: commandOutputShape,
  annotations: anyCommandHints,
  // Piping is not supported by design in cmdshellmcp: every argument is data, even a lone "|" or ">".
  run: async (args, env, extra) => {
    const r = await runCommand({ command: [args.command, ...args.args], literal: true }, env.commands, callContext('cmdshell', extra));
    return toToolResult(r, { commandName: args.command, ...sessionNotes(env, r) }, env.place);
  },
});
