import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/**
 * Edits the line diff may look for before it gives up and shows the change as a whole-file replacement. Myers'
 * algorithm costs about (edits)² here, on the event loop every client shares: 400 keeps a 20,000-line rewrite at a
 * few tens of milliseconds instead of minutes. A change with more edits than this is hardly reviewed hunk by hunk.
 */
export const MAX_DIFF_EDITS = 400;

/**
 * The unified diff shown to the approver and returned to the agent. It is computed from exactly the two strings
 * the write uses (old content read, new content written), so what is previewed is what lands. Past
 * MAX_DIFF_EDITS it is one hunk replacing every old line by every new one: still exact, in linear time.
 */
export function unifiedDiff(relative: string, before: string, after: string, options: { created?: boolean; deleted?: boolean } = {}): string {
  const oldName = options.created ? '/dev/null' : `a/${relative}`;
  const newName = options.deleted ? '/dev/null' : `b/${relative}`;
  if (editsAtLeast(before, after) > MAX_DIFF_EDITS) return replacementDiff(oldName, newName, before, after);
  const patch = createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY, maxEditLength: MAX_DIFF_EDITS });
  return patch ?? replacementDiff(oldName, newName, before, after);
}

/**
 * A lower bound of the line edits between two texts, in linear time: every line of one side without a partner on
 * the other must be deleted or inserted. When it is past the limit, the diff would give up anyway, after
 * tokenizing everything: skip it.
 */
function editsAtLeast(before: string, after: string): number {
  const count = new Map<string, number>();
  for (const l of lines(before)) count.set(l, (count.get(l) ?? 0) + 1);
  let unmatched = 0;
  for (const l of lines(after)) {
    const n = count.get(l);
    if (n) count.set(l, n - 1);
    else unmatched++;
  }
  for (const n of count.values()) unmatched += n;
  return unmatched;
}

/** The whole old text removed and the whole new text added, in the format jsdiff writes. */
export function replacementDiff(oldName: string, newName: string, before: string, after: string): string {
  const a = lines(before);
  const b = lines(after);
  const out = [`--- ${oldName}`, `+++ ${newName}`, `@@ -${range(a.length)} +${range(b.length)} @@`];
  for (const l of a) out.push('-' + l);
  if (a.length && !before.endsWith('\n')) out.push('\\ No newline at end of file');
  for (const l of b) out.push('+' + l);
  if (b.length && !after.endsWith('\n')) out.push('\\ No newline at end of file');
  return out.join('\n') + '\n';
}

function lines(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  if (text.endsWith('\n')) parts.pop();
  return parts;
}

const range = (n: number) => (n === 0 ? '0,0' : n === 1 ? '1' : `1,${n}`);

/** True when a diff has at least one hunk (createTwoFilesPatch always writes the two header lines). */
export function diffHasChanges(diff: string): boolean {
  return /^@@ /m.test(diff);
}

/** What the agent reads of a diff: a summary line and the first hunks, within `maxChars`. */
export function diffForAgent(diff: string, maxChars = 8000): { text: string; cut: boolean } {
  if (diff.length <= maxChars) return { text: diff, cut: false };
  let added = 0;
  let removed = 0;
  let hunks = 0;
  // Only lines after the first hunk header count: an added line "++ x" reads "+++ x" and is not a file header.
  let inHunks = false;
  for (const l of diff.split('\n')) {
    if (l.startsWith('@@ ')) {
      hunks++;
      inHunks = true;
    } else if (inHunks && l.startsWith('+')) added++;
    else if (inHunks && l.startsWith('-')) removed++;
  }
  const head = diff.slice(0, maxChars);
  const kept = head.slice(0, head.lastIndexOf('\n') + 1);
  const shownLines = kept.split('\n').length - 1;
  const totalLines = diff.split('\n').length - 1;
  return {
    text: `${kept}[… diff cut for the answer: ${totalLines - shownLines} more lines; the whole change is +${added} −${removed} lines in ${hunks} hunk${hunks === 1 ? '' : 's'}. The approval request showed all of it.]\n`,
    cut: true,
  };
}
