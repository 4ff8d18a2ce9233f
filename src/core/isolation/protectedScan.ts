import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_SANDBOX_EXTRA_MOUNTS, MAX_SANDBOX_SCAN_ENTRIES } from '../limits';
import { isInside } from '../paths/confine';
import { matchesGlob } from '../paths/glob';
import { attempt } from '../attempt';

/**
 * What inside the workspace must be mounted read-only besides the root `.git`: every nested `.git` (folder or
 * gitfile; a gitfile's `gitdir:` target too when it lies inside the workspace), and every path a protected
 * glob (`--protect .env`) matches. A breadth-first walk that never follows a link and does not enter what it
 * already protects, bounded by MAX_SANDBOX_SCAN_ENTRIES (it stops after the folder that crosses it, `truncated`
 * set and reported) and by MAX_SANDBOX_EXTRA_MOUNTS.
 *
 * Every sandboxed command needs it, and on a big workspace (a node_modules of 40,000 files) the full walk cost about
 * 200 ms per call. So each folder's listing is kept and used again while the folder's own identity and times are
 * unchanged: a name added, removed or renamed in a folder changes its mtime and ctime, so a stat per folder tells
 * what must be read again. A folder changed within RACY_MS of the walk is read again every time until it is older
 * (file system times come from a coarse clock: a change in the same tick as the recorded time would not show, the
 * "racy git" problem), and a gitfile's target is read again on every walk (its content, not a name, decides it).
 */

export interface ProtectedScan {
  /** Nested `.git` entries and the gitdirs their gitfiles point to (inside the root). */
  readonly git: readonly string[];
  /** Paths a protected glob matches. */
  readonly globbed: readonly string[];
  readonly truncated: boolean;
  /** Folders whose listing was read in this walk (the rest came from the kept listings). */
  readonly foldersRead?: number;
}

/** A folder changed this recently is read again on the next walk, whatever its times say. */
const RACY_MS = 2000;
/** Workspaces whose listings are kept (the most recently scanned). */
const KEPT_WORKSPACES = 8;

/** One folder's listing as the walk needs it, with the identity and times it was read under. */
interface Listing {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly racy: boolean;
  /** Entries in the folder (the walk's bound counts them). */
  readonly entries: number;
  /** Folders to walk into (not `.git`, not protected). */
  readonly folders: readonly string[];
  /** Nested `.git` entries here. */
  readonly git: readonly string[];
  /** `.git` FILES here, whose target is read on every walk. */
  readonly gitfiles: readonly string[];
  readonly globbed: readonly string[];
}

const kept = new Map<string, Map<string, Listing>>();

export function scanProtected(root: string, globs: readonly string[], maxEntries = MAX_SANDBOX_SCAN_ENTRIES, racyMs = RACY_MS): ProtectedScan {
  const key = JSON.stringify([root, globs, maxEntries]);
  const before = kept.get(key);
  kept.delete(key);
  // The end of this millisecond: Date.now() floors, and a folder changed earlier in the same millisecond would
  // otherwise look changed in the future (racy for any window, even none).
  const now = BigInt(Date.now()) * 1_000_000n + 999_999n;
  const racyNs = BigInt(racyMs) * 1_000_000n;
  const listings = new Map<string, Listing>();
  const git = new Set<string>();
  const globbed = new Set<string>();
  let seen = 0;
  let foldersRead = 0;
  const queue: string[] = [root];
  let truncated = false;
  // Adds a mount unless the mounts are full (then the walk stops: bubblewrap's arguments are bounded too).
  const add = (set: Set<string>, p: string): boolean => {
    if (set.has(p)) return true;
    if (git.size + globbed.size >= MAX_SANDBOX_EXTRA_MOUNTS) return false;
    set.add(p);
    return true;
  };
  walk: while (queue.length > 0) {
    const dir = queue.shift()!;
    const previous = before?.get(dir);
    const listing = listingOf(dir, root, globs, previous, now, racyNs);
    if (!listing) continue;
    if (listing !== previous) foldersRead++;
    listings.set(dir, listing);
    for (const g of listing.git) if (!add(git, g)) { truncated = true; break walk; }
    for (const f of listing.gitfiles) {
      const gitdir = gitfileTarget(f);
      if (gitdir && isInside(root, gitdir) && gitdir !== root && !add(git, gitdir)) { truncated = true; break walk; }
    }
    for (const g of listing.globbed) if (!add(globbed, g)) { truncated = true; break walk; }
    // The bound counts entries, and stops after the folder that crosses it (its listing is read whole anyway).
    seen += listing.entries;
    if (seen > maxEntries) {
      truncated = true;
      break;
    }
    queue.push(...listing.folders);
  }
  kept.set(key, listings);
  for (const old of kept.keys()) {
    if (kept.size <= KEPT_WORKSPACES) break;
    kept.delete(old);
  }
  return { git: [...git], globbed: [...globbed], truncated, foldersRead };
}

/** The folder's kept listing while it is unchanged, else a fresh one; undefined when it is not a folder (any more). */
function listingOf(dir: string, root: string, globs: readonly string[], previous: Listing | undefined, now: bigint, racyNs: bigint): Listing | undefined {
  // The stat comes before the read: a change after it leaves newer times than the ones recorded, read next time.
  const st = attempt(() => fs.lstatSync(dir, { bigint: true }));
  if (!st || !st.isDirectory()) return undefined;
  if (previous && !previous.racy && previous.dev === st.dev && previous.ino === st.ino && previous.mtimeNs === st.mtimeNs && previous.ctimeNs === st.ctimeNs) return previous;
  const folders: string[] = [];
  const git: string[] = [];
  const gitfiles: string[] = [];
  const globbed: string[] = [];
  const entries = attempt(() => fs.readdirSync(dir, { withFileTypes: true })) ?? [];
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.name === '.git') {
      if (dir !== root) git.push(full); // the root .git is mounted by the caller (and may be absent)
      if (e.isFile()) gitfiles.push(full);
      continue;
    }
    if (globs.some((g) => matchesGlob(path.relative(root, full).split(path.sep).join('/'), g))) {
      globbed.push(full);
      continue;
    }
    if (e.isDirectory()) folders.push(full);
  }
  const racy = now - st.mtimeNs < racyNs || now - st.ctimeNs < racyNs;
  return { dev: st.dev, ino: st.ino, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, racy, entries: entries.length, folders, git, gitfiles, globbed };
}

/** The walk itself, every folder read: the reference the kept listings must agree with (below the bounds). */
export function walkProtected(root: string, globs: readonly string[], maxEntries = MAX_SANDBOX_SCAN_ENTRIES): ProtectedScan {
  const git = new Set<string>();
  const globbed = new Set<string>();
  let seen = 0;
  let truncated = false;
  const queue: string[] = [root];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    for (const e of attempt(() => fs.readdirSync(dir, { withFileTypes: true })) ?? []) {
      if (++seen > maxEntries || git.size + globbed.size >= MAX_SANDBOX_EXTRA_MOUNTS) {
        truncated = true;
        return { git: [...git], globbed: [...globbed], truncated };
      }
      const full = path.join(dir, e.name);
      const rel = path.relative(root, full).split(path.sep).join('/');
      if (e.name === '.git') {
        if (dir !== root) git.add(full); // the root .git is mounted by the caller (and may be absent)
        const gitdir = e.isFile() ? gitfileTarget(full) : undefined;
        if (gitdir && isInside(root, gitdir) && gitdir !== root) git.add(gitdir);
        continue;
      }
      if (globs.some((g) => matchesGlob(rel, g))) {
        globbed.add(full);
        continue;
      }
      if (e.isDirectory()) queue.push(full);
    }
  }
  return { git: [...git], globbed: [...globbed], truncated };
}

/** The folder a `.git` FILE points to (`gitdir: <path>`), resolved against its folder; undefined if none. */
function gitfileTarget(file: string): string | undefined {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    try {
      if (!fs.fstatSync(fd).isFile()) return undefined;
      const buf = Buffer.alloc(4096);
      const n = fs.readSync(fd, buf, 0, buf.length, 0);
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(buf.subarray(0, n).toString('utf8'));
      if (!m) return undefined;
      const target = path.resolve(path.dirname(file), m[1]!);
      return attempt(() => fs.realpathSync.native(target));
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
