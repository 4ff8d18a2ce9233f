import { z } from 'zod';
import { runCommand } from '../../core/commands/run';
import { modeAnswer } from '../../core/modes';
import type { Policy } from '../../core/policy';
import { disabledTools } from '../../core/toolNames';
import { READ_ONLY_COMMAND_HINTS } from './annotations';
import { callContext } from './callContext';
import { commandOutputShape, toToolResult, sessionNotes } from './commandResult';
import { defineTool } from './define';

/**
 * A command tool that is honestly read-only: it runs only commands known to be read-only (the classification the
 * mode table's "run a command known to be read-only" uses, src/core/commands/rules/readonly.ts) and refuses
 * anything else. So it can say readOnlyHint: VS Code runs it without its own confirmation, and in confirmChanges
 * Guarded Shell runs it without a card — one tool for looking around, no prompt at all.
 */
export default defineTool({
  name: 'shell_readonly',
  title: 'Run a read-only command',
  description: (policy) =>
    [
      `Run a command known to only read (ls, cat, grep, find, git log …)${modeAnswer(policy.mode, 'readOnlyCommand') === 'allow' ? ' without any approval' : ', after the user approves it'}; argv as in shell_execute, no ">".`,
      `Anything else is refused: use ${otherTool(policy)}.`,
    ].join(' '),
  inputSchema: {
    command: z.array(z.string()).min(1),
    directory: z.string().optional(),
  },
  outputSchema: commandOutputShape,
  annotations: READ_ONLY_COMMAND_HINTS,
  actions: ['readOnlyCommand'],
  run: async (args, env, extra) => {
    const policy = env.commands.policy();
    const r = await runCommand(
      {
        command: args.command,
        ...(args.directory !== undefined && { directory: args.directory }),
        readOnlyOnly: { tool: 'shell_readonly', instead: otherTool(policy) },
      },
      env.commands,
      callContext('shell_readonly', extra),
    );
    return toToolResult(r, { commandName: args.command[0] ?? '', ...sessionNotes(env, r) });
  },
});

/** The tool a refused command should go to: shell_execute, or cmdshell when only that one is offered. */
function otherTool(policy: Policy): string {
  const off = disabledTools(policy.disableTools);
  if (!off.has('shell_execute')) return 'shell_execute';
  if (!off.has('cmdshell')) return 'cmdshell';
  return 'a command tool (none other is enabled here)';
}
