import * as fs from 'node:fs';

/**
 * Opening the redirect targets of a call. The paths were confined by the caller; here we make sure the open
 * itself cannot be redirected: O_NOFOLLOW refuses a symlink swapped in at the last component after the check,
 * O_NONBLOCK keeps a FIFO planted in the workspace from blocking the whole server inside open(), and anything
 * that is not a regular file (FIFO, device, directory) is refused.
 */

const C = fs.constants;
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;

export function openStdinFile(path: string): number {
  return openRegular(path, C.O_RDONLY | NOFOLLOW | NONBLOCK, 'input');
}

export function openStdoutFile(path: string, append: boolean): number {
  const flags = C.O_WRONLY | C.O_CREAT | (append ? C.O_APPEND : C.O_TRUNC) | NOFOLLOW | NONBLOCK;
  return openRegular(path, flags, 'output', 0o644);
}

function openRegular(path: string, flags: number, role: string, mode?: number): number {
  let fd: number;
  try {
    fd = fs.openSync(path, flags, mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ELOOP' ? 'it is a symbolic link' : code === 'ENXIO' ? 'it is a FIFO' : (e as Error).message;
    throw new Error(`cannot open ${role} file ${path}: ${why}`);
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`cannot open ${role} file ${path}: it is not a regular file`);
  } catch (e) {
    fs.closeSync(fd);
    throw e;
  }
  // O_NONBLOCK has no effect on regular files, so the child reads and writes them normally.
  return fd;
}
