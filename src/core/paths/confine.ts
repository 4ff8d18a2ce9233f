import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { attempt } from '../attempt';
import { windowsPathProblem } from './windows';

/**
 * Workspace confinement. The root is a REAL path (symlinks resolved once at start). A requested path is judged by
 * where it really leads: the realpath of the path if it exists, otherwise the realpath of its deepest existing
 * ancestor joined with the rest. Containment is separator-aware (`/ws-evil` is not inside `/ws`).
 */

/** True when `child` is `root` itself or below it. Both must be absolute and normalised. */
export function isInside(root: string, child: string): boolean {
  if (child === root) return true;
  const rel = path.relative(root, child);
  return rel !== '' && !rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel);
}

/** Rejects input that is not a usable path before touching the disk (on Windows, also what Win32 would rewrite). */
export function checkPathText(p: string, what = 'path', platform: NodeJS.Platform = process.platform): void {
  if (typeof p !== 'string' || p.length === 0) throw new ToolError('BAD_REQUEST', `The ${what} is empty.`, 'path.empty');
  if (p.includes('\0')) throw new ToolError('BAD_REQUEST', `The ${what} contains a NUL byte.`, 'path.nul');
  const windows = platform === 'win32' ? windowsPathProblem(p) : undefined;
  if (windows) throw new ToolError('BAD_REQUEST', `The ${what} "${p}" cannot be used on Windows: ${windows}.`, 'path.windows-form');
}

export interface ResolvedPath {
  /** Absolute path with every existing component's symlinks resolved. */
  readonly real: string;
  /** Whether the path itself exists (a dangling symlink counts as existing-but-broken: see `danglingLink`). */
  readonly exists: boolean;
  /** The final component is a symlink whose target does not exist (writing through it would create the target). */
  readonly danglingLink: boolean;
  /** Path relative to the root, with forward slashes ('.' for the root). */
  readonly relative: string;
}

/**
 * Resolves `p` (relative to `base`, which must itself be inside `root`) and throws PATH_OUTSIDE_ROOT when it
 * leads outside `root`. `base` defaults to `root`.
 */
export function resolveInside(root: string, p: string, options: { base?: string; what?: string } = {}): ResolvedPath {
  const what = options.what ?? 'path';
  checkPathText(p, what);
  const base = options.base ?? root;
  const absolute = path.resolve(base, p);
  const { real, exists, danglingLink } = realpathLenient(absolute);
  if (!isInside(root, real)) {
    throw new ToolError('PATH_OUTSIDE_ROOT', `The ${what} "${p}" leads outside the workspace (${root}).`, 'path.outside-root');
  }
  if (danglingLink) {
    // A dangling link inside the root may point anywhere; writing through it would create its target.
    const target = danglingTarget(real);
    if (target === undefined || !isInside(root, target)) {
      throw new ToolError('PATH_OUTSIDE_ROOT', `The ${what} "${p}" is a symbolic link that leads outside the workspace.`, 'path.dangling-link');
    }
  }
  return { real, exists, danglingLink, relative: relativeTo(root, real) };
}

/** `real` (already resolved and inside `root`) relative to `root`, with forward slashes ('.' for the root). */
export function relativeTo(root: string, real: string): string {
  const rel = path.relative(root, real);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

function realpathLenient(absolute: string): { real: string; exists: boolean; danglingLink: boolean } {
  try {
    return { real: fs.realpathSync.native(absolute), exists: true, danglingLink: false };
  } catch (e) {
    if (!isMissing(e)) throw new ToolError('IO_ERROR', `Cannot resolve "${absolute}": ${(e as Error).message}`);
  }
  const danglingLink = attempt(() => fs.lstatSync(absolute).isSymbolicLink()) ?? false; // else: does not exist at all
  // Walk up to the deepest existing ancestor, resolve it, and append the missing tail (which has no links).
  const tail: string[] = [];
  let cur = absolute;
  for (;;) {
    const parent = path.dirname(cur);
    tail.unshift(path.basename(cur));
    if (parent === cur) return { real: absolute, exists: false, danglingLink };
    cur = parent;
    try {
      const realParent = fs.realpathSync.native(cur);
      return { real: path.join(realParent, ...tail), exists: false, danglingLink };
    } catch (e) {
      if (!isMissing(e)) throw new ToolError('IO_ERROR', `Cannot resolve "${cur}": ${(e as Error).message}`);
    }
    // A missing ancestor that is itself a (dangling) link: the tail lives wherever that link finally leads.
    if (isLink(cur)) {
      const inner = realpathLenient(cur);
      const target = danglingTarget(inner.real);
      if (target === undefined) throw new ToolError('IO_ERROR', `Cannot resolve the link "${cur}".`);
      return { real: path.join(target, ...tail), exists: false, danglingLink };
    }
  }
}

function danglingTarget(linkReal: string, hops = 0): string | undefined {
  // `linkReal` is the link with its folder's symlinks resolved: a relative target is read from that REAL folder,
  // and a chain of dangling links is followed to its last hop (which is what a write would create).
  if (hops > 40) return undefined;
  try {
    const target = path.resolve(path.dirname(linkReal), fs.readlinkSync(linkReal));
    const r = realpathLenient(target);
    return r.danglingLink ? danglingTarget(r.real, hops + 1) : r.real;
  } catch {
    return undefined;
  }
}

function isLink(p: string): boolean {
  return attempt(() => fs.lstatSync(p).isSymbolicLink()) ?? false;
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** The real path of a root folder, or a clear error when it is not a directory. */
export function realRoot(dir: string): string {
  checkPathText(dir, 'workspace root');
  let real: string;
  try {
    real = fs.realpathSync.native(path.resolve(dir));
  } catch {
    throw new ToolError('PATH_NOT_FOUND', `The workspace root "${dir}" does not exist.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new ToolError('BAD_REQUEST', `The workspace root "${dir}" is not a directory.`);
  return real;
}
