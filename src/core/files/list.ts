import { guardFor } from '../paths/guard';
import { listAt } from './fdops';
import { runFileRead } from './pipeline';
import type { FileCall, FileDeps, FileResult } from './types';

/** More entries than this are cut (and `truncated` set): a listing is for reading, not for dumping a tree. */
export const MAX_LIST_ENTRIES = 2000;

/**
 * listFiles: one folder's entries, sorted by code point (stable across locales), folders with a trailing `/`
 * and symbolic links with a trailing `@` (so a link is never mistaken for what it points to). The folder is
 * found and read through one descriptor walk (a hidden folder is refused).
 */
export function listFilesTool(deps: FileDeps, call: FileCall, input: { readonly path?: string }): Promise<FileResult> {
  return runFileRead(deps, call, () => {
    const dir = listAt(guardFor(deps.policy()), input.path ?? '.');
    const names = dir.entries
      .map((d) => d.name + (d.isDirectory() ? '/' : d.isSymbolicLink() ? '@' : ''))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const truncated = names.length > MAX_LIST_ENTRIES;
    const entries = truncated ? names.slice(0, MAX_LIST_ENTRIES) : names;
    const message = `${names.length} entr${names.length === 1 ? 'y' : 'ies'} in "${dir.relative}"${truncated ? ` (first ${MAX_LIST_ENTRIES} shown)` : ''}.`;
    return { message, files: [dir.relative], entries, truncated };
  });
}
