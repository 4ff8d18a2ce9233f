import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { at, closeQuietly, openEntry, openRootDir } from '../paths/fdpath';

/**
 * A root `.git` that did not exist when a sandboxed command started must not survive it: inside the sandbox the
 * root `.git` is a read-only mount only when it exists (bwrap would create a missing mount point ON THE HOST),
 * so a command could `git init` and plant hooks that git runs later, outside the sandbox. After the command
 * (every process of it is dead: the sandbox's PID namespace is gone) a new root `.git` is moved aside to
 * `.git.blocked-<random>` by descriptor, and the result says so.
 */
export function watchRootGit(root: string): () => string | undefined {
  const existed = present(root);
  return () => {
    if (existed || !present(root)) return undefined;
    const dir = openRootDir(root);
    try {
      const aside = `.git.blocked-${randomBytes(4).toString('hex')}`;
      fs.renameSync(at(dir, '.git'), at(dir, aside));
      return `The command created ".git" at the workspace root, where none existed when it started; it was moved to "${aside}" (hooks in a new repository would run outside the sandbox). Allow git writes to keep such changes.`;
    } catch (e) {
      return `The command created ".git" at the workspace root and it could not be moved aside: ${(e as Error).message}. Check it before running git here.`;
    } finally {
      closeQuietly(dir.fd);
    }
  };
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
