import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { isInside } from '../paths/confine';

/**
 * The one way file tools put content on disk: a temp file in the SAME folder (so rename is atomic and never
 * crosses a device), fsync, then rename over the target — a crash leaves either the old file or the new one,
 * never half of one. New files are linked into place, which fails if the name appeared meanwhile (the `wx`
 * guarantee without an open-then-write window). Right before the switch the folder and target are checked
 * again with lstat/realpath, so a folder swapped for a symlink after validation is refused, not followed.
 */

export type Content = Buffer | { readonly copyFrom: string };

export interface AtomicWriteOptions {
  /** Real path of the workspace root. */
  readonly root: string;
  /** Real absolute path of the file to write (from resolveInside). */
  readonly target: string;
  /** The file must not exist (a new file); fails if it appears before the write lands. */
  readonly exclusive?: boolean;
  /** Permission bits for the result; default: the existing file's, or 0666 minus the umask for a new file. */
  readonly mode?: number;
}

export function atomicWrite(options: AtomicWriteOptions, content: Content): void {
  const { root, target } = options;
  const dir = path.dirname(target);
  checkFolder(root, dir, target);
  const existing = lstatOrUndefined(target);
  checkTarget(existing, target, options.exclusive === true);
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined);

  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.gs-tmp`);
  try {
    fillTemp(temp, content, mode);
    // The checks again, as late as possible: the folder must still be the real folder inside the root.
    checkFolder(root, dir, target);
    checkTarget(lstatOrUndefined(target), target, options.exclusive === true);
    if (options.exclusive) {
      try {
        fs.linkSync(temp, target);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new ToolError('IO_ERROR', `"${path.basename(target)}" appeared while it was being written; nothing was overwritten.`, 'write.exists');
        throw e;
      }
      fs.unlinkSync(temp);
    } else {
      fs.renameSync(temp, target);
    }
  } catch (e) {
    try {
      fs.unlinkSync(temp);
    } catch {
      /* already renamed or never created */
    }
    if (e instanceof ToolError) throw e;
    throw new ToolError('IO_ERROR', `Writing "${path.basename(target)}" failed: ${(e as Error).message}`, 'write.io');
  }
  syncFolder(dir);
}

function fillTemp(temp: string, content: Content, mode: number | undefined): void {
  if (Buffer.isBuffer(content)) {
    // 0600 while being filled; the final mode is set before the rename so the file never appears wider.
    const fd = fs.openSync(temp, 'wx', mode === undefined ? 0o666 : 0o600);
    try {
      let off = 0;
      while (off < content.length) off += fs.writeSync(fd, content, off, content.length - off);
      if (mode !== undefined) fs.fchmodSync(fd, mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return;
  }
  fs.copyFileSync(content.copyFrom, temp, fs.constants.COPYFILE_EXCL);
  const fd = fs.openSync(temp, 'r+');
  try {
    if (mode !== undefined) fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The folder must be a real directory (no symlink anywhere on its path) inside the root. */
export function checkFolder(root: string, dir: string, target: string): void {
  let real: string;
  try {
    real = fs.realpathSync.native(dir);
  } catch {
    throw new ToolError('PATH_NOT_FOUND', `The folder of "${path.basename(target)}" does not exist.`, 'write.no-folder');
  }
  if (real !== dir || !isInside(root, real)) {
    throw new ToolError('PATH_OUTSIDE_ROOT', `The folder of "${path.basename(target)}" changed into a link leading elsewhere; nothing was written.`, 'write.folder-moved');
  }
}

function checkTarget(st: fs.Stats | undefined, target: string, exclusive: boolean): void {
  if (!st) return;
  if (exclusive) throw new ToolError('IO_ERROR', `"${path.basename(target)}" already exists; nothing was overwritten.`, 'write.exists');
  if (st.isSymbolicLink()) throw new ToolError('PATH_OUTSIDE_ROOT', `"${path.basename(target)}" became a symbolic link; it is not followed.`, 'write.target-link');
  if (!st.isFile()) throw new ToolError('BAD_REQUEST', `"${path.basename(target)}" is not a regular file.`, 'write.not-file');
}

export function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** Makes the rename durable; folders cannot be opened for fsync everywhere (Windows), so best effort. */
function syncFolder(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* not supported here */
  }
}
