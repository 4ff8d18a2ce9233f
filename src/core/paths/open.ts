import * as fs from 'node:fs';
import { ToolError } from '../errors';
import { closeQuietly, createExclusive, idOf, reopen } from './fdpath';
import { checkChangeable, checkReadable, type PathGuard } from './guard';
import { walk, type Walked } from './walk';

/**
 * Opening a file for the agent at the moment of use (after the approval wait and the queue), by descriptor:
 * the walk re-confines the path from the root, the guard applies hidden / read-only / protected / hard-link
 * rules to what is really there, and only a regular file is ever opened for I/O. A FIFO, socket or device is
 * looked at through O_PATH and refused without being opened, so nothing can block the server.
 */

const C = fs.constants;

export interface OpenOptions {
  /** Folder relative paths start from (inside the root). */
  readonly base?: string;
  readonly what?: string;
  /** The root-relative path the decision was made for: anything else now is refused. */
  readonly expectRelative?: string;
  /** The path was resolved to a real path when it was decided: any symbolic link on it now is refused. */
  readonly refuseLinks?: boolean;
}

export interface Opened {
  readonly fd: number;
  readonly relative: string;
  readonly st: fs.BigIntStats;
}

/** A regular file inside the root, open for reading. */
export function openForRead(g: PathGuard, p: string, options: OpenOptions = {}): Opened {
  const what = options.what ?? 'file';
  const w = walk(g.root, p, walkOptions(what, options));
  try {
    expectSame(w, options.expectRelative, what);
    if (!w.entry) throw new ToolError('PATH_NOT_FOUND', `The ${what} "${w.relative}" does not exist.`, 'path.not-found');
    requireRegular(w, what);
    checkReadable(g, { relative: w.relative, real: w.real, st: w.entry.st });
    const fd = reopen(w.entry.fd!, w.real, C.O_RDONLY);
    return { fd, relative: w.relative, st: fs.fstatSync(fd, { bigint: true }) };
  } finally {
    w.close();
  }
}

/**
 * A regular file inside the root, open for writing in place (`>` truncates, `>>` appends), created when
 * missing. In-place writes into a file with other hard links are refused (checkChangeable); setuid/setgid bits
 * are dropped from a file we write into (root keeps them on write, the kernel only clears them for others).
 */
export function openForWrite(g: PathGuard, p: string, append: boolean, options: OpenOptions = {}): Opened & { created: boolean } {
  const what = options.what ?? 'file';
  for (let attempt = 0; attempt < 3; attempt++) {
    const w = walk(g.root, p, walkOptions(what, options));
    try {
      expectSame(w, options.expectRelative, what);
      checkChangeable(g, { relative: w.relative, real: w.real, ...(w.entry && { st: w.entry.st }) }, { inPlace: true });
      if (w.entry) {
        requireRegular(w, what);
        const fd = reopen(w.entry.fd!, w.real, C.O_WRONLY | (append ? C.O_APPEND : C.O_TRUNC));
        dropSetId(fd);
        return { fd, relative: w.relative, st: fs.fstatSync(fd, { bigint: true }), created: false };
      }
      if (w.throughDanglingLink) throw new ToolError('BAD_REQUEST', `The ${what} "${p}" is a symbolic link to a missing file; it is not written through.`, 'path.dangling-link');
      try {
        const fd = createExclusive(w.parent!, w.name, C.O_WRONLY | (append ? C.O_APPEND : 0), 0o644);
        return { fd, relative: w.relative, st: fs.fstatSync(fd, { bigint: true }), created: true };
      } catch (e) {
        // Appeared between the look and the create: look again (it is judged like any existing file).
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw e;
      }
    } finally {
      w.close();
    }
  }
  throw new ToolError('IO_ERROR', `The ${what} "${p}" kept changing while it was being opened; nothing was written.`, 'path.unstable');
}

function walkOptions(what: string, o: OpenOptions) {
  return { followFinal: true, what, refuseLinks: o.refuseLinks === true, ...(o.base !== undefined && { base: o.base }) };
}

function expectSame(w: Walked, expected: string | undefined, what: string): void {
  if (expected !== undefined && w.relative !== expected) {
    throw new ToolError('PATH_OUTSIDE_ROOT', `The ${what} "${expected}" changed after it was checked (it now leads to "${w.relative}"); nothing was opened.`, 'path.changed');
  }
}

export function requireRegular(w: Walked, what: string): void {
  const st = w.entry!.st;
  if (st.isFile()) return;
  const kind = st.isDirectory() ? 'a folder' : st.isFIFO() ? 'a FIFO (named pipe)' : st.isSocket() ? 'a socket' : st.isCharacterDevice() || st.isBlockDevice() ? 'a device' : st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file';
  throw new ToolError('BAD_REQUEST', `The ${what} "${w.relative}" is ${kind}, not a regular file; it is not opened (nothing was read or written).`, 'path.not-regular');
}

/** Clears setuid/setgid on a file we are about to write (a write must never keep a privilege bit). */
export function dropSetId(fd: number): void {
  const mode = Number(fs.fstatSync(fd, { bigint: true }).mode);
  if (mode & 0o6000) fs.fchmodSync(fd, mode & 0o1777);
}

export function identity(st: fs.BigIntStats): string {
  return idOf(st);
}

export { closeQuietly };
