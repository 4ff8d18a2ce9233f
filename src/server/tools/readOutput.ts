import { z } from 'zod';
import { readRun } from '../../core/background/read';
import { backgroundOffered } from '../../core/offers';
import { readOutputTool } from '../../core/output/read';
import { callContext } from './callContext';
import { defineTool, READS } from './define';

/** A background run's id (b1, b2 …); kept outputs are o1, o2 … */
const RUN_ID = /^b\d+$/;

/**
 * Reads, in pages, an output an earlier answer could not show whole (kept for the session: src/core/output/spill.ts),
 * or the new output of a background run (src/core/background/read.ts), waiting for a text or its end if asked.
 * Its answer is text only, no structuredContent: every client hands text to the model when there is nothing
 * else, so this is the one way to the bytes that works whatever the client reads. The first text block is exactly
 * the page (or the new output); the second says where it is and where to continue.
 */
export default defineTool({
  name: 'readOutput',
  title: 'Read a kept output',
  description: (policy) =>
    `Read, in pages of up to ${policy.outputBudgetBytes} bytes, an output a result did not show whole (the result names its id). Follow "next".` +
    (backgroundOffered(policy) ? ' A background id (b1): its new output; "wait" s for "until" text or its end.' : ''),
  inputSchema: {
    id: z.string().min(1),
    offset: z.number().int().min(0).optional().describe('Byte position.'),
    length: z.number().int().min(1).optional(),
    wait: z.number().min(0).optional(),
    until: z.string().optional(),
  },
  // Not idempotent: a background run's read moves its position (the next read shows what came after).
  annotations: { ...READS, idempotentHint: false },
  run: async (args, env, extra) => {
    const call = callContext('readOutput', extra);
    const bg = env.commands.background;
    const range = { ...(args.offset !== undefined && { offset: args.offset }), ...(args.length !== undefined && { length: args.length }) };
    if (bg && RUN_ID.test(args.id)) {
      const r = await readRun(env.files, call, bg, { id: args.id, ...range, ...(args.wait !== undefined && { wait: args.wait }), ...(args.until !== undefined && { until: args.until }) });
      if (r.outcome !== 'ok') return problem(r);
      return { content: [...(r.text ? [{ type: 'text' as const, text: r.text }] : []), { type: 'text', text: r.message }] };
    }
    const r = await readOutputTool(env.files, call, env.outputs, { id: args.id, ...range });
    if (r.outcome !== 'ok' || !r.page) return problem(r);
    return { content: [{ type: 'text', text: r.page.text }, { type: 'text', text: r.message }] };
  },
});

function problem(r: { denial?: { code: string; rule: string; message: string }; error?: { code: string; message: string }; message: string }) {
  const text = r.denial ? `Denied (${r.denial.code}, rule ${r.denial.rule}): ${r.denial.message}` : `Error (${r.error?.code ?? 'IO_ERROR'}): ${r.error?.message ?? r.message}`;
  return { content: [{ type: 'text' as const, text }], isError: true };
}
