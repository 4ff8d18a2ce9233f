import * as fs from 'node:fs';
import * as path from 'node:path';
import { attempt } from '../attempt';
import { gitProgramPaths } from '../isolation/gitCreation';
import { isInside } from '../paths/confine';
import { guardFor, type PathGuard } from '../paths/guard';
import type { Policy } from '../policy';

/**
 * What Apply may write, for a command's effect: exactly what the sandbox let the command write itself. That is the
 * file tools' rule everywhere but in `.git`, which the file tools never write and the sandbox leaves writable
 * (objects, refs, the index, logs: `git add` and `git commit` work) except what makes git run a program later — the
 * configuration and hooks of every git directory (isolation/gitCreation.ts) — and, without `allowGitWrites`, a new
 * repository (a `.git` that was not there when the command started, as watchRootGit undoes after a plain run).
 * With `allowGitWrites` all of `.git` is writable, as in the sandbox.
 */
export class EffectRules {
  private readonly programPaths = new Map<string, readonly string[]>();

  constructor(private readonly policy: Pick<Policy, 'root' | 'allowGitWrites' | 'sandboxHiddenPaths' | 'sandboxReadOnlyPaths' | 'ownFiles' | 'protectedPaths'>) {}

  /** The path guard of Apply: the file tools' one, `.git` judged by this rule (its program entries read-only). */
  guard(): PathGuard {
    const g = guardFor(this.policy);
    const rootGit = path.join(this.policy.root, '.git');
    if (!this.policy.allowGitWrites) this.programsOf(rootGit);
    return { ...g, gitInternals: true, readOnly: [...g.readOnly, ...[...this.programPaths.values()].flat()] };
  }

  /** Why a change at `relative` inside a `.git` is not applied, or undefined (also outside `.git`). */
  gitRefusal(relative: string, creating: boolean): string | undefined {
    const parts = relative.split('/');
    const i = parts.indexOf('.git');
    if (i < 0 || this.policy.allowGitWrites) return undefined;
    const gitPath = path.join(this.policy.root, ...parts.slice(0, i + 1));
    const st = attempt(() => fs.lstatSync(gitPath));
    if (!st || (creating && i === parts.length - 1)) {
      return `the command created a git repository ("${parts.slice(0, i + 1).join('/')}"), whose configuration and hooks git would read later; not applied without allowGitWrites`;
    }
    if (!st.isDirectory()) return `"${parts.slice(0, i + 1).join('/')}" is a .git file naming where its repository is; it stays as it is`;
    const target = path.join(this.policy.root, relative);
    if (this.programsOf(gitPath).some((p) => isInside(p, target))) {
      return `git's configuration and hooks ("${relative}") make git run programs later; not applied without allowGitWrites`;
    }
    return undefined;
  }

  private programsOf(gitPath: string): readonly string[] {
    let known = this.programPaths.get(gitPath);
    if (!known) {
      known = attempt(() => fs.lstatSync(gitPath).isDirectory()) ? gitProgramPaths(gitPath) : [];
      this.programPaths.set(gitPath, known);
    }
    return known;
  }
}
