import { ToolError } from '../errors';
import { guardFor } from '../paths/guard';
import { readRegular } from './fdops';
import { runFileRead } from './pipeline';
import { decodeText, MAX_TEXT_FILE_BYTES } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

export interface ReadFileInput {
  readonly file: string;
  /** First line to return, 1-based (default 1). */
  readonly offset?: number;
  /** Number of lines to return (default: all, up to the output cap). */
  readonly limit?: number;
}

/**
 * readFile: UTF-8 text inside the root, binary refused, an optional line window, and at most
 * `policy.outputLimitBytes` returned (cut at a line boundary, `truncated` set, so the agent can ask for the rest
 * with `offset`). The path is resolved and the file opened in ONE walk by descriptors (links followed inside
 * the root only), so nothing can be swapped between the check and the read; hidden paths and files with other
 * hard links are refused (src/core/paths/guard.ts).
 */
export function readFileTool(deps: FileDeps, call: FileCall, input: ReadFileInput): Promise<FileResult> {
  return runFileRead(deps, call, () => {
    const policy = deps.policy();
    const offset = input.offset ?? 1;
    if (!Number.isInteger(offset) || offset < 1) throw new ToolError('BAD_REQUEST', `offset must be a line number ≥ 1, got ${input.offset}.`, 'read.offset');
    if (input.limit !== undefined && (!Number.isInteger(input.limit) || input.limit < 1)) throw new ToolError('BAD_REQUEST', `limit must be a whole number ≥ 1, got ${input.limit}.`, 'read.limit');
    let read: ReturnType<typeof readRegular>;
    try {
      read = readRegular(guardFor(policy), input.file, { what: 'file', maxBytes: MAX_TEXT_FILE_BYTES });
    } catch (e) {
      if (e instanceof ToolError && e.rule === 'read.too-large') throw new ToolError('BAD_REQUEST', `${e.message} Use head/tail/grep through the shell tool.`, e.rule);
      throw e;
    }
    const relative = read.relative;
    const text = decodeText(read.bytes, relative);
    const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
    const window = lines.slice(offset - 1, input.limit === undefined ? undefined : offset - 1 + input.limit);
    let bytes = 0;
    let kept = 0;
    for (const line of window) {
      const size = Buffer.byteLength(line, 'utf8');
      if (bytes + size > policy.outputLimitBytes) break;
      bytes += size;
      kept++;
    }
    const content = window.slice(0, kept).join('');
    const truncated = kept < window.length;
    const last = offset - 1 + kept;
    const message = lines.length === 0
      ? `"${relative}" is empty.`
      : kept === 0 && window.length === 0
        ? `"${relative}" has ${lines.length} lines; offset ${offset} is past the end.`
        : `Lines ${offset}-${last} of ${lines.length} of "${relative}"${truncated ? ` (cut at ${policy.outputLimitBytes} bytes; continue with offset ${last + 1})` : ''}.`;
    return { message, files: [relative], content, bytes, totalLines: lines.length, truncated };
  });
}
