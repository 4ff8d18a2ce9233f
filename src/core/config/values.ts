import { z } from 'zod';
import { parseRule } from '../commands/commandRules';

/** Value shapes shared by several settings: each rule is written here once. */

/** The read-mostly default allowlist, used only when no allowlist is given at all. */
export const DEFAULT_ALLOW_COMMANDS: readonly string[] = Object.freeze([
  'ls', 'pwd', 'date', 'echo', 'cat', 'head', 'tail', 'wc', 'grep', 'find', 'sort', 'uniq', 'cut', 'tr',
  'diff', 'file', 'stat', 'du', 'df', 'uname', 'whoami', 'seq', 'true', 'false', 'basename', 'dirname',
  'realpath', 'printf', 'sha256sum', 'md5sum',
]);

/**
 * An allowlist entry: a command name, an absolute path, or a workspace-relative path glob (`node_modules/.bin/*`,
 * `bin/bats`, `./install.sh`): an entry with a `/` that is not absolute names programs inside the workspace, and
 * only there may `*` and `?` stand.
 */
export function isWorkspaceGlobEntry(entry: string): boolean {
  return entry.includes('/') && !entry.startsWith('/');
}

/** The glob of a workspace entry as matched against root-relative paths (`./x.sh` is `x.sh`). */
export function workspaceGlobOf(entry: string): string {
  return entry.replace(/^(\.\/)+/, '');
}

export const commandName = z
  .string()
  .min(1, 'a command name cannot be empty')
  .refine((s) => !/[\s\0;&|<>`$(){}\[\]!'"\\]/.test(s) && (isWorkspaceGlobEntry(s) || !/[*?]/.test(s)), {
    message: 'a command name cannot contain white space or shell metacharacters ("*" and "?" only in a workspace path such as node_modules/.bin/*)',
  })
  .refine((s) => !isWorkspaceGlobEntry(s) || !workspaceGlobOf(s).split('/').some((seg) => seg === '..' || seg === ''), {
    message: 'a workspace program path is relative to the folder, without ".." or empty segments (e.g. node_modules/.bin/* or bin/bats)',
  });

/**
 * ALLOW_PATTERNS entries: full-match regular expressions over a command name. mcp-shell-server's own tests
 * write them anchored (`^cmd[0-9]+$`); a leading `^` and a trailing unescaped `$` are accepted and mean what a
 * full match means anyway. Elsewhere white space and shell metacharacters are refused, `$` included.
 */
export function stripPatternAnchors(s: string): string {
  let body = s.startsWith('^') ? s.slice(1) : s;
  if (body.endsWith('$') && !/(^|[^\\])(\\\\)*\\\$$/.test(body)) body = body.slice(0, -1);
  return body;
}

export const regexSource = z.string().min(1).refine(
  (s) => {
    const body = stripPatternAnchors(s);
    if (body === '' || /[\s;&|<>`$'"]/.test(body)) return false;
    try {
      new RegExp(`^(?:${body})$`);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'a command pattern must be a valid regular expression without white space or shell metacharacters (a leading ^ and a trailing $ are accepted)' },
);

/** An `autoApprove` / "Always allow" rule: an exact command line, or an argv prefix ending in a lone `*`. */
export const commandRuleText = z.string().min(1).superRefine((s, ctx) => {
  const r = parseRule(s);
  if ('error' in r) ctx.addIssue({ code: 'custom', message: `not a command rule: ${r.error}` });
});

export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

export const nonEmpty = z.string().min(1);
export const strings = z.array(nonEmpty);
export const seconds = z.number().positive();
export const count = z.number().int().positive();
