import { isToolError, ToolError } from '../errors';
import { ask } from '../verdict';
import { resolveInside, type ResolvedPath } from '../paths/confine';
import { guardFor, type PathGuard } from '../paths/guard';
import { hashOf, type StoredFile } from './backupStore';
import { unifiedDiff } from './diffText';
import { planChangeable, readRegular, removeAt, writeAt, type Seen } from './fdops';
import { runFileChange, type ChangePreview } from './pipeline';
import { MAX_TEXT_FILE_BYTES, tryDecodeText } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

/**
 * Undo of one earlier change from the backup store (`editBackup: storage`): a file change like any other, on the
 * same pipeline (the mode decides, an approval card may show it, the audit records it). Its diff goes from the
 * current content to the kept previous content; a file that changed since that change (its bytes are not the
 * ones the change left) is named in the diff, so the person approving sees that later work would be lost. What
 * the preview read must still be there when it is applied (fdops), and Undo keeps its own backup: it can be
 * undone in turn.
 */

/** The audit's tool name for an Undo (it is not an MCP tool: only the person, through the history, asks for it). */
export const UNDO_TOOL = 'undo';

export function undoChange(deps: FileDeps, call: FileCall, input: { readonly requestId: string }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const policy = deps.policy();
    const g = guardFor(policy);
    if (policy.editBackup !== 'storage') throw new ToolError('BAD_REQUEST', `Undo needs editBackup "storage" (it is "${policy.editBackup}").`, 'undo.no-store');
    const entry = deps.backups?.()?.get(input.requestId);
    if (!entry) throw new ToolError('PATH_NOT_FOUND', 'No backup of that change is kept (the store drops its oldest entries); nothing was changed.', 'undo.no-backup');
    const targets = entry.files.map((f) => resolveInside(policy.root, f.file, { what: 'file' }));
    for (const t of targets) {
      if (t.danglingLink) throw new ToolError('BAD_REQUEST', `"${t.relative}" is a symbolic link to a missing file; it is not written through.`, 'undo.dangling-link');
      planChangeable(g, t);
    }
    let now: (Seen | undefined)[] = [];
    // Later changes to the same files (an edit, another command) would be lost: a person confirms it on the card,
    // in every mode that can ask (in auto too); where nobody can be asked it is refused.
    const later = entry.files.filter((f, i) => changedSince(f, current(g, targets[i]!))).map((f) => f.file);
    const checks = later.length
      ? [ask('undo.changed-since', `Undoing ${entry.tool} (${entry.id}) also discards later changes to ${later.map((f) => `"${f}"`).join(', ')}: confirm on the card.`)]
      : [];
    return {
      kind: 'undo',
      targets,
      files: targets.map((t) => t.relative),
      audit: { undoes: entry.id, ...(later.length && { changed_since: later }) },
      checks,
      preview: (): ChangePreview => {
        now = targets.map((t) => current(g, t));
        const parts = entry.files.map((f, i) => describe(targets[i]!.relative, f, now[i]));
        const texts = entry.files.map((f, i) => ({ from: textOf(now[i]?.bytes ?? null), to: textOf(f.before) }));
        const single = texts.length === 1 && texts[0]!.from !== undefined && texts[0]!.to !== undefined;
        return {
          diff: parts.join(''),
          unchanged: entry.files.every((f, i) => same(f.before, now[i]?.bytes ?? null)),
          ...(single && { original: texts[0]!.from, proposed: texts[0]!.to }),
        };
      },
      keep: () => entry.files.map((f, i) => ({ file: targets[i]!.relative, before: now[i]?.bytes ?? null, ...(now[i] && { mode: now[i]!.mode }), after: f.before })),
      apply: (preview) => {
        const done: string[] = [];
        entry.files.forEach((f, i) => {
          const t = targets[i]!;
          const seen = now[i];
          if (same(f.before, seen?.bytes ?? null)) return;
          if (f.before === null) {
            if (!readRegular(g, t.real, { decided: true, maxBytes: MAX_TEXT_FILE_BYTES }).bytes.equals(seen!.bytes)) {
              throw new ToolError('IO_ERROR', `"${t.relative}" changed after the diff was made; nothing more was undone.`, 'undo.changed-meanwhile');
            }
            removeAt(g, t.real, 'file', seen!.id);
            done.push(`removed "${t.relative}"`);
          } else {
            const mode = f.mode ?? seen?.mode;
            writeAt(g, t.real, f.before, { what: 'file', expect: seen ? { kind: 'same', seen } : { kind: 'absent' }, ...(mode !== undefined && { mode }), mkdirs: true });
            done.push(`restored "${t.relative}" (${f.before.length} bytes)`);
          }
        });
        return { message: `Undid ${entry.tool} (${entry.id}): ${done.join(', ') || 'nothing to restore'}.`, changed: done.length > 0, ...(preview.diff !== undefined && { diff: preview.diff }) };
      },
    };
  });
}

/** The file as it is now, or undefined when it does not exist. */
function current(g: PathGuard, t: ResolvedPath): Seen | undefined {
  try {
    return readRegular(g, t.real, { decided: true, maxBytes: MAX_TEXT_FILE_BYTES }).seen;
  } catch (e) {
    if (isToolError(e) && e.code === 'PATH_NOT_FOUND') return undefined;
    throw e;
  }
}

/** The file is neither what the change left nor already its previous content: something changed it since. */
function changedSince(f: StoredFile, now: Seen | undefined): boolean {
  const bytes = now?.bytes ?? null;
  if (same(f.before, bytes)) return false;
  return (bytes === null ? null : hashOf(bytes)) !== f.afterHash;
}

function same(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

function textOf(bytes: Buffer | null): string | undefined {
  return bytes === null ? '' : tryDecodeText(bytes);
}

/** One file's part of the Undo diff: a warning when it changed since, then current → previous. */
function describe(relative: string, f: StoredFile, now: Seen | undefined): string {
  const bytes = now?.bytes ?? null;
  if (same(f.before, bytes)) return `"${relative}" already has its previous content.\n`;
  const changedSince = (bytes === null ? null : hashOf(bytes)) !== f.afterHash;
  const warning = changedSince
    ? `Warning: "${relative}" changed after that change was made (it is not what the change wrote); undoing replaces those later changes too.\n`
    : '';
  const from = textOf(bytes);
  const to = textOf(f.before);
  if (from === undefined || to === undefined) {
    const size = (b: Buffer | null) => (b === null ? 'no file' : `${b.length} bytes`);
    return `${warning}Binary file ${relative}: ${size(bytes)} now, ${size(f.before)} restored\n`;
  }
  return warning + unifiedDiff(relative, from, to, { created: bytes === null, deleted: f.before === null });
}
