import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { resolveInside, type ResolvedPath } from '../paths/confine';
import { guardFor, type PathGuard } from '../paths/guard';
import { closeQuietly, idOf } from '../paths/fdpath';
import { openForRead } from '../paths/open';
import { unifiedDiff } from './diffText';
import { metaOf, mkdirAt, moveAt, planChangeable, readRegular, removeAt, writeAt, type Expect, type Seen, type SeenMeta } from './fdops';
import { isLinkAsGiven, locateExisting, locateFile } from './locate';
import { runFileChange, type ChangePreview } from './pipeline';
import type { KeptFile } from './backupStore';
import { MAX_TEXT_FILE_BYTES, tryDecodeText } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

/**
 * copyFile, moveRenameFile, deleteFile, mkdir, rmdir — as in cmdshellmcp's newest version: regular files only
 * for copy/move/delete, empty folders only for rmdir, nothing overwritten unless asked. A path that IS a symbolic
 * link is refused for move and delete. Paths are decided by name (resolveInside) and used by descriptor
 * (fdops): the identity the plan or preview saw must still be there when the change is applied.
 */

/** Text previews are only built for files up to this size (the approver shows them). */
const PREVIEW_BYTES = 1024 * 1024;

/** What the preview saw of a file: its bytes (small text files) or only its identity. */
type Look = { seen: Seen; text: string | undefined } | { meta: SeenMeta };

function look(g: PathGuard, real: string, what: string): Look {
  const meta = metaOf(g, real, what);
  if (meta.size > PREVIEW_BYTES) return { meta };
  const { seen } = readRegular(g, real, { decided: true, what });
  return { seen, text: tryDecodeText(seen.bytes) };
}

/** A file's bytes for the backup store: what the preview read, or read now; undefined when too large to keep. */
function bytesFor(g: PathGuard, real: string, l: Look | undefined, what: string): Buffer | undefined {
  if (l && 'seen' in l) return l.seen.bytes;
  if (l && l.meta.size > MAX_TEXT_FILE_BYTES) return undefined;
  return readRegular(g, real, { decided: true, what, maxBytes: MAX_TEXT_FILE_BYTES }).bytes;
}

/** Every file's before/after for the store, or nothing (no Undo) when one of them is too large to keep. */
function keepAll(files: readonly (KeptFile | undefined)[]): readonly KeptFile[] {
  return files.every((f) => f !== undefined) ? (files as KeptFile[]) : [];
}

function modeOf(l: Look): number {
  return 'seen' in l ? l.seen.mode : l.meta.mode;
}

function expectOf(l: Look): Expect {
  return 'seen' in l ? { kind: 'same', seen: l.seen } : { kind: 'identity', id: l.meta.id };
}

function refuseLink(root: string, given: string, what: string, tool: string): void {
  if (isLinkAsGiven(root, given)) throw new ToolError('BAD_REQUEST', `The ${what} "${given}" is a symbolic link; ${tool} works on regular files only.`, 'path.is-link');
}

function destination(g: PathGuard, p: string, overwrite: boolean): { dest: ResolvedPath; replaces: boolean } {
  const dest = resolveInside(g.root, p, { what: 'destination' });
  if (dest.danglingLink) throw new ToolError('BAD_REQUEST', `The destination "${p}" is a symbolic link to a missing file; it is not written through.`, 'path.dangling-link');
  const st = dest.exists ? fs.statSync(dest.real) : undefined;
  if (st?.isDirectory()) throw new ToolError('BAD_REQUEST', `The destination "${dest.relative}" is a folder; give the full new file name.`, 'dest.is-folder');
  if (st && !st.isFile()) throw new ToolError('BAD_REQUEST', `The destination "${dest.relative}" is not a regular file.`, 'dest.not-regular');
  if (st && !overwrite) throw new ToolError('IO_ERROR', `The destination "${dest.relative}" already exists; pass overwrite: true to replace it.`, 'dest.exists');
  let folder = false;
  try {
    folder = fs.lstatSync(path.dirname(dest.real)).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder) throw new ToolError('PATH_NOT_FOUND', `The folder of "${dest.relative}" does not exist; create it with mkdir first.`, 'dest.no-folder');
  planChangeable(g, dest);
  return { dest, replaces: st !== undefined };
}

function sameFile(a: ResolvedPath, b: ResolvedPath): void {
  if (a.real === b.real) throw new ToolError('BAD_REQUEST', `Source and destination are the same file ("${a.relative}").`, 'dest.same');
}

export function copyFileTool(deps: FileDeps, call: FileCall, input: { source: string; destination: string; overwrite?: boolean }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const g = guardFor(deps.policy());
    const { root } = g;
    const src = locateFile(root, input.source, 'source');
    const { dest, replaces } = destination(g, input.destination, input.overwrite === true);
    sameFile(src, dest);
    let srcLook: Look;
    let destLook: Look | undefined;
    return {
      kind: 'copy',
      targets: [dest],
      files: [src.relative, dest.relative],
      preview: (): ChangePreview => {
        srcLook = look(g, src.real, 'source');
        destLook = replaces ? look(g, dest.real, 'destination') : undefined;
        const proposed = 'seen' in srcLook ? srcLook.text : undefined;
        const original = destLook === undefined ? '' : 'seen' in destLook ? destLook.text : undefined;
        if (proposed === undefined || original === undefined) return {};
        return { diff: unifiedDiff(dest.relative, original, proposed, { created: !replaces }), proposed, ...(replaces && { original }) };
      },
      keep: () => {
        const after = bytesFor(g, src.real, srcLook, 'source');
        const before = destLook ? bytesFor(g, dest.real, destLook, 'destination') : null;
        return keepAll([after && before !== undefined ? { file: dest.relative, before, ...(destLook && { mode: modeOf(destLook) }), after } : undefined]);
      },
      apply: (preview) => {
        // The source is opened by descriptor and must still be what the preview saw; its bytes are copied
        // from that descriptor, so a source swapped for a link to a hidden file afterwards is never read.
        const source = openForRead(g, src.real, { what: 'source', refuseLinks: true });
        try {
          const srcExpect = expectOf(srcLook);
          const id = idOf(source.st);
          if (id !== (srcExpect.kind === 'same' ? srcExpect.seen.id : (srcExpect as { id: string }).id) || (srcExpect.kind === 'same' && !fs.readFileSync(source.fd).equals(srcExpect.seen.bytes))) {
            throw new ToolError('IO_ERROR', `The source "${src.relative}" changed after the diff was made; nothing was copied.`, 'copy.changed-meanwhile');
          }
          writeAt(g, dest.real, { fromFd: source.fd }, { what: 'destination', expect: destLook ? expectOf(destLook) : { kind: 'absent' }, mode: Number(source.st.mode) & 0o777 });
          return { message: `Copied "${src.relative}" to "${dest.relative}" (${source.st.size} bytes${replaces ? ', replacing it' : ''}).`, bytes: Number(source.st.size), changed: true, ...(preview.diff !== undefined && { diff: preview.diff }) };
        } finally {
          closeQuietly(source.fd);
        }
      },
    };
  });
}

export function moveRenameFileTool(deps: FileDeps, call: FileCall, input: { source: string; destination: string; overwrite?: boolean }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const g = guardFor(deps.policy());
    const { root } = g;
    refuseLink(root, input.source, 'source', 'moveRenameFile');
    const src = locateFile(root, input.source, 'source');
    const { dest, replaces } = destination(g, input.destination, input.overwrite === true);
    sameFile(src, dest);
    planChangeable(g, src);
    const srcMeta = metaOf(g, src.real, 'source');
    const destMeta = replaces ? metaOf(g, dest.real, 'destination') : undefined;
    return {
      kind: 'move',
      // The source disappears and the destination appears: both must be changeable.
      targets: [src, dest],
      files: [src.relative, dest.relative],
      keep: () => {
        const moved = bytesFor(g, src.real, { meta: srcMeta }, 'source');
        const replaced = destMeta ? bytesFor(g, dest.real, { meta: destMeta }, 'destination') : null;
        return keepAll([
          moved && { file: src.relative, before: moved, mode: srcMeta.mode, after: null },
          moved && replaced !== undefined ? { file: dest.relative, before: replaced, ...(destMeta && { mode: destMeta.mode }), after: moved } : undefined,
        ]);
      },
      apply: () => {
        moveAt(g, src.real, dest.real, { overwrite: replaces, expectSrcId: srcMeta.id, ...(destMeta && { expectDestId: destMeta.id }) });
        return { message: `Moved "${src.relative}" to "${dest.relative}"${replaces ? ' (replacing it)' : ''}.`, changed: true, bytes: srcMeta.size };
      },
    };
  });
}

export function deleteFileTool(deps: FileDeps, call: FileCall, input: { file: string }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const g = guardFor(deps.policy());
    const { root } = g;
    refuseLink(root, input.file, 'file', 'deleteFile');
    const target = locateFile(root, input.file);
    planChangeable(g, target);
    let l: Look = { meta: metaOf(g, target.real) };
    return {
      kind: 'delete',
      targets: [target],
      files: [target.relative],
      preview: (): ChangePreview => {
        l = look(g, target.real, 'file');
        if (!('seen' in l) || l.text === undefined) return {};
        return { diff: unifiedDiff(target.relative, l.text, '', { deleted: true }), original: l.text, proposed: '' };
      },
      keep: () => {
        const before = bytesFor(g, target.real, l, 'file');
        return keepAll([before && { file: target.relative, before, mode: modeOf(l), after: null }]);
      },
      apply: (preview) => {
        const id = 'seen' in l ? l.seen.id : l.meta.id;
        if ('seen' in l && !readRegular(g, target.real, { decided: true }).bytes.equals(l.seen.bytes)) {
          throw new ToolError('IO_ERROR', `"${target.relative}" changed after the diff was made; nothing was deleted.`, 'delete.changed');
        }
        removeAt(g, target.real, 'file', id);
        const size = 'seen' in l ? l.seen.bytes.length : l.meta.size;
        return { message: `Deleted "${target.relative}" (${size} bytes).`, changed: true, bytes: size, ...(preview.diff !== undefined && { diff: preview.diff }) };
      },
    };
  });
}

export function mkdirTool(deps: FileDeps, call: FileCall, input: { path: string; parents?: boolean }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const g = guardFor(deps.policy());
    const target = resolveInside(g.root, input.path, { what: 'folder' });
    if (target.danglingLink) throw new ToolError('BAD_REQUEST', `"${input.path}" is a symbolic link to a missing folder; it is not followed.`, 'path.dangling-link');
    planChangeable(g, target);
    if (target.exists) {
      if (input.parents && fs.statSync(target.real).isDirectory()) {
        // Like `mkdir -p`: an existing folder is success, but still judged (so .git/… is refused either way).
        return { kind: 'mkdir', targets: [target], files: [target.relative], preview: () => ({ unchanged: true }), apply: () => ({ message: `"${target.relative}" already exists.`, changed: false }) };
      }
      throw new ToolError('IO_ERROR', `"${target.relative}" already exists.`, 'mkdir.exists');
    }
    let parentThere = false;
    try {
      parentThere = fs.lstatSync(path.dirname(target.real)).isDirectory();
    } catch {
      parentThere = false;
    }
    if (!input.parents && !parentThere) {
      throw new ToolError('PATH_NOT_FOUND', `The parent of "${target.relative}" does not exist; pass parents: true to create it too.`, 'mkdir.no-parent');
    }
    return {
      kind: 'mkdir',
      targets: [target],
      files: [target.relative],
      apply: () => {
        // By descriptor from the root: every folder is created inside the folder that was checked, so a parent
        // swapped for a link meanwhile makes the walk fail instead of creating anything outside.
        const made = mkdirAt(g, target.real, input.parents === true);
        if (!made.created) return { message: `"${target.relative}" already exists.`, changed: false };
        return { message: `Created the folder "${target.relative}".`, changed: true };
      },
    };
  });
}

export function rmdirTool(deps: FileDeps, call: FileCall, input: { path: string }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const g = guardFor(deps.policy());
    const { root } = g;
    refuseLink(root, input.path, 'folder', 'rmdir');
    const target = locateExisting(root, input.path, 'folder');
    if (!target.stats.isDirectory()) throw new ToolError('BAD_REQUEST', `"${target.relative}" is not a folder (use deleteFile for files).`, 'rmdir.not-folder');
    planChangeable(g, target);
    const entries = fs.readdirSync(target.real);
    if (entries.length > 0) throw new ToolError('BAD_REQUEST', `The folder "${target.relative}" is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); rmdir removes empty folders only.`, 'rmdir.not-empty');
    return {
      kind: 'rmdir',
      targets: [target],
      files: [target.relative],
      apply: () => {
        removeAt(g, target.real, 'folder');
        return { message: `Removed the empty folder "${target.relative}".`, changed: true };
      },
    };
  });
}
