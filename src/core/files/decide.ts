import type { Policy } from '../policy';
import type { ResolvedPath } from '../paths/confine';
import { checkWritable } from '../paths/protected';
import { modeVerdict } from '../modes';
import { deny, strictest, type Verdict } from '../verdict';

/**
 * THE decision for a file change, after confinement (resolveInside already refused paths that lead outside):
 * protected paths, then the mode. Remembered approvals and `autoApprove` never apply to file changes: each
 * change is a different diff, so approving one says nothing about the next.
 */
export function decideFileChange(targets: readonly ResolvedPath[], policy: Pick<Policy, 'mode' | 'protectedPaths' | 'ownFiles'>): Verdict {
  const checks: Verdict[] = [];
  for (const t of targets) {
    if (t.relative === '.') checks.push(deny('PATH_PROTECTED', 'protected.root', 'The workspace root itself cannot be changed.'));
    const protectedVerdict = checkWritable(t, policy);
    if (protectedVerdict) checks.push(protectedVerdict);
  }
  checks.push(modeVerdict(policy.mode, ['fileChange'], 'this change'));
  return strictest(checks);
}

/** Reads (readFile, listFiles) are allowed in every mode; confinement is their only rule. */
export function decideFileRead(policy: Pick<Policy, 'mode'>): Verdict {
  return modeVerdict(policy.mode, ['read'], 'this read');
}
