import { ToolError } from '../errors';
import { attempt } from '../attempt';

/**
 * Text handling shared by every file tool: what counts as text, and how line endings are kept. Edits work on
 * strings, so a file must decode as UTF-8 exactly (a lossy decode would silently change bytes on write-back).
 */

/** Largest file an edit (sed, patch, replace) or readFile loads into memory. */
export const MAX_TEXT_FILE_BYTES = 16 * 1024 * 1024;

// `fatal` refuses invalid UTF-8 instead of inserting U+FFFD; `ignoreBOM` keeps a BOM so it round-trips.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A NUL byte in the first 8 KiB is how git and grep tell binary from text; we use the same test. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8192);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** Decodes a whole file as UTF-8, or undefined when it is binary or not valid UTF-8. */
export function tryDecodeText(bytes: Uint8Array): string | undefined {
  if (looksBinary(bytes)) return undefined;
  return attempt(() => decoder.decode(bytes));
}

/** Like tryDecodeText, but a clear BAD_REQUEST naming the file when it is not text. */
export function decodeText(bytes: Uint8Array, relative: string): string {
  const text = tryDecodeText(bytes);
  if (text === undefined) {
    throw new ToolError('BAD_REQUEST', `"${relative}" is a binary file (or not valid UTF-8 text); text tools cannot read or edit it.`, 'file.binary');
  }
  return text;
}

export type LineEnding = 'crlf' | 'lf';

/** CRLF only when every line break is CRLF; a mixed file is treated byte-for-byte (no conversion). */
export function detectLineEnding(text: string): LineEnding {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  if (crlf === 0) return 'lf';
  const lf = (text.match(/\n/g) ?? []).length;
  return crlf === lf ? 'crlf' : 'lf';
}

/** CRLF → LF (used before handing a CRLF file to a line tool such as sed, so `$` anchors work). */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/** Every line break as the given ending (bare LF and CRLF alike become CRLF for a CRLF file). */
export function withLineEnding(text: string, ending: LineEnding): string {
  return ending === 'crlf' ? text.replace(/\r?\n/g, '\r\n') : text;
}
