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
 * already protects, bounded by MAX_SANDBOX_SCAN_ENTRIES (past it, `truncated` is set and reported).
 */

export interface ProtectedScan {
  /** Nested `.git` entries and the gitdirs their gitfiles point to (inside the root). */
  readonly git: readonly string[];
  /** Paths a protected glob matches. */
  readonly globbed: readonly string[];
  readonly truncated: boolean;
}

export function scanProtected(root: string, globs: readonly string[], maxEntries = MAX_SANDBOX_SCAN_ENTRIES): ProtectedScan {
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
