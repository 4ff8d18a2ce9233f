import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { attempt } from '../attempt';
import { isToolError } from '../errors';
import { closeQuietly, idOf } from '../paths/fdpath';
import { checkChangeable, type PathGuard } from '../paths/guard';
import { openForRead } from '../paths/open';
import { readOpaque } from './opaque';
import type { OverlayView } from './overlay';
import type { Before, EffectStep, EntryKind } from './types';

/**
 * Reads what a previewed command changed: the upper layer of its view, compared with the workspace. The upper layer
 * holds exactly what the command wrote: a regular file for every file it created or changed (whole, copied up),
 * a folder for every folder it made or changed something in, a whiteout (a character device 0:0) for every entry it
 * removed, and an opaque mark on a folder it made where it had removed one (opaque.ts). A file it only opened for
 * writing, or touched, is in the upper layer unchanged: compared byte for byte, it is no change.
 *
 * The upper layer is the server's own folder and nothing writes it any more (the command's processes are gone with
 * its mount namespace): it is read by path, never following a link. The workspace is looked at by lstat while
 * walking down from folders seen as real folders, and every file whose bytes are shown is opened by descriptor under
 * the path guard (hidden, read-only and protected paths as for the file tools). Apply checks it all again.
 */

export interface InventoryOptions {
  /** perl, for the opaque marks. */
  readonly perl: string;
  /** The guard Apply will use (effects/gitRule.ts): what it refuses is listed as not applied. */
  readonly guard: PathGuard;
  /** Why a path inside `.git` is not applied (a new repository, git's program entries), or undefined. */
  readonly gitRefusal: (relative: string, creating: boolean) => string | undefined;
  /** Bytes of previous contents held in memory (for diffs, exact checks and the Undo backup); the rest by stat. */
  readonly keepBytes?: number;
}

/** Previous contents held for one effect, at most (the backup store's own bound). */
export const KEEP_BYTES = 64 * 1024 * 1024;
/** One previous file held in memory, at most (the file tools' limit). */
const KEEP_FILE_BYTES = 16 * 1024 * 1024;
const HASH_BYTES = 1024 * 1024;

export async function readEffect(view: OverlayView, root: string, o: InventoryOptions): Promise<EffectStep[]> {
  const opaque = await readOpaque(o.perl, foldersOverFolders(view.upper, root));
  const steps: EffectStep[] = [];
  let kept = 0;
  const budget = o.keepBytes ?? KEEP_BYTES;

  const lowerAt = (rel: string): fs.BigIntStats | undefined => lstat(path.join(root, rel));
  const real = (rel: string) => path.join(root, rel);

  /** The workspace's entry as it is now; a regular file's bytes too, within the budget. */
  const before = (rel: string, st: fs.BigIntStats): Before | string => {
    const base = { kind: kindOf(st), id: idOf(st), size: Number(st.size), mode: Number(st.mode), ctimeNs: st.ctimeNs };
    if (!st.isFile() || st.size > BigInt(KEEP_FILE_BYTES) || kept + Number(st.size) > budget) return base;
    try {
      const f = openForRead(o.guard, real(rel), { refuseLinks: true });
      try {
        const bytes = fs.readFileSync(f.fd);
        kept += bytes.length;
        return { ...base, id: idOf(f.st), ctimeNs: f.st.ctimeNs, size: bytes.length, mode: Number(f.st.mode), bytes };
      } finally {
        closeQuietly(f.fd);
      }
    } catch (e) {
      // A file with other hard links is never opened by the server: it is checked by its inode instead.
      if (isToolError(e) && e.rule === 'path.hard-link') return base;
      return isToolError(e) ? e.message : `"${rel}" cannot be read: ${(e as Error).message}`;
    }
  };

  /** Why Apply would refuse to change this path, or undefined. */
  const refusal = (rel: string, st: fs.BigIntStats | undefined, creating: boolean): string | undefined => {
    const git = o.gitRefusal(rel, creating);
    if (git) return git;
    try {
      checkChangeable(o.guard, { relative: rel, real: real(rel), ...(st && { st }) });
      return undefined;
    } catch (e) {
      return isToolError(e) ? e.message : String(e);
    }
  };

  const skip = (rel: string, why: string) => steps.push({ op: 'skip', path: rel, why });

  /** Everything at `rel` in the workspace goes: a folder's content first, deepest first. */
  const removeTree = (rel: string, st: fs.BigIntStats): boolean => {
    const no = refusal(rel, st, false);
    if (no) return skip(rel, no), false;
    if (st.isDirectory()) {
      let all = true;
      for (const name of readdir(real(rel)) ?? []) {
        const child = lowerAt(`${rel}/${name}`);
        if (child && !removeTree(`${rel}/${name}`, child)) all = false;
      }
      if (!all) return skip(rel, 'not removed: something inside it is not removed'), false;
    }
    if (!st.isDirectory() && !st.isFile() && !st.isSymbolicLink()) return skip(rel, 'a device, pipe or socket in the workspace is not removed'), false;
    const b = before(rel, st);
    if (typeof b === 'string') return skip(rel, b), false;
    steps.push({ op: 'delete', path: rel, before: b });
    return true;
  };

  /** Creates below a folder that is new: everything in the upper layer is new, nothing is compared. */
  const visit = (rel: string, lowerIsFolder: boolean, isOpaque: boolean): void => {
    const names = readdir(path.join(view.upper, rel)) ?? [];
    if (lowerIsFolder && isOpaque) {
      const present = new Set(names);
      for (const name of readdir(real(rel)) ?? []) {
        if (present.has(name)) continue;
        const child = lowerAt(join(rel, name));
        if (child) removeTree(join(rel, name), child);
      }
    }
    for (const name of names.sort()) {
      const p = join(rel, name);
      const u = lstat(path.join(view.upper, p));
      if (!u) continue;
      const l = lowerIsFolder ? lowerAt(p) : undefined;
      if (isWhiteout(u)) {
        if (l) removeTree(p, l);
        continue;
      }
      if (u.isDirectory()) {
        if (l?.isDirectory()) {
          // A folder the command changed something in: only what is inside it is a change.
          visit(p, true, opaque.has(path.join(view.upper, p)));
          continue;
        }
        if (!replace(p, l)) continue;
        const no = refusal(p, undefined, true);
        if (no) {
          skip(p, no);
          continue;
        }
        steps.push({ op: 'mkdir', path: p });
        visit(p, false, false);
      } else if (u.isFile()) {
        const source = path.join(view.upper, p);
        const mode = Number(u.mode) & 0o777;
        if (l?.isFile()) {
          const b = before(p, l);
          if (typeof b === 'string') {
            skip(p, b);
            continue;
          }
          const contentChanged = !sameContent(source, b, real(p));
          if (!contentChanged && mode === (b.mode & 0o777)) continue; // opened or touched, not changed
          const no = refusal(p, l, false);
          if (no) {
            skip(p, no);
            continue;
          }
          steps.push({ op: 'write', path: p, source, ...hashOfFile(source), mode, before: b, contentChanged });
          continue;
        }
        if (!replace(p, l)) continue;
        const no = refusal(p, undefined, true);
        if (no) skip(p, no);
        else steps.push({ op: 'write', path: p, source, ...hashOfFile(source), mode, contentChanged: true });
      } else if (u.isSymbolicLink()) {
        const target = fs.readlinkSync(path.join(view.upper, p));
        if (l?.isSymbolicLink() && attempt(() => fs.readlinkSync(real(p))) === target) continue;
        if (!replace(p, l)) continue;
        const no = refusal(p, undefined, true);
        if (no) skip(p, no);
        else steps.push({ op: 'link', path: p, target });
      } else {
        skip(p, 'the command made a device, pipe or socket; Apply does not make one');
      }
    }
  };

  /** What was at `p` before a new entry of another kind takes its place; false when it cannot go. */
  const replace = (p: string, l: fs.BigIntStats | undefined): boolean => {
    if (!l) return true;
    if (removeTree(p, l)) return true;
    skip(p, 'not applied: what is there now is not removed');
    return false;
  };

  visit('', true, false);
  markRenames(steps);
  return steps;
}

/** Folders of the upper layer that are folders in the workspace too: only there does an opaque mark matter. */
function foldersOverFolders(upper: string, root: string): string[] {
  const out: string[] = [];
  const walkDown = (rel: string): void => {
    for (const name of readdir(path.join(upper, rel)) ?? []) {
      const p = join(rel, name);
      const u = lstat(path.join(upper, p));
      if (!u?.isDirectory()) continue;
      if (lstat(path.join(root, p))?.isDirectory()) {
        out.push(path.join(upper, p));
        walkDown(p);
      }
    }
  };
  walkDown('');
  return out;
}

/** Same bytes? Held bytes are compared directly; a larger file is compared chunk by chunk, by descriptor. */
function sameContent(source: string, b: Before, realPath: string): boolean {
  const upperSize = lstat(source)?.size;
  if (upperSize === undefined || Number(upperSize) !== b.size) return false;
  if (b.bytes) return fs.readFileSync(source).equals(b.bytes);
  let a: number | undefined;
  let c: number | undefined;
  try {
    a = fs.openSync(source, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    c = fs.openSync(realPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    if (idOf(fs.fstatSync(c, { bigint: true })) !== b.id) return false;
    const x = Buffer.allocUnsafe(HASH_BYTES);
    const y = Buffer.allocUnsafe(HASH_BYTES);
    for (let pos = 0; ; ) {
      const n = fs.readSync(a, x, 0, x.length, pos);
      const m = fs.readSync(c, y, 0, y.length, pos);
      if (n !== m) return false;
      if (n === 0) return true;
      if (!x.subarray(0, n).equals(y.subarray(0, m))) return false;
      pos += n;
    }
  } catch {
    return false;
  } finally {
    closeQuietly(a);
    closeQuietly(c);
  }
}

/**
 * A new file with the exact bytes of a file the same effect deleted is shown as a rename, when the match is one to
 * one (exactly one deleted and one created file with those bytes) and not empty: `rm a; touch b` is no rename.
 */
function markRenames(steps: EffectStep[]): void {
  const key = (size: number, bytes: Buffer) => `${size}:${hash(bytes)}`;
  const gone = new Map<string, string[]>();
  for (const s of steps) {
    if (s.op === 'delete' && s.before.bytes && s.before.size > 0 && s.before.size <= HASH_BYTES) push(gone, key(s.before.size, s.before.bytes), s.path);
  }
  if (gone.size === 0) return;
  const made = new Map<string, number[]>();
  steps.forEach((s, i) => {
    if (s.op === 'write' && !s.before && s.size > 0 && s.size <= HASH_BYTES) push(made, key(s.size, fs.readFileSync(s.source)), i);
  });
  for (const [k, [i, ...others]] of made) {
    const from = gone.get(k);
    if (i === undefined || others.length || !from || from.length !== 1) continue;
    steps[i] = { ...(steps[i] as Extract<EffectStep, { op: 'write' }>), renamedFrom: from[0]! };
  }
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A file of the upper layer: its size and sha256, read once by descriptor (never following a link). */
export function hashOfFile(p: string): { size: number; hash: string } {
  const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    return hashOfFd(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Size and sha256 of what an open file holds, read from its start. */
export function hashOfFd(fd: number): { size: number; hash: string } {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(HASH_BYTES);
  let size = 0;
  for (let n; (n = fs.readSync(fd, buf, 0, buf.length, size)) > 0; size += n) h.update(buf.subarray(0, n));
  return { size, hash: h.digest('hex') };
}
const join = (rel: string, name: string) => (rel ? `${rel}/${name}` : name);

function isWhiteout(st: fs.BigIntStats): boolean {
  return st.isCharacterDevice() && st.rdev === 0n;
}

function kindOf(st: fs.BigIntStats): EntryKind {
  return st.isFile() ? 'file' : st.isDirectory() ? 'folder' : st.isSymbolicLink() ? 'link' : 'other';
}

function lstat(p: string): fs.BigIntStats | undefined {
  try {
    return fs.lstatSync(p, { bigint: true });
  } catch {
    return undefined;
  }
}

function readdir(p: string): string[] | undefined {
  try {
    return fs.readdirSync(p);
  } catch {
    return undefined;
  }
}
