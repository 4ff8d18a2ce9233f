import { z } from 'zod';

/** Value shapes shared by several settings: each rule is written here once. */

/** The read-mostly default allowlist, used only when no allowlist is given at all. */
export const DEFAULT_ALLOW_COMMANDS: readonly string[] = Object.freeze([
  'ls', 'pwd', 'date', 'echo', 'cat', 'head', 'tail', 'wc', 'grep', 'find', 'sort', 'uniq', 'cut', 'tr',
  'diff', 'file', 'stat', 'du', 'df', 'uname', 'whoami', 'seq', 'true', 'false', 'basename', 'dirname',
  'realpath', 'printf', 'sha256sum', 'md5sum',
]);

export const commandName = z
  .string()
  .min(1, 'a command name cannot be empty')
  .refine((s) => !/[\s\0;&|<>`$(){}\[\]*?!'"\\]/.test(s), {
    message: 'a command name cannot contain white space or shell metacharacters',
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

export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

export const nonEmpty = z.string().min(1);
export const strings = z.array(nonEmpty);
export const seconds = z.number().positive();
export const count = z.number().int().positive();
