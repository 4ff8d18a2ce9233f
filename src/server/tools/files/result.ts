import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FetchResult } from '../../../core/fetch/run';
import { diffForAgent } from '../../../core/files/diffText';
import type { FileResult } from '../../../core/files/types';
import { referenceLine, type PartOut } from '../../../core/output/place';
import type { Place } from '../commandResult';

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
  /** readFile: the file's size in bytes, and where the page starts in it. */
  size: z.number().int().optional(),
  byteOffset: z.number().int().optional(),
  /** readFile: where to continue (a line number for offset, or a byte position for byteOffset). */
  nextOffset: z.number().int().optional(),
  nextByteOffset: z.number().int().optional(),
  /** readOutput's id for the whole content / entries / diff when this answer's text does not repeat it. */
  contentId: z.string().optional(),
  entriesId: z.string().optional(),
  diffId: z.string().optional(),
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
  bodyId: z.string().optional(),
  approvedBy: z.string().optional(),
  denial: z.object(problem).optional(),
  error: z.object(problem).optional(),
};

function problemText(r: { denial?: { code: string; message: string; rule: string } | undefined; error?: { code: string; message: string } | undefined; message: string }): string {
  if (r.denial) return `Denied (${r.denial.code}, rule ${r.denial.rule}): ${r.denial.message}`;
  if (r.error) return `Error (${r.error.code}): ${r.error.message}`;
  return `Error: ${r.message}`;
}

/** The whole entries of a listing that fit the text shown for it (a cut listing keeps its first entries). */
function entriesShown(entries: readonly string[], part: PartOut): readonly string[] {
  if (!part.cut) return entries;
  const head = part.shown.slice(0, part.shown.indexOf('\n[… '));
  return head === '' ? [] : head.split('\n').slice(0, -1);
}

/**
 * A file tool's answer. Its one large part — the content read, the entries listed, or the diff — travels once,
 * in structuredContent, within the output budget; the text repeats it only when it is short and otherwise says
 * where it is (src/core/output/place.ts).
 */
export function toFileToolResult(full: FileResult, view: 'content' | 'entries' | 'change', place: Place): CallToolResult {
  // A change's diff is bounded in the answer: creating or deleting a 20,000-line file is not 229 KB for the model.
  const cutDiff = full.diff !== undefined ? diffForAgent(full.diff) : undefined;
  const r: FileResult & { diffTruncated?: boolean } = cutDiff?.cut ? { ...full, diff: cutDiff.text, diffTruncated: true } : full;
  const field = view === 'content' ? 'content' : view === 'entries' ? 'entries' : 'diff';
  const body = field === 'entries' ? (r.entries ?? []).join('\n') : ((field === 'content' ? r.content : r.diff) ?? '');
  const [part] = place([{ field, text: body }]) as [PartOut];
  const structured: Record<string, unknown> = { ...r };
  if (field === 'entries' && r.entries) {
    const shown = entriesShown(r.entries, part);
    structured.entries = shown;
    if (shown.length < r.entries.length) structured.truncated = true;
  } else if (body !== '') {
    structured[field] = part.shown;
  }
  if (part.id !== undefined) structured[`${field}Id`] = part.id;
  const repeated = body === '' ? '' : part.inText ? body : referenceLine(part);
  let text: string;
  if (r.outcome !== 'ok') {
    text = problemText(r) + (r.diff ? `\n\nThe change that was not applied:\n${repeated}` : '');
  } else if (view === 'change') {
    text = r.message + (repeated ? `\n\n${repeated}` : '');
  } else {
    const cut = r.truncated === true || structured.truncated === true;
    text = part.inText ? repeated + (cut ? `\n[${r.message}]` : '') : `[${r.message}]\n${repeated}`;
    if (text === '') text = `[${r.message}]`;
  }
  return { content: [{ type: 'text', text }], structuredContent: structured, isError: r.outcome !== 'ok' };
}

/** A fetch answer: the body travels once (structuredContent), as for the other tools. */
export function toFetchToolResult(r: FetchResult, place: Place): CallToolResult {
  const [part] = place([{ field: 'body', text: r.body ?? '' }]) as [PartOut];
  const structured: Record<string, unknown> = { ...r, ...(r.body !== undefined && { body: part.shown }), ...(part.id !== undefined && { bodyId: part.id }) };
  const body = r.body === undefined || r.body === '' ? '' : part.inText ? r.body : referenceLine(part);
  const text = r.outcome === 'ok' ? `${r.message}\n\n${body}` : problemText(r);
  // An HTTP error status is a result, not a tool failure, but the agent should notice it.
  const isError = r.outcome !== 'ok' || (r.status !== undefined && r.status >= 400);
  return { content: [{ type: 'text', text }], structuredContent: structured, isError };
}
