import { z } from 'zod';
import { readOutputTool } from '../../core/output/read';
import { callContext } from './callContext';
import { defineTool, READS } from './define';

/**
 * Reads, in pages, an output an earlier answer could not show whole (kept for the session: src/core/output/spill.ts).
 * Its answer is text only, no structuredContent: every client hands text to the model when there is nothing
 * else, so this is the one way to the bytes that works whatever the client reads. The first text block is exactly
 * the page; the second says where it is and where the next page starts.
 */
export default defineTool({
  name: 'readOutput',
  title: 'Read a kept output',
  description: (policy) =>
    `Read, in pages of up to ${policy.outputBudgetBytes} bytes, an output a result did not show whole (the result names its id). Follow "next".`,
  inputSchema: {
    id: z.string().min(1),
    offset: z.number().int().min(0).optional().describe('Byte position.'),
    length: z.number().int().min(1).optional(),
  },
  annotations: READS,
  run: async (args, env, extra) => {
    const r = await readOutputTool(env.files, callContext('readOutput', extra), env.outputs, {
      id: args.id,
      ...(args.offset !== undefined && { offset: args.offset }),
      ...(args.length !== undefined && { length: args.length }),
    });
    if (r.outcome !== 'ok' || !r.page) {
      const problem = r.denial ? `Denied (${r.denial.code}, rule ${r.denial.rule}): ${r.denial.message}` : `Error (${r.error?.code ?? 'IO_ERROR'}): ${r.error?.message ?? r.message}`;
      return { content: [{ type: 'text', text: problem }], isError: true };
    }
    return { content: [{ type: 'text', text: r.page.text }, { type: 'text', text: r.message }] };
  },
});
