import * as fs from 'node:fs';
import * as path from 'node:path';
import { bareGuard, type PathGuard } from '../paths/guard';
import { O_PATH, procFdWorks } from '../paths/fdpath';
import { openForRead, openForWrite } from '../paths/open';
import { walk } from '../paths/walk';

/**
 * Opening the redirect targets of a call, at the moment of use (after the approval wait and the queue). The
 * path was decided as a REAL path inside the root; here it is re-confined from a descriptor of the root, one
 * component at a time with O_NOFOLLOW (a symbolic link anywhere on it now means it changed: refused), the
 * opened object is checked by fstat (a regular file; a FIFO, socket or device is looked at through O_PATH and
 * never opened, so it cannot block the server), and the one list of hidden / read-only / protected paths and
 * the hard-link rule are applied to what is really there (src/core/paths/guard.ts).
 */

/** Without a guard (unit tests of the executor) the walk starts at "/" with no lists: still no link followed. */
function guardOrBare(guard: PathGuard | undefined): PathGuard {
  return guard ?? bareGuard(path.parse(process.cwd()).root);
}

function options(g: PathGuard, file: string, what: string) {
  return { what, refuseLinks: true, expectRelative: path.relative(g.root, path.resolve(g.root, file)).split(path.sep).join('/') || '.' };
}

export function openStdinFile(file: string, guard?: PathGuard): number {
  const g = guardOrBare(guard);
  return prefixed('input', file, () => openForRead(g, file, options(g, file, 'input redirect')).fd);
}

export function openStdoutFile(file: string, append: boolean, guard?: PathGuard): number {
  const g = guardOrBare(guard);
  return prefixed('output', file, () => openForWrite(g, file, append, options(g, file, 'output redirect')).fd);
}

function prefixed(role: string, file: string, open: () => number): number {
  try {
    return open();
  } catch (e) {
    throw new Error(`cannot open ${role} file ${file}: ${(e as Error).message}`);
  }
}

const O_PATH_DIR = (procFdWorks() ? O_PATH : fs.constants.O_RDONLY) | (fs.constants.O_DIRECTORY ?? 0);

/**
 * The working directory, held by descriptor from the root to the start: the child starts in exactly the folder
 * that was checked (`/proc/self/fd/N` is resolved by the child before exec, to the same inode), so a folder
 * swapped for a link to elsewhere meanwhile is refused instead of followed. Elsewhere (no /proc) the path is
 * re-checked the same way and used by name.
 */
export function holdWorkingDirectory(cwd: string, guard: PathGuard | undefined): { path: string; real: string; fd: number | undefined; release: () => void } {
  if (!guard) {
    // Unit tests of the executor: no root to confine to; the folder is still held, by its path.
    let fd: number;
    try {
      fd = fs.openSync(cwd, O_PATH_DIR);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new Error(`working directory ${cwd} ${code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a directory' : `cannot be opened (${code})`}`);
    }
    return { path: procFdWorks() ? `/proc/self/fd/${fd}` : cwd, real: cwd, fd, release: () => fs.closeSync(fd) };
  }
  let w: ReturnType<typeof walk>;
  try {
    w = walk(guard.root, cwd, { followFinal: true, refuseLinks: true, what: 'working directory' });
  } catch (e) {
    throw new Error(`cannot use the working directory ${cwd}: ${(e as Error).message}`);
  }
  if (!w.entry?.st.isDirectory() || w.entry.fd === undefined) {
    w.close();
    throw new Error(`cannot use the working directory ${cwd}: it is not a folder now`);
  }
  return { path: procFdWorks() ? `/proc/self/fd/${w.entry.fd}` : w.real, real: w.real, fd: w.entry.fd, release: () => w.close() };
}
