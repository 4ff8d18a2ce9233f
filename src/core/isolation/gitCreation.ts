import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_SANDBOX_EXTRA_MOUNTS } from '../limits';
import { at, closeQuietly, openEntry, openRootDir } from '../paths/fdpath';

/**
 * What in a git directory makes git run a program later, outside the sandbox: its configuration (`core.hooksPath`,
 * `core.fsmonitor`, drivers, `include.path` …, also per worktree) and its hooks; in a linked worktree's gitdir, the
 * `commondir` that says where that configuration is. Without `allowGitWrites` these are read-only to a sandboxed
 * command and may not be created by one, while the rest of `.git` (objects, refs, the index, logs) stays writable
 * so that `git add`, `git commit` and `git branch` work. `git config` (which writes `config`) needs
 * `allowGitWrites`.
 *
 * What remains writable cannot make git run a program by itself: a rebase todo's `exec` lines run only on an
 * explicit `git rebase --continue`, like a script the agent wrote in the work tree (docs/isolation.md).
 */
export const GIT_PROGRAM_ENTRIES: readonly string[] = Object.freeze(['config', 'config.worktree', 'hooks', 'commondir']);

/**
 * The git directories below `gitDir` that have their own configuration and hooks: itself, each submodule's under
 * `modules/` (nested too) and each linked worktree's under `worktrees/`. Bounded, never following a link.
 */
export function gitDirsIn(gitDir: string, limit = MAX_SANDBOX_EXTRA_MOUNTS): string[] {
  const out = [gitDir];
  for (let i = 0; i < out.length && out.length < limit; i++) {
    for (const sub of ['modules', 'worktrees']) {
      const dir = path.join(out[i]!, sub);
      for (const e of safeReaddir(dir)) {
        if (!e.isDirectory() || out.length >= limit) continue;
        const g = path.join(dir, e.name);
        if (exists(path.join(g, 'HEAD'))) out.push(g);
        else if (sub === 'modules') out.push(...safeReaddir(g).filter((x) => x.isDirectory()).map((x) => path.join(g, x.name)).filter((x) => exists(path.join(x, 'HEAD'))).slice(0, limit - out.length));
      }
    }
  }
  return out;
}

/** Every program-naming entry of `gitDir` and of the git directories inside it, present or not. */
export function gitProgramPaths(gitDir: string): string[] {
  return gitDirsIn(gitDir).flatMap((g) => GIT_PROGRAM_ENTRIES.map((e) => path.join(g, e)));
}

function safeReaddir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Called right before a sandboxed command starts; the function it returns runs after every process of the command
 * is gone (its PID namespace ended) and undoes what a command must not leave behind, moving it aside by descriptor
 * (`NAME.blocked-<random>`) and saying so:
 * - a root `.git` that did not exist at the start (inside the sandbox the root `.git`'s parts are read-only mounts
 *   only when they exist: bwrap would CREATE a missing mount point on the host), so `git init` cannot plant hooks;
 * - a hooks folder, configuration or `commondir` created in the root's git directory (or a submodule's or a
 *   worktree's) where none was, for the same reason.
 */
export function watchRootGit(root: string): () => string | undefined {
  const gitDir = path.join(root, '.git');
  const existed = present(root);
  const before = new Set(existed ? gitProgramPaths(gitDir).filter(exists) : []);
  return () => {
    if (!existed) return present(root) ? moveAside(root, '.git', 'created ".git" at the workspace root, where none existed when it started') : undefined;
    if (!isRealDir(gitDir)) return undefined; // replaced by a file or link meanwhile: the mount kept the old one read-only
    const created = gitProgramPaths(gitDir).filter((p) => !before.has(p) && exists(p));
    const notes = created.map((p) => moveAside(path.dirname(p), path.basename(p), `created "${path.relative(root, p)}", which git would read or run later outside the sandbox`));
    return notes.length ? notes.join(' ') : undefined;
  };
}

function isRealDir(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function moveAside(dirPath: string, name: string, what: string): string {
  let dir: ReturnType<typeof openRootDir> | undefined;
  try {
    dir = openRootDir(dirPath);
    const aside = `${name}.blocked-${randomBytes(4).toString('hex')}`;
    fs.renameSync(at(dir, name), at(dir, aside));
    return `The command ${what}; it was moved to "${aside}". Allow git writes (sandbox.allowGitWrites) to keep such changes.`;
  } catch (e) {
    return `The command ${what}, and it could not be moved aside: ${(e as Error).message}. Check it before running git here.`;
  } finally {
    if (dir) closeQuietly(dir.fd);
  }
}

function present(root: string): boolean {
  try {
    const dir = openRootDir(root);
    try {
      const e = openEntry(dir, '.git');
      closeQuietly(e?.fd);
      return e !== undefined;
    } finally {
      closeQuietly(dir.fd);
    }
  } catch {
    return fs.existsSync(path.join(root, '.git'));
  }
}
