import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../paths/confine';
import { deny, type Verdict } from '../verdict';
import type { GitLocation } from './rules/git';
import { attempt } from '../attempt';

/**
 * Which git directory a git call will use, checked against the disk. A git directory supplies configuration
 * (core.fsmonitor, aliases, filters, hooks …), so only the workspace's OWN repository may be used: the one git
 * finds from the workspace root (its .git, or the enclosing repository the operator opened the workspace in).
 * Refused: `--git-dir`/`--bare` naming any other directory, `--work-tree` outside the workspace, and a call
 * whose working directory (after `-C`) leads git to a different repository — a nested `.git` the agent wrote,
 * a bare-looking directory (HEAD + objects/ + refs/), or a repository outside the workspace.
 * A nested `.git` FILE that points into the own .git (a submodule or a linked worktree) is the own repository.
 */

export interface OwnRepository {
  /** realpath of the git directory found from the root (undefined when the root is in no repository). */
  readonly gitDir?: string;
  /** realpath of its common directory (`commondir` of a linked worktree), else gitDir. */
  readonly commonDir?: string;
}

function real(p: string): string | undefined {
  return attempt(() => fs.realpathSync.native(p));
}

function isDir(p: string): boolean {
  return attempt(() => fs.statSync(p).isDirectory()) ?? false;
}

/** git's is_git_directory: HEAD plus objects/ and refs/ (or a commondir file). */
function looksLikeGitDir(dir: string): boolean {
  if (!fs.existsSync(path.join(dir, 'HEAD'))) return false;
  if (fs.existsSync(path.join(dir, 'commondir'))) return true;
  return isDir(path.join(dir, 'objects')) && isDir(path.join(dir, 'refs'));
}

/** The directory a `.git` entry names: the entry itself when it is a directory, the `gitdir:` target of a file. */
function gitDirOfDotGit(dotGit: string): string | undefined {
  try {
    const st = fs.statSync(dotGit);
    if (st.isDirectory()) return real(dotGit);
    if (!st.isFile()) return undefined;
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, 'utf8'));
    return m ? real(path.resolve(path.dirname(dotGit), m[1]!)) : undefined;
  } catch {
    return undefined;
  }
}

/** Walks up from `start` as git's discovery does; returns the git directory found (realpath) and where. */
function discover(start: string): { gitDir: string; at: string } | undefined {
  let dir = start;
  for (;;) {
    const dotGit = path.join(dir, '.git');
    if (fs.existsSync(dotGit)) {
      const g = gitDirOfDotGit(dotGit);
      if (g) return { gitDir: g, at: dir };
    }
    if (looksLikeGitDir(dir)) {
      const g = real(dir);
      if (g) return { gitDir: g, at: dir };
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function commonDirOf(gitDir: string): string {
  const c = attempt(() => fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  return (c !== undefined && real(path.resolve(gitDir, c))) || gitDir;
}

export function ownRepository(root: string): OwnRepository {
  const found = discover(root);
  if (!found) return {};
  return { gitDir: found.gitDir, commonDir: commonDirOf(found.gitDir) };
}

/** True when `gitDir` is the own repository or lives inside its common directory (worktrees/, modules/). */
function isOwn(gitDir: string, own: OwnRepository): boolean {
  if (!own.gitDir || !own.commonDir) return false;
  return gitDir === own.gitDir || gitDir === own.commonDir || isInside(own.commonDir, gitDir);
}

const refuse = (rule: string, message: string): Verdict => deny('ARGUMENT_FORBIDDEN', rule, message);

/**
 * Where a git call will find its repository: a denial, or the repository it will use (undefined when none).
 * `cwd` is the call's real working directory.
 */
export function locateGitRepository(loc: GitLocation, cwd: string, root: string, own: OwnRepository = ownRepository(root)): { readonly refused: Verdict } | { readonly repo?: OwnRepository } {
  let dir = cwd;
  for (const c of loc.chdirs) if (c !== '') dir = path.resolve(dir, c);
  if (loc.workTree !== undefined) {
    const wt = path.resolve(dir, loc.workTree);
    const wtReal = real(wt) ?? wt;
    if (!isInside(root, wtReal)) {
      return { refused: refuse('git.foreign-work-tree', `git --work-tree=${loc.workTree} is not allowed: the work tree must be inside the workspace.`) };
    }
  }
  const explicit = loc.gitDir ?? (loc.bare ? '.' : undefined);
  let gitDir: string | undefined;
  if (explicit !== undefined) {
    gitDir = real(path.resolve(dir, explicit));
    if (gitDir === undefined) return {}; // git fails: "not a git repository"
    if (!isOwn(gitDir, own)) {
      return { refused: refuse('git.foreign-git-dir', `git ${loc.gitDir !== undefined ? `--git-dir=${loc.gitDir}` : '--bare'} is not allowed: only the workspace's own repository${own.gitDir ? ` (${own.gitDir})` : ''} may supply git configuration, and "${gitDir}" is another git directory.`) };
    }
  } else {
    const startReal = real(dir);
    if (startReal === undefined) return {}; // git fails: cannot change to that directory
    const found = discover(startReal);
    if (!found) return {};
    if (!isOwn(found.gitDir, own)) {
      return { refused: refuse('git.foreign-git-dir', `git would use the repository at "${found.at}" (${found.gitDir}), which is not the workspace's own repository${own.gitDir ? ` (${own.gitDir})` : ''}: a nested or outside git directory supplies its own configuration (hooks, fsmonitor, filters), so git is refused there.`) };
    }
    gitDir = found.gitDir;
  }
  return { repo: { gitDir, commonDir: commonDirOf(gitDir) } };
}

/** Checks where a git call will find its repository: a denial, or undefined when git uses the own repository (or none). */
export function checkGitLocation(loc: GitLocation, cwd: string, root: string, own: OwnRepository = ownRepository(root)): Verdict | undefined {
  const r = locateGitRepository(loc, cwd, root, own);
  return 'refused' in r ? r.refused : undefined;
}
