import * as fs from 'node:fs';
import { attempt } from '../attempt';
import { ToolError } from '../errors';
import { bytesText } from '../output/budget';
import { jsonCost, prefixWithin } from '../output/jsonCost';
import { pageAt } from '../output/page';
import { closeQuietly } from '../paths/fdpath';
import { guardFor } from '../paths/guard';
import { openForRead } from '../paths/open';
import { runFileRead } from './pipeline';
import { looksBinary } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

export interface ReadFileInput {
  readonly file: string;
  /** First line to return, 1-based (default 1). */
  readonly offset?: number;
  /** Number of lines to return (default: as many as the page holds). */
  readonly limit?: number;
  /** Start at this byte position instead of a line (0-based): for a line longer than a page. */
  readonly byteOffset?: number;
  /** Most bytes to return (default and maximum: the output budget). */
  readonly length?: number;
}

const CHUNK = 1024 * 1024;
const NL = 0x0a;
const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * readFile: one page of a UTF-8 text file inside the root, within the output budget (`outputBudgetBytes`,
 * measured as sent), whatever the file's size: the file is read through one descriptor in chunks, never whole.
 * Pages end on a line boundary (the answer says which line to continue with); a line longer than a page is read
 * in byte pages (`byteOffset`). Binary files are refused (a NUL byte in the first 8 KiB, or a page that is not
 * UTF-8). The path is resolved and the file opened in ONE walk by descriptors (links followed inside the root
 * only), so nothing can be swapped between the check and the read; hidden paths and files with other hard links
 * are refused (src/core/paths/guard.ts).
 */
export function readFileTool(deps: FileDeps, call: FileCall, input: ReadFileInput): Promise<FileResult> {
  return runFileRead(deps, call, () => {
    const policy = deps.policy();
    const budget = policy.outputBudgetBytes;
    checkInput(input);
    const o = openForRead(guardFor(policy), input.file, { what: 'file' });
    try {
      const size = Number(o.st.size);
      const read = (at: number, length: number): Buffer => {
        const buf = Buffer.alloc(Math.max(0, Math.min(length, size - at)));
        let got = 0;
        while (got < buf.length) {
          const n = fs.readSync(o.fd, buf, got, buf.length - got, at + got);
          if (n === 0) break;
          got += n;
        }
        return buf.subarray(0, got);
      };
      if (looksBinary(read(0, 8192))) throw binary(o.relative);
      const length = Math.min(input.length ?? budget, budget);
      const base = { files: [o.relative], size };
      if (input.byteOffset !== undefined) {
        const page = pageAt({ total: size, read }, input.byteOffset, length, budget);
        if (attempt(() => fatal.decode(read(page.offset, page.bytes))) === undefined) throw binary(o.relative);
        const end = page.offset + page.bytes;
        const message = size === 0 ? `"${o.relative}" is empty.` : `Bytes ${page.offset}-${end - 1} of ${size} of "${o.relative}"${page.next !== undefined ? `; continue with byteOffset ${page.next}` : ''}.`;
        return { ...base, message, content: page.text, bytes: page.bytes, byteOffset: page.offset, truncated: page.next !== undefined, ...(page.next !== undefined && { nextByteOffset: page.next }) };
      }
      return linePage(o.relative, size, read, input.offset ?? 1, input.limit, length, budget, base);
    } finally {
      closeQuietly(o.fd);
    }
  });
}

function checkInput(input: ReadFileInput): void {
  const whole = (v: number | undefined, min: number) => v === undefined || (Number.isInteger(v) && v >= min);
  if (!whole(input.offset, 1)) throw new ToolError('BAD_REQUEST', `offset must be a line number ≥ 1, got ${input.offset}.`, 'read.offset');
  if (!whole(input.limit, 1)) throw new ToolError('BAD_REQUEST', `limit must be a whole number ≥ 1, got ${input.limit}.`, 'read.limit');
  if (!whole(input.byteOffset, 0)) throw new ToolError('BAD_REQUEST', `byteOffset must be a byte position ≥ 0, got ${input.byteOffset}.`, 'read.byte-offset');
  if (!whole(input.length, 1)) throw new ToolError('BAD_REQUEST', `length must be a whole number of bytes ≥ 1, got ${input.length}.`, 'read.length');
  if (input.byteOffset !== undefined && (input.offset !== undefined || input.limit !== undefined)) {
    throw new ToolError('BAD_REQUEST', 'byteOffset selects bytes; offset and limit select lines: give one or the other.', 'read.byte-offset');
  }
}

const binary = (relative: string) => new ToolError('BAD_REQUEST', `"${relative}" is a binary file (or not valid UTF-8 text); text tools cannot read or edit it.`, 'file.binary');

/** Lines of a file: where line `offset` starts, and how many lines there are (a last line without "\n" counts). */
function scanLines(size: number, read: (at: number, length: number) => Buffer, offset: number): { start: number | undefined; total: number } {
  let line = 1;
  let start: number | undefined = offset === 1 ? 0 : undefined;
  let lastByte = -1;
  for (let at = 0; at < size; at += CHUNK) {
    const buf = read(at, CHUNK);
    if (buf.length === 0) break;
    for (let i = buf.indexOf(NL); i >= 0; i = buf.indexOf(NL, i + 1)) {
      line++;
      if (line === offset) start = at + i + 1;
    }
    lastByte = buf[buf.length - 1]!;
  }
  const total = size === 0 ? 0 : line - (lastByte === NL ? 1 : 0);
  return { start: start !== undefined && start < size ? start : undefined, total };
}

function linePage(
  relative: string, size: number, read: (at: number, length: number) => Buffer, offset: number, limit: number | undefined, length: number, budget: number,
  base: { files: string[]; size: number },
): Omit<FileResult, 'outcome'> {
  const { start, total } = scanLines(size, read, offset);
  if (size === 0) return { ...base, message: `"${relative}" is empty.`, content: '', bytes: 0, totalLines: 0, truncated: false };
  if (start === undefined) return { ...base, message: `"${relative}" has ${total} lines; offset ${offset} is past the end.`, content: '', bytes: 0, totalLines: total, truncated: false };
  let bytes = read(start, length);
  // The lines asked for (limit), then the page's room: cut at the last line end that fits.
  let lines = 0;
  let cutAt = -1;
  for (let i = bytes.indexOf(NL); i >= 0; i = bytes.indexOf(NL, i + 1)) {
    lines++;
    cutAt = i + 1;
    if (limit !== undefined && lines === limit) break;
  }
  const atEnd = start + bytes.length === size;
  if (limit !== undefined && lines === limit) bytes = bytes.subarray(0, cutAt);
  else if (!atEnd && cutAt > 0) bytes = bytes.subarray(0, cutAt);
  let text = attempt(() => fatal.decode(bytes));
  if (text === undefined && cutAt <= 0 && !atEnd) {
    // One line longer than the page: its first part, as a byte page (which ends on a character).
    const page = pageAt({ total: size, read }, start, length, budget);
    text = attempt(() => fatal.decode(read(page.offset, page.bytes)));
    if (text === undefined) throw binary(relative);
    return longLine(relative, offset, total, page.offset, page.bytes, text, base);
  }
  if (text === undefined) throw binary(relative);
  if (cutAt <= 0 && !atEnd) return longLine(relative, offset, total, start, bytes.length, text, base);
  // Escapes can make the page cost more than its bytes: keep the whole lines that fit.
  if (jsonCost(text) > budget) {
    const fit = text.slice(0, prefixWithin(text, budget));
    const nl = fit.lastIndexOf('\n');
    text = nl >= 0 ? fit.slice(0, nl + 1) : fit;
    if (nl < 0) return longLine(relative, offset, total, start, Buffer.byteLength(text, 'utf8'), text, base);
  }
  const shownLines = text === '' ? 0 : (text.match(/\n/g)?.length ?? 0) + (text.endsWith('\n') ? 0 : 1);
  const last = offset - 1 + shownLines;
  const more = last < total && (limit === undefined || shownLines < limit);
  const message = `Lines ${offset}-${last} of ${total} of "${relative}" (${bytesText(size)} bytes)${more ? `; cut at the output budget: continue with offset ${last + 1}` : ''}.`;
  return { ...base, message, content: text, bytes: Buffer.byteLength(text, 'utf8'), totalLines: total, byteOffset: start, truncated: more, ...(more && { nextOffset: last + 1 }) };
}

function longLine(relative: string, line: number, total: number, start: number, bytes: number, text: string, base: { files: string[]; size: number }): Omit<FileResult, 'outcome'> {
  const next = start + bytes;
  return {
    ...base,
    message: `Line ${line} of ${total} of "${relative}" is longer than one page: bytes ${start}-${next - 1} of the file shown; continue with byteOffset ${next}.`,
    content: text, bytes, totalLines: total, byteOffset: start, truncated: true, nextByteOffset: next,
  };
}
