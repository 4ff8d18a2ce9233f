import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';

/**
 * Descriptor primitives: the only place that knows how an "*at()" operation is spelled on this platform.
 *
 * Linux: `/proc/self/fd/<dirfd>/<name>` makes the kernel start the lookup of `name` at the directory the
 * descriptor holds (the magic link jumps to that exact inode, whatever its path is now), so open/mkdir/rename/
 * unlink through it have openat/mkdirat/renameat/unlinkat semantics from Node. Entries are opened with
 * O_PATH|O_NOFOLLOW: nothing is really opened (a FIFO cannot block, a device driver is not called, a symlink
 * is returned as itself), fstat tells what it is, and only a regular file or a directory is then re-opened
 * through `/proc/self/fd/<fd>` for reading or writing — the same inode, never a name looked up again.
 *
 * Elsewhere (macOS has no /proc) the fallback is a check-open-verify loop on the real path string: lstat, open
 * with O_NOFOLLOW (plus O_NOFOLLOW_ANY on macOS 11+, which refuses a symlink in ANY component), fstat, and the
 * identities must agree; directory handles are re-verified by lstat before and after each operation. The
 * residual window of that fallback is documented in docs/isolation.md.
 */

const C = fs.constants;
const LINUX = process.platform === 'linux';
/** O_PATH (Linux, every architecture Node ships for except alpha/parisc/sparc). Not in fs.constants. */
export const O_PATH = LINUX ? 0o10000000 : 0;
/** macOS 11+: fail if ANY component of the path is a symlink. */
const O_NOFOLLOW_ANY = process.platform === 'darwin' ? 0x20000000 : 0;
const NOFOLLOW = C.O_NOFOLLOW ?? 0;
const NONBLOCK = C.O_NONBLOCK ?? 0;
const DIRECTORY = C.O_DIRECTORY ?? 0;

let procWorks: boolean | undefined;

/** True when `/proc/self/fd/N/name` gives openat semantics here (Linux with /proc mounted). */
export function procFdWorks(): boolean {
  if (procWorks !== undefined) return procWorks;
  procWorks = false;
  if (!LINUX) return false;
  try {
    const fd = fs.openSync('/', C.O_RDONLY | DIRECTORY);
    try {
      const a = fs.fstatSync(fd, { bigint: true });
      const b = fs.statSync(`/proc/self/fd/${fd}/.`, { bigint: true });
      procWorks = a.dev === b.dev && a.ino === b.ino;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    procWorks = false;
  }
  return procWorks;
}

/** dev:ino of a stat, exact (bigint: inode numbers above 2^53 exist on some file systems). */
export function idOf(st: fs.BigIntStats): string {
  return `${st.dev}:${st.ino}`;
}

/** An open directory inside the root, with the logical real path it was reached by. */
export interface Dir {
  readonly fd: number;
  readonly real: string;
  readonly id: string;
}

/** The path that names `name` inside `dir` for an *at()-style call. */
export function at(dir: Dir, name: string): string {
  if (name.includes('/') || name === '' || name === '.' || name === '..') throw new Error(`internal: bad entry name "${name}"`);
  if (procFdWorks()) return `/proc/self/fd/${dir.fd}/${name}`;
  verifyDir(dir);
  return path.join(dir.real, name);
}

/** Fallback only: the directory path must still lead to the directory we hold. */
export function verifyDir(dir: Dir): void {
  if (procFdWorks()) return;
  let st: fs.BigIntStats;
  try {
    st = fs.lstatSync(dir.real, { bigint: true });
  } catch {
    throw swapped(dir.real);
  }
  if (!st.isDirectory() || idOf(st) !== dir.id) throw swapped(dir.real);
}

function swapped(p: string): ToolError {
  return new ToolError('PATH_OUTSIDE_ROOT', `"${path.basename(p)}" was replaced while it was being used; nothing was done.`, 'path.swapped');
}

/** Opens the root folder itself (by its real path: the operator chose it, nothing above it is the agent's). */
export function openRootDir(root: string): Dir {
  const fd = fs.openSync(root, (procFdWorks() ? O_PATH : C.O_RDONLY) | DIRECTORY | NOFOLLOW);
  const st = fs.fstatSync(fd, { bigint: true });
  return { fd, real: root, id: idOf(st) };
}

export interface Entry {
  /** lstat of the entry (a symlink is described as itself). */
  readonly st: fs.BigIntStats;
  /** Open descriptor (O_PATH on Linux) for a regular file or a directory; undefined for any other type. */
  readonly fd?: number;
}

/** Looks at `name` in `dir` without following it and without opening anything but a file or a folder. */
export function openEntry(dir: Dir, name: string): Entry | undefined {
  if (procFdWorks()) {
    let fd: number;
    try {
      fd = fs.openSync(at(dir, name), O_PATH | NOFOLLOW);
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
    const st = fs.fstatSync(fd, { bigint: true });
    if (st.isFile() || st.isDirectory()) return { st, fd };
    fs.closeSync(fd);
    return { st };
  }
  const p = at(dir, name);
  let st: fs.BigIntStats;
  try {
    st = fs.lstatSync(p, { bigint: true });
  } catch (e) {
    if (isMissing(e)) return undefined;
    throw e;
  }
  if (!st.isFile() && !st.isDirectory()) return { st };
  const fd = fs.openSync(p, C.O_RDONLY | NONBLOCK | NOFOLLOW | O_NOFOLLOW_ANY | (st.isDirectory() ? DIRECTORY : 0));
  const opened = fs.fstatSync(fd, { bigint: true });
  if (idOf(opened) !== idOf(st)) {
    fs.closeSync(fd);
    throw swapped(p);
  }
  verifyDir(dir);
  return { st: opened, fd };
}

/**
 * A real descriptor for reading or writing the very inode `fd` holds. Never O_CREAT here: creation goes through
 * `createExclusive`. The identity is checked again on the new descriptor.
 */
export function reopen(fd: number, real: string, flags: number): number {
  const expected = idOf(fs.fstatSync(fd, { bigint: true }));
  const again = procFdWorks()
    ? fs.openSync(`/proc/self/fd/${fd}`, flags | NONBLOCK)
    : fs.openSync(real, flags | NONBLOCK | NOFOLLOW | O_NOFOLLOW_ANY);
  if (idOf(fs.fstatSync(again, { bigint: true })) !== expected) {
    fs.closeSync(again);
    throw swapped(real);
  }
  return again;
}

/** Creates `name` in `dir` (O_CREAT|O_EXCL|O_NOFOLLOW): fails with EEXIST instead of following anything. */
export function createExclusive(dir: Dir, name: string, flags: number, mode: number): number {
  return fs.openSync(at(dir, name), flags | C.O_CREAT | C.O_EXCL | NOFOLLOW | NONBLOCK | O_NOFOLLOW_ANY, mode);
}

/** fsync of a folder (makes a rename durable); best effort where folders cannot be opened for it. */
export function syncDir(dir: Dir): void {
  try {
    const fd = reopen(dir.fd, dir.real, C.O_RDONLY | DIRECTORY);
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* not supported here */
  }
}

export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    fs.closeSync(fd);
  } catch {
    /* already closed */
  }
}

export function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
