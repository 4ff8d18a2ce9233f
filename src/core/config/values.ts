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

export const regexSource = z.string().min(1).refine(
  (s) => {
    if (/[\s;&|<>`$'"]/.test(s)) return false;
    try {
      new RegExp(`^(?:${s})$`);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'a command pattern must be a valid regular expression without white space or shell metacharacters' },
);

export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

export const nonEmpty = z.string().min(1);
export const strings = z.array(nonEmpty);
export const seconds = z.number().positive();
export const count = z.number().int().positive();
