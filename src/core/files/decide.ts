import type { Policy } from '../policy';
import type { ResolvedPath } from '../paths/confine';
import { checkWritable } from '../paths/protected';
import { deny, type Verdict } from '../verdict';

/**
 * The rules of a file change, after confinement (resolveInside already refused paths that lead outside): the
 * root itself and protected paths. The mode's part comes from the mode table in the pipeline. Remembered
 * approvals and `autoApprove` never apply to file changes: each change is a different diff, so approving one
 * says nothing about the next.
 */
export function checkProtectedTargets(targets: readonly ResolvedPath[], policy: Pick<Policy, 'protectedPaths' | 'ownFiles'>): Verdict[] {
  const checks: Verdict[] = [];
  for (const t of targets) {
    if (t.relative === '.') checks.push(deny('PATH_PROTECTED', 'protected.root', 'The workspace root itself cannot be changed.'));
    const protectedVerdict = checkWritable(t, policy);
    if (protectedVerdict) checks.push(protectedVerdict);
  }
  return checks;
}
