import { z } from 'zod';
import { runCommand } from '../../core/commands/run';
import { commandsOnlyRead, modeAnswer } from '../../core/modes';
import { firstOffered, offers, readOnlyExamples } from '../../core/offers';
import type { Policy } from '../../core/policy';
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
  description: (policy) => {
    const examples = readOnlyExamples(policy);
    const other = otherTool(policy);
    return [
      `Run a command known to only read${examples.length ? ` (${examples.join(', ')} …)` : ''}${modeAnswer(policy.mode, 'readOnlyCommand') === 'allow' ? ' with no approval' : ', after the user approves it'}; argv ${offers(policy, 'shell_execute') ? 'as in shell_execute' : '(program, then arguments)'}, no ">".`,
      other ? `Anything else is refused (use ${other}).` : 'Anything else is refused.',
    ].join(' ');
  },
  inputSchema: {
    command: z.array(z.string()).min(1),
    directory: z.string().optional(),
  },
  outputSchema: commandOutputShape,
  annotations: READ_ONLY_COMMAND_HINTS,
  run: async (args, env, extra) => {
    const policy = env.commands.policy();
    const other = otherTool(policy);
    const r = await runCommand(
      {
        command: args.command,
        ...(args.directory !== undefined && { directory: args.directory }),
        // The refusal names the tool to use instead only when one could run it (not in mode readOnly).
        readOnlyOnly: { tool: 'shell_readonly', ...(other && { instead: other }) },
      },
      env.commands,
      callContext('shell_readonly', extra),
    );
    return toToolResult(r, { commandName: args.command[0] ?? '', ...sessionNotes(env, r) }, env.place);
  },
});

/**
 * The tool a command that is not read-only should go to: shell_execute, or cmdshell when only that one is offered.
 * None when the mode runs only read-only commands (readOnly) or no other command tool is offered.
 */
function otherTool(policy: Policy): string | undefined {
  if (commandsOnlyRead(policy.mode)) return undefined;
  return firstOffered(policy, ['shell_execute', 'cmdshell']);
}
