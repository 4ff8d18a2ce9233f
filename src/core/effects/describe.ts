import * as fs from 'node:fs';
import { unifiedDiff } from '../files/diffText';
import { tryDecodeText } from '../files/text';
import type { EffectFile, EffectStep } from './types';

/**
 * An effect as a person reads it: the list of files (what happened to each) and one unified diff, text files as
 * diffs, binary and large files named with their sizes, never dumped. What lands in `.git` (git's objects, index,
 * refs) is listed as a count, not shown. Bounded: past DIFF_BYTES the diff says how much more there is.
 */

/** A file is shown as a text diff up to this size (either side). */
export const DIFF_FILE_BYTES = 1024 * 1024;
/** The whole diff, at most (the card cuts after 2000 lines anyway). */
export const DIFF_BYTES = 2 * 1024 * 1024;
/** Files listed by name, at most; the rest are counted. */
export const LISTED_FILES = 500;

export interface Described {
  readonly files: readonly EffectFile[];
  /** Files not listed (past LISTED_FILES). */
  readonly more: number;
  readonly diff: string;
  /** Entries inside `.git` (git's own data), counted rather than listed. */
  readonly gitEntries: number;
  /** The single text file of the effect, for a diff editor: its current and proposed content. */
  readonly single?: { readonly path: string; readonly original: string; readonly proposed: string };
}

export function describeEffect(steps: readonly EffectStep[]): Described {
  const files: EffectFile[] = [];
  const parts: string[] = [];
  let size = 0;
  let omitted = 0;
  let gitEntries = 0;
  let more = 0;
  const renamedAway = new Set(steps.flatMap((s) => (s.op === 'write' && s.renamedFrom !== undefined ? [s.renamedFrom] : [])));
  const texts: { path: string; original: string; proposed: string }[] = [];
  const add = (text: string) => {
    if (size + text.length > DIFF_BYTES) {
      omitted++;
      return;
    }
    size += text.length;
    parts.push(text);
  };
  const list = (f: EffectFile) => {
    if (files.length < LISTED_FILES) files.push(f);
    else more++;
  };
  for (const s of steps) {
    if (s.op !== 'skip' && s.path.split('/').includes('.git')) {
      gitEntries++;
      continue;
    }
    switch (s.op) {
      case 'skip':
        list({ path: s.path, change: 'not applied', detail: s.why });
        add(`Not applied: ${s.path}: ${s.why}\n`);
        break;
      case 'mkdir':
        list({ path: s.path, change: 'folder created' });
        add(`New folder ${s.path}\n`);
        break;
      case 'link':
        list({ path: s.path, change: 'link created', detail: s.target });
        add(`Symbolic link ${s.path} -> ${s.target}\n`);
        break;
      case 'delete': {
        if (renamedAway.has(s.path)) break; // shown with its new name
        const b = s.before;
        if (b.kind === 'folder') {
          list({ path: s.path, change: 'folder deleted' });
          add(`Folder ${s.path} deleted\n`);
        } else if (b.kind === 'link') {
          list({ path: s.path, change: 'link deleted' });
          add(`Symbolic link ${s.path} deleted\n`);
        } else {
          list({ path: s.path, change: 'deleted' });
          const text = b.bytes && b.bytes.length <= DIFF_FILE_BYTES ? tryDecodeText(b.bytes) : undefined;
          add(text !== undefined ? unifiedDiff(s.path, text, '', { deleted: true }) : `Binary file ${s.path} deleted (${b.size} bytes)\n`);
        }
        break;
      }
      case 'write': {
        const b = s.before;
        if (s.renamedFrom !== undefined) {
          list({ path: s.path, change: 'renamed', detail: s.renamedFrom });
          add(`Renamed ${s.renamedFrom} -> ${s.path} (${s.size} bytes, unchanged)\n`);
          break;
        }
        list({ path: s.path, change: !b ? 'created' : s.contentChanged ? 'modified' : 'mode' });
        const modeLine = b && (b.mode & 0o777) !== s.mode ? `Mode of ${s.path}: ${octal(b.mode)} -> ${octal(s.mode)}\n` : '';
        if (b && !s.contentChanged) {
          add(modeLine);
          break;
        }
        if (!b && s.size === 0) {
          add(`New empty file ${s.path}\n`);
          break;
        }
        const after = s.size <= DIFF_FILE_BYTES ? fs.readFileSync(s.source) : undefined;
        const to = after && tryDecodeText(after);
        const from = !b ? '' : b.bytes && b.bytes.length <= DIFF_FILE_BYTES ? tryDecodeText(b.bytes) : undefined;
        if (to !== undefined && from !== undefined) {
          texts.push({ path: s.path, original: from, proposed: to });
          add(modeLine + unifiedDiff(s.path, from, to, { created: !b }));
        } else {
          add(`${modeLine}Binary file ${s.path}: ${b ? `${b.size} bytes -> ${s.size} bytes` : `created, ${s.size} bytes`}\n`);
        }
        break;
      }
    }
  }
  if (gitEntries) add(`git's internals: ${gitEntries} entr${gitEntries === 1 ? 'y' : 'ies'} in .git (objects, index, refs), applied as they are, not shown\n`);
  if (omitted) parts.push(`… ${omitted} more change${omitted === 1 ? '' : 's'} not shown (the diff is longer than ${DIFF_BYTES} bytes)\n`);
  const only = texts.length === 1 && files.length === 1 ? texts[0] : undefined;
  return { files, more, diff: parts.join(''), gitEntries, ...(only && { single: only }) };
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(3, '0');
}
