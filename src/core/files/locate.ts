import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { isInside, resolveInside, type ResolvedPath } from '../paths/confine';

/**
 * Path lookups shared by the file tools, on top of resolveInside (realpath based: a symlink that leads out of the
 * workspace is outside). Reads go through `readInside`, which opens first and checks afterwards that the file
 * opened is the one inside the root, so a path swapped for a link between check and open is not followed.
 */

export interface Located extends ResolvedPath {
  readonly stats: fs.Stats;
}

/** An existing path inside the root, with its stats (of the real target). */
export function locateExisting(root: string, p: string, what: string): Located {
  const r = resolveInside(root, p, { what });
  if (!r.exists) throw new ToolError('PATH_NOT_FOUND', `The ${what} "${p}" does not exist.`, 'path.not-found');
  return { ...r, stats: fs.statSync(r.real) };
}

/** An existing REGULAR file (not a folder, device or socket). */
export function locateFile(root: string, p: string, what = 'file'): Located {
  const r = locateExisting(root, p, what);
  if (r.stats.isDirectory()) throw new ToolError('BAD_REQUEST', `"${r.relative}" is a folder, not a file.`, 'path.is-folder');
  if (!r.stats.isFile()) throw new ToolError('BAD_REQUEST', `"${r.relative}" is not a regular file.`, 'path.not-regular');
  return r;
}

/** The path as given is itself a symbolic link (its final component), whatever it points to. */
export function isLinkAsGiven(root: string, p: string): boolean {
  try {
    return fs.lstatSync(path.resolve(root, p)).isSymbolicLink();
  } catch {
    return false;
  }
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** Reads a file that was resolved inside the root, refusing it if it was swapped for something else meanwhile. */
export function readInside(root: string, real: string): Buffer {
  let fd: number;
  try {
    fd = fs.openSync(real, fs.constants.O_RDONLY | O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolError('PATH_OUTSIDE_ROOT', `"${path.basename(real)}" became a symbolic link; it is not followed.`, 'path.swapped');
    if (code === 'ENOENT') throw new ToolError('PATH_NOT_FOUND', `"${path.basename(real)}" no longer exists.`, 'path.not-found');
    throw new ToolError('IO_ERROR', `Cannot open "${path.basename(real)}": ${(e as Error).message}`, 'read.io');
  }
  try {
    const opened = fs.fstatSync(fd);
    let again: string;
    try {
      again = fs.realpathSync.native(real);
    } catch {
      again = '';
    }
    const still = again ? fs.statSync(again) : undefined;
    if (again !== real || !isInside(root, again) || !still || still.ino !== opened.ino || still.dev !== opened.dev) {
      throw new ToolError('PATH_OUTSIDE_ROOT', `"${path.basename(real)}" changed while it was being opened; it was not read.`, 'path.swapped');
    }
    if (!opened.isFile()) throw new ToolError('BAD_REQUEST', `"${path.basename(real)}" is not a regular file.`, 'path.not-regular');
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export function relativeTo(root: string, real: string): string {
  const rel = path.relative(root, real);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}
