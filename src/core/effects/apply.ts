import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { attempt } from '../attempt';
import { isToolError } from '../errors';
import type { KeptFile } from '../files/backupStore';
import { mkdirAt, readRegular, removeAt, symlinkAt, writeAt, type Expect } from '../files/fdops';
import { closeQuietly, idOf } from '../paths/fdpath';
import type { PathGuard } from '../paths/guard';
import { hashOfFd } from './inventory';
import type { Before, EffectStep } from './types';

/**
 * Applies a previewed effect through the file tools' writer (src/core/files/fdops.ts): every path walked again from
 * the root by descriptor, the guard applied to what is really there, every replaced file checked to be exactly what
 * the card showed (its bytes, or for a file too large to hold its inode, size and change time), every new entry
 * created only where nothing is. First every step is checked against the workspace as it is now: a path changed
 * since the card was made is a conflict, and then nothing at all is written. Removals go first (deepest first),
 * then folders, files and links (parents first).
 */

export interface Conflict {
  readonly path: string;
  readonly why: string;
}

export type ApplyResult =
  | { readonly outcome: 'applied'; readonly applied: readonly string[] }
  | { readonly outcome: 'conflict'; readonly conflicts: readonly Conflict[] }
  /** Failed on the way (a race after the check): `applied` lists what landed before. */
  | { readonly outcome: 'failed'; readonly applied: readonly string[]; readonly error: string; readonly path: string };

export function conflictsOf(root: string, steps: readonly EffectStep[]): Conflict[] {
  const out: Conflict[] = [];
  const deleted = new Set(steps.flatMap((s) => (s.op === 'delete' ? [s.path] : [])));
  for (const s of steps) {
    if (s.op === 'skip') continue;
    const now = lstat(path.join(root, s.path));
    const before = s.op === 'delete' || s.op === 'write' ? s.before : undefined;
    if (before) {
      const why = differs(root, s.path, before, now, s.op === 'delete' ? steps : undefined);
      if (why) out.push({ path: s.path, why });
    } else if (now && !deleted.has(s.path)) {
      out.push({ path: s.path, why: 'it was created in the workspace after the command ran' });
    }
  }
  return out;
}

/** Why the workspace's entry is no longer the one the card was made from, or undefined. */
function differs(root: string, rel: string, b: Before, now: fs.BigIntStats | undefined, steps?: readonly EffectStep[]): string | undefined {
  if (!now) return 'it was removed from the workspace after the command ran';
  const kind = now.isFile() ? 'file' : now.isDirectory() ? 'folder' : now.isSymbolicLink() ? 'link' : 'other';
  if (kind !== b.kind || idOf(now) !== b.id) return 'it was replaced in the workspace after the command ran';
  if (kind === 'folder') {
    // Removing a folder: only what the command removed may be in it.
    const gone = new Set(steps!.flatMap((s) => (s.op === 'delete' && path.posix.dirname(s.path) === rel ? [path.posix.basename(s.path)] : [])));
    const extra = (attempt(() => fs.readdirSync(path.join(root, rel))) ?? []).filter((n) => !gone.has(n));
    return extra.length ? `something was added to it after the command ran (${extra.slice(0, 3).join(', ')})` : undefined;
  }
  if (kind !== 'file') return undefined;
  if (b.bytes) {
    const bytes = attempt(() => readNoFollow(path.join(root, rel)));
    return bytes && bytes.equals(b.bytes) ? undefined : 'it was changed in the workspace after the command ran';
  }
  return Number(now.size) === b.size && now.ctimeNs === b.ctimeNs ? undefined : 'it was changed in the workspace after the command ran';
}

/** Applies every step, or none when a path changed meanwhile. */
export function applyEffect(g: PathGuard, steps: readonly EffectStep[]): ApplyResult {
  const conflicts = conflictsOf(g.root, steps);
  if (conflicts.length) return { outcome: 'conflict', conflicts };
  const applied: string[] = [];
  const ordered = [...steps.filter((s) => s.op === 'delete'), ...steps.filter((s) => s.op !== 'delete' && s.op !== 'skip')];
  for (const s of ordered) {
    const real = path.join(g.root, s.path);
    try {
      applyStep(g, s, real);
      applied.push(s.path);
    } catch (e) {
      return { outcome: 'failed', applied, path: s.path, error: isToolError(e) ? e.message : `"${s.path}": ${(e as Error).message}` };
    }
  }
  return { outcome: 'applied', applied };
}

function applyStep(g: PathGuard, s: Exclude<EffectStep, { op: 'skip' }>, real: string): void {
  switch (s.op) {
    case 'delete': {
      const b = s.before;
      if (b.kind === 'file' && b.bytes && !readRegular(g, real, { decided: true }).bytes.equals(b.bytes)) {
        throw new Error(`"${s.path}" changed after the diff was made; it was not deleted`);
      }
      removeAt(g, real, b.kind === 'folder' ? 'folder' : b.kind === 'link' ? 'link' : 'file', b.kind === 'folder' ? undefined : b.id);
      return;
    }
    case 'mkdir':
      mkdirAt(g, real, true);
      return;
    case 'link':
      symlinkAt(g, real, s.target);
      return;
    case 'write': {
      // Exactly the bytes the card showed: a file small enough is read once, checked and written from memory; a
      // larger one is checked on its descriptor and copied from it.
      const fd = fs.openSync(s.source, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
      try {
        const small = s.size <= VERIFIED_IN_MEMORY ? fs.readFileSync(fd) : undefined;
        const now = small ? createHash('sha256').update(small).digest('hex') : hashOfFd(fd).hash;
        if (now !== s.hash) throw new Error(`"${s.path}" is not what the card showed (the view's copy changed since); nothing more was written`);
        writeAt(g, real, small ?? { fromFd: fd }, { what: 'file', expect: expectOf(s.before), mode: s.mode, mkdirs: true });
      } finally {
        closeQuietly(fd);
      }
    }
  }
}

/** Files up to this size are held in memory between their check and their write. */
const VERIFIED_IN_MEMORY = 16 * 1024 * 1024;

function expectOf(b: Before | undefined): Expect {
  if (!b) return { kind: 'absent' };
  if (b.bytes) return { kind: 'same', seen: { id: b.id, bytes: b.bytes, mode: b.mode } };
  return { kind: 'stat', id: b.id, size: b.size, ctimeNs: b.ctimeNs };
}

/**
 * The previous and new bytes of every file of the effect, for the backup store (Undo), or why they cannot all be
 * kept. Folders and links are not kept (Undo restores files); nor is `.git` (git's own history undoes git's work).
 */
export function keptFiles(steps: readonly EffectStep[], maxBytes: number): { files: KeptFile[]; missing?: string } {
  const files: KeptFile[] = [];
  const total = steps.reduce((n, s) => n + (s.op === 'write' ? s.size + (s.before?.size ?? 0) : s.op === 'delete' && s.before.kind === 'file' ? s.before.size : 0), 0);
  if (total > maxBytes) return { files: [], missing: `its files (${total} bytes before and after) are more than the backup store keeps (${maxBytes} bytes)` };
  for (const s of steps) {
    if (s.path.split('/').includes('.git')) continue;
    if (s.op === 'write') {
      if (s.before && !s.before.bytes) return { files: [], missing: `"${s.path}" is too large to keep` };
      const after = attempt(() => readNoFollow(s.source));
      if (!after) return { files: [], missing: `"${s.path}" could not be read` };
      files.push({ file: s.path, before: s.before?.bytes ?? null, ...(s.before && { mode: s.before.mode }), after });
    } else if (s.op === 'delete' && s.before.kind === 'file') {
      if (!s.before.bytes) return { files: [], missing: `"${s.path}" is too large to keep` };
      files.push({ file: s.path, before: s.before.bytes, mode: s.before.mode, after: null });
    }
  }
  return { files };
}

/** A file's bytes, refusing a link in its last component (the card's check; Apply checks again by descriptor). */
function readNoFollow(p: string): Buffer {
  const fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function lstat(p: string): fs.BigIntStats | undefined {
  try {
    return fs.lstatSync(p, { bigint: true });
  } catch {
    return undefined;
  }
}
