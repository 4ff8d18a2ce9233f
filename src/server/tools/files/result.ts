import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FetchResult } from '../../../core/fetch/run';
import { diffForAgent } from '../../../core/files/diffText';
import type { FileResult } from '../../../core/files/types';

const problem = { code: z.string(), message: z.string(), rule: z.string().optional() };

/** The structured result of every file tool (zod, so the SDK checks what we send and clients see a schema). */
export const fileOutputShape = {
  outcome: z.enum(['ok', 'denied', 'failed']),
  message: z.string(),
  files: z.array(z.string()),
  bytes: z.number().int().optional(),
  content: z.string().optional(),
  totalLines: z.number().int().optional(),
  entries: z.array(z.string()).optional(),
  truncated: z.boolean().optional(),
  diff: z.string().optional(),
  /** The diff in this answer is cut (summary + first hunks); the approval request had all of it. */
  diffTruncated: z.boolean().optional(),
  changed: z.boolean().optional(),
  backup: z.string().optional(),
  backupDeleted: z.boolean().optional(),
  /** editBackup storage: the previous content was kept outside the workspace (VS Code's history can undo it). */
  undoable: z.boolean().optional(),
  approvedBy: z.string().optional(),
  denial: z.object(problem).optional(),
  error: z.object(problem).optional(),
};

export const fetchOutputShape = {
  outcome: z.enum(['ok', 'denied', 'failed', 'timeout']),
  message: z.string(),
  url: z.string(),
  finalUrl: z.string().optional(),
  status: z.number().int().optional(),
  statusText: z.string().optional(),
  contentType: z.string().optional(),
  body: z.string().optional(),
  bytes: z.number().int().optional(),
  truncated: z.boolean().optional(),
  prettified: z.boolean().optional(),
  redirects: z.array(z.string()).optional(),
  approvedBy: z.string().optional(),
  denial: z.object(problem).optional(),
  error: z.object(problem).optional(),
};

function problemText(r: { denial?: { code: string; message: string; rule: string } | undefined; error?: { code: string; message: string } | undefined; message: string }): string {
  if (r.denial) return `Denied (${r.denial.code}, rule ${r.denial.rule}): ${r.denial.message}`;
  if (r.error) return `Error (${r.error.code}): ${r.error.message}`;
  return `Error: ${r.message}`;
}

/** Text for the agent: the content itself for reads, the message and the diff for changes. */
export function toFileToolResult(full: FileResult, view: 'content' | 'entries' | 'change'): CallToolResult {
  // A change's diff is bounded in the answer: creating or deleting a 20,000-line file is not 229 KB for the model.
  const shown = full.diff !== undefined ? diffForAgent(full.diff) : undefined;
  const r: FileResult & { diffTruncated?: boolean } = shown?.cut ? { ...full, diff: shown.text, diffTruncated: true } : full;
  let text: string;
  if (r.outcome !== 'ok') {
    text = problemText(r) + (r.diff ? `\n\nThe change that was not applied:\n${r.diff}` : '');
  } else if (view === 'content') {
    text = (r.content ?? '') + (r.truncated ? `\n[${r.message}]` : '');
    if (text === '') text = `[${r.message}]`;
  } else if (view === 'entries') {
    text = (r.entries ?? []).join('\n') + (r.truncated ? `\n[${r.message}]` : '');
    if (text === '') text = `[${r.message}]`;
  } else {
    text = r.message + (r.diff ? `\n\n${r.diff}` : '');
  }
  return { content: [{ type: 'text', text }], structuredContent: r as unknown as Record<string, unknown>, isError: r.outcome !== 'ok' };
}

export function toFetchToolResult(r: FetchResult): CallToolResult {
  const text = r.outcome === 'ok' ? `${r.message}\n\n${r.body ?? ''}` : problemText(r);
  // An HTTP error status is a result, not a tool failure, but the agent should notice it.
  const isError = r.outcome !== 'ok' || (r.status !== undefined && r.status >= 400);
  return { content: [{ type: 'text', text }], structuredContent: r as unknown as Record<string, unknown>, isError };
}
