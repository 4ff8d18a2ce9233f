import { deny, type Verdict } from '../verdict';
import { matchesGlob } from './glob';
import type { ResolvedPath } from './confine';

/**
 * Paths inside the workspace that no tool may change: git's internals (hooks there run code on the developer's
 * next commit), the server's own config and audit files, and the user's extra globs (`.env` …).
 */
export function checkWritable(
  target: ResolvedPath,
  policy: { readonly protectedPaths: readonly string[]; readonly ownFiles: readonly string[] },
  options: { readonly gitInternals?: boolean } = {},
): Verdict | undefined {
  const segments = target.relative.split('/');
  // `gitInternals`: applying a command's effect, where .git is judged by the sandbox's own rule (effects/gitRule.ts).
  if (segments.includes('.git') && !options.gitInternals) {
    return deny('PATH_PROTECTED', 'protected.git', `"${target.relative}" is inside a .git folder; git's internals cannot be changed through this server (hooks there would run code).`);
  }
  if (policy.ownFiles.includes(target.real)) {
    return deny('PATH_PROTECTED', 'protected.own-file', `"${target.relative}" is one of the server's own files (configuration or audit log).`);
  }
  for (const glob of policy.protectedPaths) {
    if (matchesGlob(target.relative, glob)) return deny('PATH_PROTECTED', 'protected.user-glob', `"${target.relative}" is protected by the rule "${glob}".`);
  }
  return undefined;
}
