import { ToolError } from '../errors';
import { detectLineEnding, withLineEnding } from './text';

/**
 * replaceInFile's transform: exact (not regex) search and replace, every occurrence, with the number of
 * occurrences checked against what the agent expected — a wrong count means the agent's picture of the file is
 * wrong, so nothing is changed. In a CRLF file, line breaks in oldText/newText are taken as CRLF so the match
 * and the result keep the file's endings.
 */
export function replaceExact(original: string, oldText: string, newText: string, expectedReplacements = 1): string {
  if (oldText.length === 0) throw new ToolError('BAD_REQUEST', 'oldText is empty; give the exact text to replace.', 'replace.empty');
  if (!Number.isInteger(expectedReplacements) || expectedReplacements < 1) {
    throw new ToolError('BAD_REQUEST', `expectedReplacements must be a whole number ≥ 1, got ${expectedReplacements}.`, 'replace.count');
  }
  const ending = detectLineEnding(original);
  const find = ending === 'crlf' ? withLineEnding(oldText, 'crlf') : oldText;
  const put = ending === 'crlf' ? withLineEnding(newText, 'crlf') : newText;
  const parts = original.split(find);
  const found = parts.length - 1;
  if (found !== expectedReplacements) {
    const hint = found === 0 ? ' Check white space, indentation and line breaks: the match is exact.' : ' Give more surrounding text to pick one, or set expectedReplacements.';
    throw new ToolError('BAD_REQUEST', `oldText occurs ${found} time${found === 1 ? '' : 's'} in the file, expected ${expectedReplacements}.${hint} Nothing was written.`, 'replace.count-mismatch');
  }
  return parts.join(put);
}
