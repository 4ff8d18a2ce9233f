import { z } from 'zod';
import { runCommand } from '../../core/commands/run';
import { anyCommandHints } from './annotations';
import { callContext } from './callContext';
import { commandOutputShape, timeoutAdvice, timeoutNote, toToolResult, sessionNotes } from './commandResult';
import { defineTool } from './define';
import { commandLimitsText } from './describe';
import { commandExamples, redirectOffered } from '../../core/offers';

/** mcp-shell-server's tool: argv with optional `|`, `<`, `>`, `>>` elements, stdin, directory, timeout. */
export default defineTool({
  name: 'shell_execute',
  title: 'Run a command',
  description: (policy) => {
    const examples = commandExamples(policy);
    const operators = redirectOffered(policy) ? 'Pipes and redirects are' : 'Pipes are';
    return [
      'Run an allowlisted command as an argv array (no shell string) in the workspace.',
      `${operators} separate elements${examples.length ? `: ${examples.join(', ')}` : ''}.`,
      commandLimitsText(policy),
    ].join(' ');
  },
  inputSchema: {
    command: z.array(z.string()).min(1).describe('Program and arguments, one element each; "|", "<", ">", ">>" as elements.'),
    stdin: z.string().optional().describe('Standard input text.'),
    directory: z.string().optional().describe('Workspace-relative.'),
    timeout: z.number().positive().optional().describe('Seconds.'),
    envs: z.record(z.string(), z.string()).optional().describe('Environment values for this call: LANG, LC_*, TZ, TERM, COLUMNS, LINES, NO_COLOR and the git author/committer identity always; other names only if the server passes them through.'),
  },
  outputSchema: commandOutputShape,
  annotations: anyCommandHints,
  run: async (args, env, extra) => {
    const r = await runCommand(
        {
          command: args.command,
          ...(args.stdin !== undefined && { stdin: args.stdin }),
          ...(args.directory !== undefined && { directory: args.directory }),
          ...(args.timeout !== undefined && { timeoutSeconds: args.timeout }),
          ...(args.envs !== undefined && { env: args.envs }),
        },
        env.commands,
        callContext('shell_execute', extra),
      );
    const policy = env.commands.policy();
    const notes = [timeoutNote(args.timeout, policy), timeoutAdvice(args.timeout, r, policy)].filter((n): n is string => n !== undefined && r.outcome !== 'denied');
    return toToolResult(r, { commandName: args.command[0] ?? '', ...sessionNotes(env, r), ...(notes.length && { notes }) }, env.place);
  },
});
