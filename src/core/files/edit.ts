import * as path from 'node:path';
import { ToolError } from '../errors';
import { guardFor } from '../paths/guard';
import { diffHasChanges, unifiedDiff } from './diffText';
import { planChangeable, readRegular, removeAt, writeAt, type Seen } from './fdops';
import { locateFile } from './locate';
import { runFileChange } from './pipeline';
import { decodeText, MAX_TEXT_FILE_BYTES } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

/** Turns the current text into the proposed text; throws a ToolError (nothing is written) when it cannot. */
export type TextTransform = (original: string, signal?: AbortSignal) => string | Promise<string>;

/**
 * The shared edit transaction of editFile, applyPatch and replaceInFile:
 * 1. read the file by descriptor, recording its identity and bytes, and compute the proposed text;
 * 2. build the unified diff of exactly those two strings and let the approver see it;
 * 3. re-walk the path by descriptor: the file must still be that identity with those bytes (else: nothing);
 * 4. reserve the next numbered backup `file.bkN` in the same folder (O_EXCL, by descriptor), fill it;
 * 5. atomically replace the file (temp + rename in the checked folder), keeping its permission bits but never
 *    setuid/setgid;
 * 6. with `editDeleteBackup`, remove the backup.
 * With `editBackup: none` steps 4 and 6 are skipped: the file is replaced and nothing else is written. With
 * `editBackup: storage` they are skipped too, and the previous bytes go to the store outside the workspace first
 * (pipeline.ts keepBackup).
 * A failure before step 4 leaves no backup; a failure in step 5 keeps the backup for recovery.
 */
export function runTextEdit(deps: FileDeps, call: FileCall, file: string, transform: TextTransform): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const policy = deps.policy();
    const g = guardFor(policy);
    const target = locateFile(policy.root, file);
    if (target.stats.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolError('BAD_REQUEST', `"${target.relative}" is ${target.stats.size} bytes, more than an edit loads (${MAX_TEXT_FILE_BYTES}).`, 'edit.too-large');
    }
    planChangeable(g, target);
    let seen: Seen;
    let original: string;
    let proposed: string;
    return {
      kind: 'edit',
      targets: [target],
      files: [target.relative],
      preview: async () => {
        seen = readRegular(g, target.real, { decided: true, maxBytes: MAX_TEXT_FILE_BYTES }).seen;
        original = decodeText(seen.bytes, target.relative);
        proposed = await transform(original, call.signal);
        const diff = unifiedDiff(target.relative, original, proposed);
        return { diff, original, proposed, unchanged: proposed === original };
      },
      keep: () => [{ file: target.relative, before: seen.bytes, mode: seen.mode, after: Buffer.from(proposed, 'utf8') }],
      apply: (preview) => {
        const diff = preview.diff!;
        if (proposed === original) {
          return { message: `No change: the edit leaves "${target.relative}" as it is; nothing was written and no backup was made.`, diff, changed: false, bytes: seen.bytes.length };
        }
        const newBytes = Buffer.from(proposed, 'utf8');
        const keepBackup = policy.editBackup === 'numbered';
        const what = diffHasChanges(diff) ? 'Edited' : 'Rewrote';
        let written: { backup?: string };
        try {
          written = writeAt(g, target.real, newBytes, { what: 'file', expect: { kind: 'same', seen }, mode: seen.mode, backup: keepBackup });
        } catch (e) {
          const err = e as ToolError;
          if (err.rule === 'write.changed-meanwhile') throw new ToolError('IO_ERROR', `"${target.relative}" changed after the diff was made; nothing was written. Run the edit again.`, 'edit.changed-meanwhile');
          throw e;
        }
        if (!keepBackup) {
          const note = policy.editBackup === 'none' ? '; no backup (editBackup: none)' : '';
          return { message: `${what} "${target.relative}" (${newBytes.length} bytes)${note}.`, diff, changed: true, bytes: newBytes.length };
        }
        const backup = path.posix.join(path.posix.dirname(target.relative), written.backup!);
        let backupDeleted = false;
        let note = `backup "${backup}"`;
        if (policy.editDeleteBackup) {
          try {
            removeAt(g, path.join(path.dirname(target.real), written.backup!), 'file');
            backupDeleted = true;
            note = `backup "${backup}" deleted (editDeleteBackup)`;
          } catch (e) {
            note = `the edit was applied, but deleting the backup "${backup}" failed: ${(e as Error).message}`;
          }
        }
        return { message: `${what} "${target.relative}" (${newBytes.length} bytes); ${note}.`, diff, changed: true, backup, backupDeleted, bytes: newBytes.length };
      },
    };
  });
}
