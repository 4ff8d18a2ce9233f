import * as path from 'node:path';
import { stripPatternAnchors, type Policy } from '../policy';
import { allow, deny, type Verdict } from '../verdict';

/**
 * The allowlist: a command runs only when its name is listed or fully matches one of the patterns. A command given
 * as a path (`/usr/bin/find`, `./tool`) must itself be listed as that path OR its basename must be allowed AND the
 * path must be a plain absolute path (a relative path could name a workspace file the agent just wrote).
 */
export function checkAllowlist(name: string, policy: Pick<Policy, 'allowCommands' | 'allowPatterns'>): Verdict {
  if (policy.allowCommands.includes(name)) return allow('allowlist.name');
  const isPath = name.includes('/') || name.includes('\\');
  const base = isPath ? path.basename(name) : name;
  if (isPath && !path.isAbsolute(name)) {
    return deny('COMMAND_NOT_ALLOWED', 'allowlist.relative-path', `The command "${name}" is a relative path; only allowlisted command names (or absolute paths of them) can run.`);
  }
  if (policy.allowCommands.includes(base) || matchesPattern(base, policy.allowPatterns)) return allow(isPath ? 'allowlist.path-basename' : 'allowlist.pattern');
  return deny('COMMAND_NOT_ALLOWED', 'allowlist.not-listed', `Command not allowed: ${name}. Allowed: ${policy.allowCommands.join(', ') || '(none)'}${policy.allowPatterns.length ? `; patterns: ${policy.allowPatterns.join(', ')}` : ''}.`);
}

const compiled = new Map<string, RegExp>();

function matchesPattern(name: string, patterns: readonly string[]): boolean {
  for (const p of patterns) {
    let re = compiled.get(p);
    if (!re) {
      // Anchors written by the operator (`^cmd[0-9]+$`) are the full match this is anyway.
      re = new RegExp(`^(?:${stripPatternAnchors(p)})$`);
      compiled.set(p, re);
    }
    if (re.test(name)) return true;
  }
  return false;
}
