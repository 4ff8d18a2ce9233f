import { z } from 'zod';
import { controlRuns } from '../../core/background/control';
import { anyCommandHints } from './annotations';
import { callContext } from './callContext';
import { defineTool } from './define';

/**
 * The background runs shell_execute started (background: true): list them, stop one (its whole process tree), or
 * send input to one started with openInput. Reading their output is readOutput's (a read, asked by nobody); this
 * tool's hints are the command tools': input runs through the command it is sent to.
 */
export default defineTool({
  name: 'shell_background',
  title: 'Control background commands',
  description: () => 'List background commands (no id), or stop one (its whole tree) or send it input. Output: readOutput.',
  inputSchema: {
    id: z.string().optional(),
    stop: z.boolean().optional(),
    input: z.string().optional(),
    closeInput: z.boolean().optional(),
  },
  outputSchema: {
    outcome: z.enum(['ok', 'denied', 'failed']),
    message: z.string(),
    runs: z.array(z.object({
      id: z.string(), stages: z.array(z.array(z.string())), cwd: z.string(), isolation: z.string(), startedAt: z.number(), running: z.boolean(),
      elapsedMs: z.number(), outputBytes: z.number().int(), readBytes: z.number().int(), inputOpen: z.boolean(), ports: z.array(z.number().int()).optional(),
      end: z.object({
        outcome: z.string(), exitCode: z.number().int().nullable(), signal: z.string().nullable(), durationMs: z.number(), stoppedBy: z.string().optional(), error: z.string().optional(),
      }).optional(),
      lastLines: z.array(z.string()),
    })),
    approvedBy: z.string().optional(),
    denial: z.object({ code: z.string(), message: z.string(), rule: z.string() }).optional(),
  },
  annotations: anyCommandHints,
  run: async (args, env, extra) => {
    const r = await controlRuns(env.commands, callContext('shell_background', extra), {
      ...(args.id !== undefined && { id: args.id }),
      ...(args.stop !== undefined && { stop: args.stop }),
      ...(args.input !== undefined && { input: args.input }),
      ...(args.closeInput !== undefined && { closeInput: args.closeInput }),
    });
    const text = r.denial ? `Denied (${r.denial.code}, rule ${r.denial.rule}): ${r.denial.message}` : r.error ? `Error (${r.error.code}): ${r.error.message}` : r.message;
    return {
      content: [{ type: 'text', text }],
      structuredContent: { outcome: r.outcome, message: text, runs: r.runs ?? [], ...(r.approvedBy && { approvedBy: r.approvedBy }), ...(r.denial && { denial: r.denial }) },
      isError: r.outcome !== 'ok',
    };
  },
});
