import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/**
 * The unified diff shown to the approver and returned to the agent. It is computed from exactly the two strings
 * the write uses (old content read, new content written), so what is previewed is what lands.
 */
export function unifiedDiff(relative: string, before: string, after: string, options: { created?: boolean; deleted?: boolean } = {}): string {
  const oldName = options.created ? '/dev/null' : `a/${relative}`;
  const newName = options.deleted ? '/dev/null' : `b/${relative}`;
  return createTwoFilesPatch(oldName, newName, before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
}

/** True when a diff has at least one hunk (createTwoFilesPatch always writes the two header lines). */
export function diffHasChanges(diff: string): boolean {
  return /^@@ /m.test(diff);
}
