import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { ToolError } from '../errors';
import { at, closeQuietly, createExclusive, idOf, openEntry, procFdWorks, reopen, syncDir, type Dir } from '../paths/fdpath';
import { checkChangeable, checkReadable, type PathGuard } from '../paths/guard';
import { openForRead, requireRegular } from '../paths/open';
import { walk, type Walked } from '../paths/walk';

/**
 * The file tools' disk operations, all on descriptors (src/core/paths/fdpath.ts): every path is walked again
 * from the root at the moment of use, with O_NOFOLLOW on every component (the path was decided as a REAL path,
 * so a symbolic link on it now means it changed), and every create / rename / unlink / mkdir / rmdir names its
 * entry relative to the descriptor of the folder that was checked. What was previewed is what is replaced: the
 * identity (dev:ino) and bytes recorded by the preview must still be there, or nothing is written.
 */

const C = fs.constants;
const COPY_CHUNK = 1024 * 1024;

/** What a preview saw: the identity and exact bytes of the file it diffed. */
export interface Seen {
  readonly id: string;
  readonly bytes: Buffer;
  readonly mode: number;
}

/** Identity, mode and size of an existing regular file (for checks that do not need the bytes). */
export interface SeenMeta {
  readonly id: string;
  readonly mode: number;
  readonly size: number;
}

/** Reads a whole regular file (links followed inside the root unless `decided`), refusing files over `maxBytes`. */
export function readRegular(g: PathGuard, p: string, options: { what?: string; decided?: boolean; maxBytes?: number; base?: string } = {}): { bytes: Buffer; relative: string; seen: Seen } {
  const o = openForRead(g, p, { what: options.what ?? 'file', refuseLinks: options.decided === true, ...(options.base !== undefined && { base: options.base }) });
  try {
    if (options.maxBytes !== undefined && o.st.size > BigInt(options.maxBytes)) {
      throw new ToolError('BAD_REQUEST', `"${o.relative}" is ${o.st.size} bytes, more than this tool loads (${options.maxBytes}).`, 'read.too-large');
    }
    const bytes = fs.readFileSync(o.fd);
    return { bytes, relative: o.relative, seen: { id: idOf(o.st), bytes, mode: Number(o.st.mode) } };
  } finally {
    closeQuietly(o.fd);
  }
}

/** Looks at a decided path without reading it: its identity when it is a regular file, else an error. */
export function metaOf(g: PathGuard, real: string, what = 'file'): SeenMeta {
  const w = walk(g.root, real, { followFinal: true, refuseLinks: true, what });
  try {
    if (!w.entry) throw new ToolError('PATH_NOT_FOUND', `The ${what} "${w.relative}" does not exist.`, 'path.not-found');
    requireRegular(w, what);
    return { id: idOf(w.entry.st), mode: Number(w.entry.st.mode), size: Number(w.entry.st.size) };
  } finally {
    w.close();
  }
}

/**
 * What must be at the path when it is replaced: nothing; the very bytes a preview read; the same inode; or (a file
 * too large to hold in memory) the same inode, size and change time — a write into it changes its ctime.
 */
export type Expect =
  | { readonly kind: 'absent' }
  | { readonly kind: 'same'; readonly seen: Seen }
  | { readonly kind: 'identity'; readonly id: string }
  | { readonly kind: 'stat'; readonly id: string; readonly size: number; readonly ctimeNs: bigint };

export interface WriteOptions {
  readonly what?: string;
  readonly expect: Expect;
  /** Permission bits of the result (setuid/setgid/sticky are always dropped). Default 0666 minus umask. */
  readonly mode?: number;
  /** Create missing folders (inside the root, by descriptor). */
  readonly mkdirs?: boolean;
  /** Keep the replaced bytes as the next free `name.bkN` in the same folder (edits). Returns its name. */
  readonly backup?: boolean;
}

export type Content = Buffer | { readonly fromFd: number };

/**
 * Puts `content` at the decided real path `real`: a temp file in the checked folder (by descriptor), fsync,
 * then rename over the target (or link into place for a new file: fails instead of replacing one that
 * appeared). The folder's identity is re-verified right before the switch.
 */
export function writeAt(g: PathGuard, real: string, content: Content, options: WriteOptions): { relative: string; backup?: string } {
  const what = options.what ?? 'file';
  const w = walk(g.root, real, { followFinal: true, refuseLinks: true, what, allowMissingParents: options.mkdirs === true });
  let dir: Dir | undefined;
  const created: number[] = [];
  let temp: string | undefined;
  try {
    checkChangeable(g, { relative: w.relative + (w.missingTail.length ? '/' + w.missingTail.join('/') : ''), real: w.real + (w.missingTail.length ? '/' + w.missingTail.join('/') : ''), ...(w.entry && { st: w.entry.st }) });
    checkExpectation(w, options.expect, what);
    let name = w.name;
    dir = w.parent!;
    if (w.missingTail.length > 0) {
      ({ dir, name } = makeFolders(dir, [w.name, ...w.missingTail], created));
    }
    if (w.throughDanglingLink) throw new ToolError('BAD_REQUEST', `The ${what} "${real}" is a symbolic link to a missing file; it is not written through.`, 'write.dangling-link');

    temp = `.${name}.${randomBytes(6).toString('hex')}.gs-tmp`;
    // A given mode is set exactly (0600 while filling); a new file's default is 0666 minus the umask.
    const fd = createExclusive(dir, temp, C.O_WRONLY, options.mode === undefined ? 0o666 : 0o600);
    try {
      fill(fd, content);
      if (options.mode !== undefined) fs.fchmodSync(fd, options.mode & 0o777);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    let backup: string | undefined;
    if (options.backup && options.expect.kind === 'same') backup = writeBackupIn(dir, name, options.expect.seen);

    // The switch, as late as possible after the last look: the folder is still the one we checked, and the
    // entry is still what the preview saw.
    reverify(g, w, dir, what);
    if (options.expect.kind === 'absent') {
      try {
        fs.linkSync(at(dir, temp), at(dir, name));
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new ToolError('IO_ERROR', `"${w.relative}" appeared while it was being written; nothing was overwritten.`, 'write.exists');
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw e;
        // A file system without hard links: rename, after one more look (a small window, documented).
        if (openEntry(dir, name)) throw new ToolError('IO_ERROR', `"${w.relative}" appeared while it was being written; nothing was overwritten.`, 'write.exists');
        fs.renameSync(at(dir, temp), at(dir, name));
        temp = undefined;
      }
      if (temp !== undefined) fs.unlinkSync(at(dir, temp));
    } else {
      checkCurrent(dir, name, options.expect, w.relative);
      fs.renameSync(at(dir, temp), at(dir, name));
    }
    temp = undefined;
    syncDir(dir);
    return { relative: w.relative, ...(backup !== undefined && { backup }) };
  } catch (e) {
    if (temp !== undefined && dir) {
      try {
        fs.unlinkSync(at(dir, temp));
      } catch {
        /* never created */
      }
    }
    if (e instanceof ToolError) throw e;
    throw new ToolError('IO_ERROR', `Writing "${w.relative}" failed: ${(e as Error).message}`, 'write.io');
  } finally {
    for (const fd of created) closeQuietly(fd);
    w.close();
  }
}

function checkExpectation(w: Walked, expect: Expect, what: string): void {
  if (expect.kind === 'absent') {
    if (w.entry) throw new ToolError('IO_ERROR', `"${w.relative}" already exists; nothing was overwritten.`, 'write.exists');
    return;
  }
  if (!w.entry) throw new ToolError('IO_ERROR', `"${w.relative}" no longer exists; nothing was written.`, 'write.changed-meanwhile');
  requireRegular(w, what);
  if (idOf(w.entry.st) !== (expect.kind === 'same' ? expect.seen.id : expect.id)) throw changed(w.relative);
  if (expect.kind === 'stat' && (Number(w.entry.st.size) !== expect.size || w.entry.st.ctimeNs !== expect.ctimeNs)) throw changed(w.relative);
  if (expect.kind === 'same') {
    const fd = reopen(w.entry.fd!, w.real, C.O_RDONLY);
    try {
      if (!fs.readFileSync(fd).equals(expect.seen.bytes)) throw changed(w.relative);
    } finally {
      fs.closeSync(fd);
    }
  }
}

function checkCurrent(dir: Dir, name: string, expect: Expect, relative: string): void {
  if (expect.kind === 'absent') return;
  const e = openEntry(dir, name);
  closeQuietly(e?.fd);
  if (!e || idOf(e.st) !== (expect.kind === 'same' ? expect.seen.id : expect.id)) throw changed(relative);
}

function changed(relative: string): ToolError {
  return new ToolError('IO_ERROR', `"${relative}" changed after the diff was made (the preview that was shown or approved); nothing was written. Run the call again to see the current content.`, 'write.changed-meanwhile');
}

/** The folder must still be reachable at its checked path as the same folder (it was not moved meanwhile). */
function reverify(g: PathGuard, w: Walked, dir: Dir, what: string): void {
  const rel = w.parent === dir ? w.relative.split('/').slice(0, -1).join('/') || '.' : undefined;
  if (rel === undefined) return; // folders we just created are held by descriptor; their parent was checked
  const again = walk(g.root, rel, { followFinal: true, refuseLinks: true, what: `folder of the ${what}` });
  try {
    if (!again.entry || idOf(again.entry.st) !== dir.id) {
      throw new ToolError('PATH_OUTSIDE_ROOT', `The folder of "${w.relative}" was moved or replaced while it was being written; nothing was written.`, 'write.folder-moved');
    }
  } finally {
    again.close();
  }
}

/** mkdir of each missing component relative to the held folder; each new folder is opened without following. */
function makeFolders(dir: Dir, components: readonly string[], created: number[]): { dir: Dir; name: string } {
  let cur = dir;
  for (const c of components.slice(0, -1)) {
    try {
      fs.mkdirSync(at(cur, c), 0o777);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const e = openEntry(cur, c);
    if (!e || !e.st.isDirectory() || e.fd === undefined) {
      closeQuietly(e?.fd);
      throw new ToolError('PATH_OUTSIDE_ROOT', `The new folder "${c}" was replaced (by a link or a file) right after it was created; nothing more was written.`, 'mkdir.swapped');
    }
    created.push(e.fd);
    cur = { fd: e.fd, real: `${cur.real}/${c}`, id: idOf(e.st) };
  }
  return { dir: cur, name: components[components.length - 1]! };
}

/** Creates folders for mkdir: `path` (decided real path) and, with `parents`, its missing ancestors. */
export function mkdirAt(g: PathGuard, real: string, parents: boolean): { relative: string; created: boolean } {
  const w = walk(g.root, real, { followFinal: true, refuseLinks: true, what: 'folder', allowMissingParents: parents });
  const held: number[] = [];
  try {
    const full = w.relative + (w.missingTail.length ? '/' + w.missingTail.join('/') : '');
    checkChangeable(g, { relative: full, real: w.real + (w.missingTail.length ? '/' + w.missingTail.join('/') : ''), ...(w.entry && { st: w.entry.st }) });
    if (w.entry) {
      if (parents && w.entry.st.isDirectory()) return { relative: full, created: false };
      throw new ToolError('IO_ERROR', `"${full}" already exists.`, 'mkdir.exists');
    }
    const { dir, name } = makeFolders(w.parent!, [w.name, ...w.missingTail], held);
    try {
      fs.mkdirSync(at(dir, name), 0o777);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new ToolError('IO_ERROR', `"${full}" appeared meanwhile.`, 'mkdir.exists');
      throw e;
    }
    const made = openEntry(dir, name);
    closeQuietly(made?.fd);
    if (!made?.st.isDirectory()) throw new ToolError('PATH_OUTSIDE_ROOT', `The new folder "${full}" was replaced right after it was created.`, 'mkdir.swapped');
    return { relative: full, created: true };
  } finally {
    for (const fd of held) closeQuietly(fd);
    w.close();
  }
}

/**
 * Removes a regular file (the one the plan saw), an empty folder, or (`link`: a command's effect removed one) a
 * symbolic link itself; never follows a link.
 */
export function removeAt(g: PathGuard, real: string, kind: 'file' | 'folder' | 'link', expectId?: string): string {
  const w = walk(g.root, real, { followFinal: false, refuseLinks: true, what: kind });
  try {
    if (!w.entry) throw new ToolError('PATH_NOT_FOUND', `"${w.relative}" no longer exists; nothing was removed.`, 'path.not-found');
    if (kind === 'link') {
      if (!w.entry.st.isSymbolicLink() || (expectId !== undefined && idOf(w.entry.st) !== expectId)) throw new ToolError('IO_ERROR', `"${w.relative}" changed before it could be deleted; nothing was deleted.`, 'delete.changed');
      checkChangeable(g, { relative: w.relative, real: w.real, st: w.entry.st });
      fs.unlinkSync(at(w.parent!, w.name));
      syncDir(w.parent!);
      return w.relative;
    }
    if (w.entry.st.isSymbolicLink()) throw new ToolError('BAD_REQUEST', `"${w.relative}" is a symbolic link now; nothing was removed.`, 'path.is-link');
    checkChangeable(g, { relative: w.relative, real: w.real, st: w.entry.st });
    if (kind === 'file') {
      requireRegular(w, 'file');
      if (expectId !== undefined && idOf(w.entry.st) !== expectId) throw new ToolError('IO_ERROR', `"${w.relative}" changed before it could be deleted; nothing was deleted.`, 'delete.changed');
      fs.unlinkSync(at(w.parent!, w.name));
    } else {
      if (!w.entry.st.isDirectory()) throw new ToolError('BAD_REQUEST', `"${w.relative}" is not a folder now; nothing was removed.`, 'rmdir.not-folder');
      try {
        fs.rmdirSync(at(w.parent!, w.name)); // never recursive: fails if something appeared
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOTEMPTY' || code === 'EEXIST') throw new ToolError('BAD_REQUEST', `The folder "${w.relative}" is no longer empty; nothing was removed.`, 'rmdir.not-empty');
        throw e;
      }
    }
    syncDir(w.parent!);
    return w.relative;
  } finally {
    w.close();
  }
}

/**
 * Creates the symbolic link `name → target` a command's effect made (the target as the command wrote it; the server
 * itself never follows a link out of the root). Fails if anything appeared at the name.
 */
export function symlinkAt(g: PathGuard, real: string, target: string): string {
  const w = walk(g.root, real, { followFinal: false, refuseLinks: true, what: 'link', allowMissingParents: true });
  const held: number[] = [];
  try {
    const full = w.relative + (w.missingTail.length ? '/' + w.missingTail.join('/') : '');
    checkChangeable(g, { relative: full, real: w.real + (w.missingTail.length ? '/' + w.missingTail.join('/') : ''), ...(w.entry && { st: w.entry.st }) });
    if (w.entry) throw new ToolError('IO_ERROR', `"${full}" already exists; nothing was overwritten.`, 'write.exists');
    const { dir, name } = w.missingTail.length ? makeFolders(w.parent!, [w.name, ...w.missingTail], held) : { dir: w.parent!, name: w.name };
    try {
      fs.symlinkSync(target, at(dir, name));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new ToolError('IO_ERROR', `"${full}" appeared meanwhile; nothing was overwritten.`, 'write.exists');
      throw e;
    }
    syncDir(dir);
    return full;
  } finally {
    for (const fd of held) closeQuietly(fd);
    w.close();
  }
}

/** Renames the regular file the plan saw to a new name; `overwrite` false fails if the destination appeared. */
export function moveAt(g: PathGuard, srcReal: string, destReal: string, options: { overwrite: boolean; expectSrcId: string; expectDestId?: string }): void {
  const s = walk(g.root, srcReal, { followFinal: false, refuseLinks: true, what: 'source' });
  try {
    const d = walk(g.root, destReal, { followFinal: true, refuseLinks: true, what: 'destination' });
    try {
      if (!s.entry || s.entry.st.isSymbolicLink() || !s.entry.st.isFile() || idOf(s.entry.st) !== options.expectSrcId) {
        throw new ToolError('IO_ERROR', `"${s.relative}" changed before it could be moved; nothing was moved.`, 'move.changed');
      }
      checkChangeable(g, { relative: s.relative, real: s.real, st: s.entry.st });
      checkChangeable(g, { relative: d.relative, real: d.real, ...(d.entry && { st: d.entry.st }) });
      if (d.entry) {
        if (!options.overwrite) throw new ToolError('IO_ERROR', `The destination "${d.relative}" already exists; nothing was moved.`, 'dest.exists');
        requireRegular(d, 'destination');
        if (options.expectDestId !== undefined && idOf(d.entry.st) !== options.expectDestId) throw changed(d.relative);
        fs.renameSync(at(s.parent!, s.name), at(d.parent!, d.name));
      } else {
        try {
          fs.linkSync(at(s.parent!, s.name), at(d.parent!, d.name));
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'EEXIST') throw new ToolError('IO_ERROR', `The destination "${d.relative}" appeared meanwhile; nothing was moved.`, 'dest.exists');
          if (openEntry(d.parent!, d.name)) throw new ToolError('IO_ERROR', `The destination "${d.relative}" already exists; nothing was moved.`, 'dest.exists');
          fs.renameSync(at(s.parent!, s.name), at(d.parent!, d.name)); // file systems without hard links
          return;
        }
        fs.unlinkSync(at(s.parent!, s.name));
      }
      syncDir(d.parent!);
    } finally {
      d.close();
    }
  } finally {
    s.close();
  }
}

/**
 * The plan-time look at a change target (decided by name): hidden, read-only and protected paths are denied
 * before anyone is asked. The same checks run again, on what is really there, when the change is applied.
 */
export function planChangeable(g: PathGuard, target: { readonly relative: string; readonly real: string; readonly exists: boolean }): void {
  let st: fs.BigIntStats | undefined;
  try {
    st = target.exists ? fs.lstatSync(target.real, { bigint: true }) : undefined;
  } catch {
    st = undefined;
  }
  checkChangeable(g, { relative: target.relative, real: target.real, ...(st && { st }) });
}

/** Lists a folder (links followed inside the root) through its descriptor. */
export function listAt(g: PathGuard, p: string): { relative: string; entries: fs.Dirent[] } {
  const w = walk(g.root, p, { followFinal: true, what: 'folder' });
  try {
    if (!w.entry) throw new ToolError('PATH_NOT_FOUND', `The folder "${p}" does not exist.`, 'path.not-found');
    if (!w.entry.st.isDirectory()) throw new ToolError('BAD_REQUEST', `"${w.relative}" is not a folder.`, 'list.not-folder');
    checkReadable(g, { relative: w.relative, real: w.real, st: w.entry.st });
    const fd = reopen(w.entry.fd!, w.real, C.O_RDONLY | (C.O_DIRECTORY ?? 0));
    try {
      const where = procFdWorks() ? `/proc/self/fd/${fd}` : w.real;
      return { relative: w.relative, entries: fs.readdirSync(where, { withFileTypes: true }) };
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    w.close();
  }
}

function fill(fd: number, content: Content): void {
  if (Buffer.isBuffer(content)) {
    let off = 0;
    while (off < content.length) off += fs.writeSync(fd, content, off, content.length - off);
    return;
  }
  const buf = Buffer.allocUnsafe(COPY_CHUNK);
  let pos = 0;
  for (;;) {
    const n = fs.readSync(content.fromFd, buf, 0, buf.length, pos);
    if (n === 0) return;
    let off = 0;
    while (off < n) off += fs.writeSync(fd, buf, off, n - off);
    pos += n;
  }
}

/** The next free `name.bkN` in the folder, reserved with O_EXCL (never overwrites, never follows a link). */
function writeBackupIn(dir: Dir, name: string, seen: Seen): string {
  for (let n = 1; n <= 10_000; n++) {
    const candidate = `${name}.bk${n}`;
    let fd: number;
    try {
      fd = createExclusive(dir, candidate, C.O_WRONLY, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new ToolError('IO_ERROR', `Cannot create the backup "${candidate}": ${(e as Error).message}`, 'backup.io');
    }
    try {
      fill(fd, seen.bytes);
      fs.fchmodSync(fd, seen.mode & 0o777);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return candidate;
  }
  throw new ToolError('IO_ERROR', 'Too many backups of this file (10000); delete old .bkN files first.', 'backup.too-many');
}
