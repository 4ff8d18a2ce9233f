import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { SENSITIVE_HOME_ENTRIES } from '../isolation/context';
import type { Policy } from '../policy';
import { isInside } from './confine';
import { idOf } from './fdpath';
import { checkWritable } from './protected';

/**
 * ONE list of hidden and read-only paths, for the sandbox mounts AND for everything the server opens itself
 * (redirects, file tools). `sandboxPaths` is what the bubblewrap/Seatbelt context is built from; `guardFor`
 * adds identities (dev:ino) so that a hard link to a hidden or read-only file is recognised under any name.
 */

export interface SandboxPathLists {
  readonly hidden: readonly string[];
  readonly readOnly: readonly string[];
}

/** `~/x` is below the home directory, a relative path below the workspace root, an absolute path stays. */
export function sandboxPath(root: string, p: string, home = os.homedir()): string {
  const expanded = p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
  return path.resolve(root, expanded);
}

/** The configured hidden and read-only paths as absolute paths (the server's own files are read-only). */
export function sandboxPaths(policy: Pick<Policy, 'root' | 'sandboxHiddenPaths' | 'sandboxReadOnlyPaths' | 'ownFiles'>, home = os.homedir()): SandboxPathLists {
  return {
    hidden: policy.sandboxHiddenPaths.map((p) => sandboxPath(policy.root, p, home)),
    readOnly: [...policy.ownFiles, ...policy.sandboxReadOnlyPaths.map((p) => sandboxPath(policy.root, p, home))],
  };
}

export interface PathGuard {
  readonly root: string;
  /** Absolute paths (as configured, and their real paths when they exist). */
  readonly hidden: readonly string[];
  readonly readOnly: readonly string[];
  /** dev:ino of every hidden / read-only path that exists (a hard link has the same identity). */
  readonly hiddenIds: ReadonlySet<string>;
  readonly readOnlyIds: ReadonlySet<string>;
  readonly protectedPaths: readonly string[];
  readonly ownFiles: readonly string[];
  /**
   * Writing inside `.git` is judged by the sandbox's rule instead of being refused: set only for applying a
   * command's previewed effect (src/core/effects/apply.ts), whose guard lists git's program paths as read-only.
   */
  readonly gitInternals?: boolean;
}

type GuardPolicy = Pick<Policy, 'root' | 'sandboxHiddenPaths' | 'sandboxReadOnlyPaths' | 'ownFiles' | 'protectedPaths'>;

/** The guard for a policy. Cheap (a few stats); built per call so a settings change applies at once. */
export function guardFor(policy: GuardPolicy, home = os.homedir()): PathGuard {
  const lists = sandboxPaths(policy, home);
  const hidden = [...lists.hidden];
  // Inside the sandbox HOME is hidden; when the workspace contains HOME its credential stores are hidden one by
  // one. The server's own I/O is confined to the root, so only that second case can matter for it.
  const h = path.resolve(home || '/');
  if (h !== path.parse(h).root && isInside(policy.root, h)) for (const e of SENSITIVE_HOME_ENTRIES) hidden.push(path.join(h, e));
  const hiddenAll = withReal(hidden);
  const readOnlyAll = withReal(lists.readOnly);
  return {
    root: policy.root,
    hidden: hiddenAll,
    readOnly: readOnlyAll,
    hiddenIds: identities(hiddenAll),
    readOnlyIds: identities(readOnlyAll),
    protectedPaths: policy.protectedPaths,
    ownFiles: policy.ownFiles,
  };
}

/** The guard of a bare root (no lists): confinement and protected names only. */
export function bareGuard(root: string): PathGuard {
  return { root, hidden: [], readOnly: [], hiddenIds: new Set(), readOnlyIds: new Set(), protectedPaths: [], ownFiles: [] };
}

function withReal(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    out.add(p);
    try {
      out.add(fs.realpathSync.native(p));
    } catch {
      /* not there (yet): the name still counts */
    }
  }
  return [...out];
}

function identities(paths: readonly string[]): Set<string> {
  const ids = new Set<string>();
  for (const p of paths) {
    try {
      ids.add(idOf(fs.statSync(p, { bigint: true })));
    } catch {
      /* missing */
    }
  }
  return ids;
}

/** What the walk found: the logical real path, relative to the root, and the entry's lstat when it exists. */
export interface GuardTarget {
  readonly relative: string;
  readonly real: string;
  readonly st?: fs.BigIntStats;
}

/**
 * May this be read? Hidden paths (by name or identity) are not; nor a regular file with other hard links (they
 * may be outside the workspace or hidden; a link count says so, the other names cannot be found cheaply).
 */
export function checkReadable(g: PathGuard, t: GuardTarget): void {
  if (g.hidden.some((h) => isInside(h, t.real)) || (t.st && g.hiddenIds.has(idOf(t.st)))) {
    throw new ToolError('PATH_PROTECTED', `"${t.relative}" is a hidden path; the server does not open it.`, 'path.hidden');
  }
  if (t.st?.isFile() && t.st.nlink > 1n) {
    throw new ToolError('PATH_PROTECTED', `"${t.relative}" has ${t.st.nlink} hard links; its other names may be outside the workspace or hidden, so the server does not open it. Copy it with a command instead.`, 'path.hard-link');
  }
}

/**
 * May this name be created, replaced or removed? Everything checkReadable refuses, read-only paths (by name or
 * identity), and the protected names (.git, own files, protected globs). `inPlace` (an append or truncate of
 * the existing inode, as `>` and `>>` do) also refuses a file with other hard links: the write would land in
 * every one of them. A replacement by rename only changes this name, so it is not limited by the link count.
 */
export function checkChangeable(g: PathGuard, t: GuardTarget, options: { inPlace?: boolean } = {}): void {
  if (g.hidden.some((h) => isInside(h, t.real)) || (t.st && g.hiddenIds.has(idOf(t.st)))) {
    throw new ToolError('PATH_PROTECTED', `"${t.relative}" is a hidden path; the server does not open it.`, 'path.hidden');
  }
  if (t.relative === '.') throw new ToolError('PATH_PROTECTED', 'The workspace root itself cannot be changed.', 'protected.root');
  const verdict = checkWritable({ real: t.real, relative: t.relative, exists: t.st !== undefined, danglingLink: false }, g, { gitInternals: g.gitInternals === true });
  if (verdict && verdict.kind === 'deny') throw new ToolError(verdict.code, verdict.reason, verdict.rule);
  if (g.readOnly.some((r) => isInside(r, t.real)) || (t.st && g.readOnlyIds.has(idOf(t.st)))) {
    throw new ToolError('PATH_PROTECTED', `"${t.relative}" is a read-only path; it cannot be changed.`, 'path.read-only');
  }
  if (options.inPlace && t.st?.isFile() && t.st.nlink > 1n) {
    throw new ToolError('PATH_PROTECTED', `"${t.relative}" has ${t.st.nlink} hard links; writing into it would change the other names too (they may be protected or outside the workspace). Nothing was written.`, 'path.hard-link');
  }
}
