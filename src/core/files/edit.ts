import * as fs from 'node:fs';
import { ToolError } from '../errors';
import { atomicWrite } from './atomicWrite';
import { writeBackup } from './backup';
import { diffHasChanges, unifiedDiff } from './diffText';
import { locateFile, readInside, relativeTo } from './locate';
import { runFileChange } from './pipeline';
import { decodeText, MAX_TEXT_FILE_BYTES } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

/** Turns the current text into the proposed text; throws a ToolError (nothing is written) when it cannot. */
export type TextTransform = (original: string, signal?: AbortSignal) => string | Promise<string>;

/**
 * The shared edit transaction of editFile, applyPatch and replaceInFile:
 * 1. compute the proposed text from the current text (sed / patch / replace) — nothing on disk changes;
 * 2. build the unified diff of exactly those two strings and let the approver see it;
 * 3. check the file still holds the bytes the diff was made from (else: nothing written);
 * 4. reserve the next numbered backup `file.bkN` exclusively and fill it with the old bytes;
 * 5. atomically replace the file with the proposed bytes, keeping its permission bits;
 * 6. with `editDeleteBackup`, remove the backup.
 * A failure before step 4 leaves no backup; a failure in step 5 keeps the backup for recovery.
 */
export function runTextEdit(deps: FileDeps, call: FileCall, file: string, transform: TextTransform): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const policy = deps.policy();
    const target = locateFile(policy.root, file);
    if (target.stats.size > MAX_TEXT_FILE_BYTES) {
      throw new ToolError('BAD_REQUEST', `"${target.relative}" is ${target.stats.size} bytes, more than an edit loads (${MAX_TEXT_FILE_BYTES}).`, 'edit.too-large');
    }
    let originalBytes: Buffer;
    let original: string;
    let proposed: string;
    return {
      kind: 'edit',
      targets: [target],
      files: [target.relative],
      preview: async () => {
        originalBytes = readInside(policy.root, target.real);
        original = decodeText(originalBytes, target.relative);
        proposed = await transform(original, call.signal);
        const diff = unifiedDiff(target.relative, original, proposed);
        return { diff, original, proposed, unchanged: proposed === original };
      },
      apply: (preview) => {
        const diff = preview.diff!;
        if (proposed === original) {
          return { message: `No change: the edit leaves "${target.relative}" as it is; nothing was written and no backup was made.`, diff, changed: false, bytes: originalBytes.length };
        }
        const now = readInside(policy.root, target.real);
        if (!now.equals(originalBytes)) {
          throw new ToolError('IO_ERROR', `"${target.relative}" changed after the diff was made; nothing was written. Run the edit again.`, 'edit.changed-meanwhile');
        }
        const mode = fs.statSync(target.real).mode;
        const backupReal = writeBackup(target.real, originalBytes, mode);
        const backup = relativeTo(policy.root, backupReal);
        const newBytes = Buffer.from(proposed, 'utf8');
        try {
          atomicWrite({ root: policy.root, target: target.real, mode: mode & 0o7777 }, newBytes);
        } catch (e) {
          const err = e as ToolError;
          throw new ToolError(err.code ?? 'IO_ERROR', `${err.message} The file was not changed; the backup "${backup}" is kept.`, err.rule);
        }
        let backupDeleted = false;
        let note = `backup "${backup}"`;
        if (policy.editDeleteBackup) {
          try {
            fs.unlinkSync(backupReal);
            backupDeleted = true;
            note = `backup "${backup}" deleted (editDeleteBackup)`;
          } catch (e) {
            note = `the edit was applied, but deleting the backup "${backup}" failed: ${(e as Error).message}`;
          }
        }
        const what = diffHasChanges(diff) ? 'Edited' : 'Rewrote';
        return { message: `${what} "${target.relative}" (${newBytes.length} bytes); ${note}.`, diff, changed: true, backup, backupDeleted, bytes: newBytes.length };
      },
    };
  });
}
