import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { resolveInside, type ResolvedPath } from '../paths/confine';
import { attempt } from '../attempt';

/**
 * Plan-time lookups shared by the file tools (a decision by name, realpath based: a symlink that leads out of
 * the workspace is outside). Nothing is read or written through these: every use goes through fdops, which
 * walks the decided path again by descriptor.
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
  return attempt(() => fs.lstatSync(path.resolve(root, p)).isSymbolicLink()) ?? false;
}

export function relativeTo(root: string, real: string): string {
  const rel = path.relative(root, real);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}
