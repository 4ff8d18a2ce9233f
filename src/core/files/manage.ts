import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { resolveInside, type ResolvedPath } from '../paths/confine';
import { atomicWrite, checkFolder, lstatOrUndefined } from './atomicWrite';
import { unifiedDiff } from './diffText';
import { isLinkAsGiven, locateExisting, locateFile, readInside } from './locate';
import { runFileChange, type ChangePreview } from './pipeline';
import { tryDecodeText } from './text';
import type { FileCall, FileDeps, FileResult } from './types';

/**
 * copyFile, moveRenameFile, deleteFile, mkdir, rmdir — as in cmdshellmcp's newest version: regular files only
 * for copy/move/delete, empty folders only for rmdir, nothing overwritten unless asked. A path that IS a symbolic
 * link is refused for move and delete (the link, not its target, would be what the agent meant, and guessing is
 * how data gets lost); links that lead outside the workspace are refused everywhere by resolveInside.
 */

/** Text previews are only built for files up to this size (the approver shows them). */
const PREVIEW_BYTES = 1024 * 1024;

function textPreview(root: string, real: string, size: number): string | undefined {
  if (size > PREVIEW_BYTES) return undefined;
  return tryDecodeText(readInside(root, real));
}

function refuseLink(root: string, given: string, what: string, tool: string): void {
  if (isLinkAsGiven(root, given)) throw new ToolError('BAD_REQUEST', `The ${what} "${given}" is a symbolic link; ${tool} works on regular files only.`, 'path.is-link');
}

function destination(root: string, p: string, overwrite: boolean): { dest: ResolvedPath; replaces: boolean } {
  const dest = resolveInside(root, p, { what: 'destination' });
  if (dest.danglingLink) throw new ToolError('BAD_REQUEST', `The destination "${p}" is a symbolic link to a missing file; it is not written through.`, 'path.dangling-link');
  const st = dest.exists ? fs.statSync(dest.real) : undefined;
  if (st?.isDirectory()) throw new ToolError('BAD_REQUEST', `The destination "${dest.relative}" is a folder; give the full new file name.`, 'dest.is-folder');
  if (st && !st.isFile()) throw new ToolError('BAD_REQUEST', `The destination "${dest.relative}" is not a regular file.`, 'dest.not-regular');
  if (st && !overwrite) throw new ToolError('IO_ERROR', `The destination "${dest.relative}" already exists; pass overwrite: true to replace it.`, 'dest.exists');
  if (!lstatOrUndefined(path.dirname(dest.real))) throw new ToolError('PATH_NOT_FOUND', `The folder of "${dest.relative}" does not exist; create it with mkdir first.`, 'dest.no-folder');
  return { dest, replaces: st !== undefined };
}

function sameFile(a: ResolvedPath, b: ResolvedPath): void {
  if (a.real === b.real) throw new ToolError('BAD_REQUEST', `Source and destination are the same file ("${a.relative}").`, 'dest.same');
}

export function copyFileTool(deps: FileDeps, call: FileCall, input: { source: string; destination: string; overwrite?: boolean }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const { root } = deps.policy();
    const src = locateFile(root, input.source, 'source');
    const { dest, replaces } = destination(root, input.destination, input.overwrite === true);
    sameFile(src, dest);
    return {
      kind: 'copy',
      targets: [dest],
      files: [src.relative, dest.relative],
      preview: (): ChangePreview => {
        const proposed = textPreview(root, src.real, src.stats.size);
        const original = replaces ? textPreview(root, dest.real, fs.statSync(dest.real).size) : '';
        if (proposed === undefined || original === undefined) return {};
        return { diff: unifiedDiff(dest.relative, original, proposed, { created: !replaces }), proposed, ...(replaces && { original }) };
      },
      apply: (preview) => {
        atomicWrite({ root, target: dest.real, exclusive: !replaces, mode: src.stats.mode & 0o777 }, { copyFrom: src.real });
        return { message: `Copied "${src.relative}" to "${dest.relative}" (${src.stats.size} bytes${replaces ? ', replacing it' : ''}).`, bytes: src.stats.size, changed: true, ...(preview.diff !== undefined && { diff: preview.diff }) };
      },
    };
  });
}

export function moveRenameFileTool(deps: FileDeps, call: FileCall, input: { source: string; destination: string; overwrite?: boolean }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const { root } = deps.policy();
    refuseLink(root, input.source, 'source', 'moveRenameFile');
    const src = locateFile(root, input.source, 'source');
    const { dest, replaces } = destination(root, input.destination, input.overwrite === true);
    sameFile(src, dest);
    return {
      kind: 'move',
      // The source disappears and the destination appears: both must be changeable.
      targets: [src, dest],
      files: [src.relative, dest.relative],
      apply: () => {
        checkFolder(root, path.dirname(src.real), src.real);
        checkFolder(root, path.dirname(dest.real), dest.real);
        if (lstatOrUndefined(src.real)?.isFile() !== true) throw new ToolError('IO_ERROR', `"${src.relative}" changed before it could be moved; nothing was moved.`, 'move.changed');
        if (replaces) {
          fs.renameSync(src.real, dest.real);
        } else {
          // link + unlink: fails with EEXIST instead of replacing a destination that appeared meanwhile.
          try {
            fs.linkSync(src.real, dest.real);
          } catch (e) {
            const code = (e as NodeJS.ErrnoException).code;
            if (code === 'EEXIST') throw new ToolError('IO_ERROR', `The destination "${dest.relative}" appeared meanwhile; nothing was moved.`, 'dest.exists');
            if (lstatOrUndefined(dest.real)) throw new ToolError('IO_ERROR', `The destination "${dest.relative}" already exists; nothing was moved.`, 'dest.exists');
            fs.renameSync(src.real, dest.real); // filesystems without hard links
            return { message: `Moved "${src.relative}" to "${dest.relative}".`, changed: true, bytes: src.stats.size };
          }
          fs.unlinkSync(src.real);
        }
        return { message: `Moved "${src.relative}" to "${dest.relative}"${replaces ? ' (replacing it)' : ''}.`, changed: true, bytes: src.stats.size };
      },
    };
  });
}

export function deleteFileTool(deps: FileDeps, call: FileCall, input: { file: string }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const { root } = deps.policy();
    refuseLink(root, input.file, 'file', 'deleteFile');
    const target = locateFile(root, input.file);
    return {
      kind: 'delete',
      targets: [target],
      files: [target.relative],
      preview: (): ChangePreview => {
        const original = textPreview(root, target.real, target.stats.size);
        if (original === undefined) return {};
        return { diff: unifiedDiff(target.relative, original, '', { deleted: true }), original, proposed: '' };
      },
      apply: (preview) => {
        checkFolder(root, path.dirname(target.real), target.real);
        if (lstatOrUndefined(target.real)?.isFile() !== true) throw new ToolError('IO_ERROR', `"${target.relative}" changed before it could be deleted; nothing was deleted.`, 'delete.changed');
        fs.unlinkSync(target.real);
        return { message: `Deleted "${target.relative}" (${target.stats.size} bytes).`, changed: true, bytes: target.stats.size, ...(preview.diff !== undefined && { diff: preview.diff }) };
      },
    };
  });
}

export function mkdirTool(deps: FileDeps, call: FileCall, input: { path: string; parents?: boolean }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const { root } = deps.policy();
    const target = resolveInside(root, input.path, { what: 'folder' });
    if (target.danglingLink) throw new ToolError('BAD_REQUEST', `"${input.path}" is a symbolic link to a missing folder; it is not followed.`, 'path.dangling-link');
    if (target.exists) {
      if (input.parents && fs.statSync(target.real).isDirectory()) {
        // Like `mkdir -p`: an existing folder is success, but still judged (so .git/… is refused either way).
        return { kind: 'mkdir', targets: [target], files: [target.relative], preview: () => ({ unchanged: true }), apply: () => ({ message: `"${target.relative}" already exists.`, changed: false }) };
      }
      throw new ToolError('IO_ERROR', `"${target.relative}" already exists.`, 'mkdir.exists');
    }
    if (!input.parents && !lstatOrUndefined(path.dirname(target.real))) {
      throw new ToolError('PATH_NOT_FOUND', `The parent of "${target.relative}" does not exist; pass parents: true to create it too.`, 'mkdir.no-parent');
    }
    return {
      kind: 'mkdir',
      targets: [target],
      files: [target.relative],
      apply: () => {
        fs.mkdirSync(target.real, { recursive: input.parents === true });
        // Re-check after creation: had a parent been swapped for a link meanwhile, the folder would be elsewhere.
        checkFolder(root, target.real, target.real);
        return { message: `Created the folder "${target.relative}".`, changed: true };
      },
    };
  });
}

export function rmdirTool(deps: FileDeps, call: FileCall, input: { path: string }): Promise<FileResult> {
  return runFileChange(deps, call, () => {
    const { root } = deps.policy();
    refuseLink(root, input.path, 'folder', 'rmdir');
    const target = locateExisting(root, input.path, 'folder');
    if (!target.stats.isDirectory()) throw new ToolError('BAD_REQUEST', `"${target.relative}" is not a folder (use deleteFile for files).`, 'rmdir.not-folder');
    const entries = fs.readdirSync(target.real);
    if (entries.length > 0) throw new ToolError('BAD_REQUEST', `The folder "${target.relative}" is not empty (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}); rmdir removes empty folders only.`, 'rmdir.not-empty');
    return {
      kind: 'rmdir',
      targets: [target],
      files: [target.relative],
      apply: () => {
        checkFolder(root, target.real, target.real);
        try {
          fs.rmdirSync(target.real); // fails (ENOTEMPTY) if something appeared meanwhile: never recursive
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new ToolError('BAD_REQUEST', `The folder "${target.relative}" is no longer empty; nothing was removed.`, 'rmdir.not-empty');
          throw e;
        }
        return { message: `Removed the empty folder "${target.relative}".`, changed: true };
      },
    };
  });
}
