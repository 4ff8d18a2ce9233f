import * as fs from 'node:fs';
import * as path from 'node:path';
import { attempt } from '../attempt';

/**
 * Finds the file a command name will run: the same PATH lookup the executor's spawn would do (POSIX execvp:
 * each PATH entry in order, the first regular file with an execute bit; Windows: the name as given, then each
 * PATHEXT suffix), then `realpath`. The rules judge every name a program has (what it was called, the path
 * found, the file that path finally is) and the executor spawns the path found here, so the program that runs
 * is the program that was judged: no second lookup at spawn time.
 *
 * Relative PATH entries (including the empty entry, which execvp reads as ".") are resolved against the
 * call's working directory, as the child would; the caller then refuses programs inside the workspace.
 */

export interface ResolvedProgram {
  /** The command name exactly as the request gave it (whitespace already stripped). */
  readonly invoked: string;
  /** The absolute path the spawn will use. */
  readonly path: string;
  /** `realpath(path)`: every symlink and alternatives link followed. */
  readonly real: string;
}

export interface ResolveOptions {
  /** The PATH the child gets (so the lookup matches the executor's). */
  readonly pathEnv: string;
  /** The call's working directory (absolute), for relative PATH entries. */
  readonly cwd: string;
  readonly platform?: NodeJS.Platform;
  /** PATHEXT on Windows. */
  readonly pathExt?: string;
}

export type ResolveResult = ResolvedProgram | { readonly notFound: string };

function isExecutableFile(p: string, windows: boolean): boolean {
  try {
    // A PATH lookup misses in most directories: a missing entry answers undefined instead of throwing (an
    // exception with its stack per miss was most of this function's cost on every call).
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st?.isFile()) return false;
    if (windows) return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function candidates(base: string, windows: boolean, pathExt: string | undefined): string[] {
  if (!windows) return [base];
  const exts = (pathExt ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
  return [base, ...exts.map((e) => base + e.toLowerCase()), ...exts.map((e) => base + e.toUpperCase())];
}

function finish(invoked: string, found: string): ResolvedProgram {
  // A dangling link was not a file: isExecutableFile already refused it.
  return { invoked, path: found, real: attempt(() => fs.realpathSync.native(found)) ?? found };
}

export function resolveProgram(name: string, opts: ResolveOptions): ResolveResult {
  const windows = (opts.platform ?? process.platform) === 'win32';
  const hasSeparator = name.includes('/') || (windows && name.includes('\\'));
  if (hasSeparator) {
    // execvp does no lookup for a name with a slash: it is a path relative to the working directory.
    const abs = path.resolve(opts.cwd, name);
    for (const c of candidates(abs, windows, opts.pathExt)) if (isExecutableFile(c, windows)) return finish(name, c);
    return { notFound: `"${name}" is not an executable file` };
  }
  const entries = opts.pathEnv.split(windows ? ';' : ':');
  for (const entry of entries) {
    const dir = path.resolve(opts.cwd, entry === '' ? '.' : entry);
    for (const c of candidates(path.join(dir, name), windows, opts.pathExt)) {
      if (isExecutableFile(c, windows)) return finish(name, c);
    }
  }
  return { notFound: `"${name}" was not found on the PATH the command gets (${opts.pathEnv || '(empty)'})` };
}

/**
 * Never-runnable programs by FILE identity (device + inode), not only by name: a hard link or a bind mount of a
 * shell under a harmless name has no name or symlink that gives it away. For every PATH directory, the files
 * whose names are forbidden are stat-ed once; a program whose realpath has the same identity gets that name as
 * one more alias to judge. Cached per PATH and refreshed when a directory's mtime changes.
 */
const identityCache = new Map<string, { stamps: string; byIdentity: Map<string, string> }>();

export function forbiddenAliasByIdentity(real: string, pathEnv: string, isForbiddenName: (name: string) => boolean, platform: NodeJS.Platform = process.platform): string | undefined {
  const st = attempt(() => fs.statSync(real));
  if (!st) return undefined;
  if (platform === 'win32' || st.ino === 0) return undefined; // no stable inode numbers to compare
  const dirs = pathEnv.split(':').filter((d) => path.isAbsolute(d));
  // throwIfNoEntry: a missing PATH directory costs no exception per call.
  const stamps = dirs.map((d) => `${d}@${attempt(() => fs.statSync(d, { throwIfNoEntry: false }))?.mtimeMs ?? '-'}`).join('|');
  let cached = identityCache.get(pathEnv);
  if (!cached || cached.stamps !== stamps) {
    const byIdentity = new Map<string, string>();
    for (const dir of dirs) {
      for (const n of attempt(() => fs.readdirSync(dir)) ?? []) {
        const s = isForbiddenName(n) ? attempt(() => fs.statSync(path.join(dir, n))) : undefined; // undefined: dangling
        if (s?.isFile()) byIdentity.set(`${s.dev}:${s.ino}`, path.join(dir, n));
      }
    }
    cached = { stamps, byIdentity };
    identityCache.set(pathEnv, cached);
  }
  return cached.byIdentity.get(`${st.dev}:${st.ino}`);
}
