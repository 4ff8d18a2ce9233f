import * as path from 'node:path';
import { ToolError } from '../errors';

/**
 * Windows path confinement, decided on the text with Windows' own rules (path.win32), so that it is tested on any
 * machine. Win32 rewrites a path before it reaches the file system, in ways a check on the text must not miss:
 *
 *  - `\\?\`, `\\.\` and `\??\` paths skip that rewriting or name devices and pipes (`\\.\pipe\…`): refused;
 *  - `C:foo` is relative to drive C's own current folder (one per drive, unknown here), `\foo` to the current
 *    drive's root: refused, as is a UNC path (`\\server\share`) outside a UNC root;
 *  - reserved device names stay devices with any extension or trailing spaces (`NUL`, `con.txt`, `COM1 .log`,
 *    `CONIN$`): refused in any component;
 *  - a `:` in a component names an alternate data stream (`a.txt:hidden`, `a.txt::$DATA`, which IS a.txt):
 *    refused;
 *  - trailing dots and spaces are dropped (`.git.` and `.git ` are `.git`), so a name rule on the text would miss
 *    them: refused;
 *  - 8.3 short names (`GIT~1` can be `.git`, `PROGRA~1` Program Files) cannot be told without the disk: a
 *    component shaped like one (`~` and digits) is refused;
 *  - names compare case-insensitively (path.win32.relative does).
 * Junctions and symbolic links are not seen on the text: the gap is in docs/isolation.md (the Linux side walks by
 * descriptor; Windows would need handles opened with FILE_FLAG_OPEN_REPARSE_POINT).
 */

const DEVICE = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]|conin\$|conout\$|clock\$)$/i;

/** Why Windows would not read `p` as the plain path its text shows, or undefined. */
export function windowsPathProblem(p: string): string | undefined {
  if (p.length === 0) return 'it is empty';
  if (p.includes('\0')) return 'it contains a NUL byte';
  if (/^[\\/][\\/][?.][\\/]/.test(p) || /^[\\/]\?\?[\\/]/.test(p)) return 'it is a device or verbatim path (\\\\?\\, \\\\.\\ or \\??\\), which Windows does not normalise or which names a device';
  if (/^[a-z]:(?![\\/])/i.test(p)) return 'it is relative to the current folder of a drive (C:name), which is not known here';
  const rest = /^[a-z]:/i.test(p) ? p.slice(2) : p;
  for (const component of rest.split(/[\\/]+/)) {
    if (component === '' || component === '.' || component === '..') continue;
    if (component.includes(':')) return `"${component}" names an alternate data stream (a ":" in a name)`;
    if (/[. ]$/.test(component)) return `"${component}" ends with a dot or a space, which Windows drops (it would be "${component.replace(/[. ]+$/, '')}")`;
    if (DEVICE.test(component.split('.')[0]!.trimEnd())) return `"${component}" is a device name (${component.split('.')[0]!.trimEnd().toUpperCase()}) whatever its extension`;
    if (/~[0-9]/.test(component)) return `"${component}" may be an 8.3 short name of another entry (a "~" and digits), which only the disk can tell`;
  }
  return undefined;
}

/**
 * Confines `p` (absolute, or relative to `base`, itself inside `root`) to `root`, with Windows' rules. `root` must
 * be an absolute path that passes the same checks. Returns the full path and the path relative to the root with
 * forward slashes; throws PATH_OUTSIDE_ROOT or BAD_REQUEST with the reason.
 */
export function confineWindows(root: string, p: string, base: string = root): { readonly full: string; readonly relative: string } {
  for (const [text, what] of [[root, 'workspace root'], [base, 'base folder'], [p, 'path']] as const) {
    const problem = windowsPathProblem(text);
    if (problem) throw new ToolError('BAD_REQUEST', `The ${what} "${text}" cannot be used: ${problem}.`, 'path.windows-form');
  }
  if (!isFullyQualified(root)) throw new ToolError('BAD_REQUEST', `The workspace root "${root}" is not a full path (C:\\… or \\\\server\\share\\…).`, 'path.windows-root');
  if (!isFullyQualified(p) && /^[\\/]/.test(p)) {
    throw new ToolError('BAD_REQUEST', `The path "${p}" is relative to the current drive's root, which is not known here.`, 'path.windows-form');
  }
  const full = path.win32.resolve(root, base, p);
  const rel = path.win32.relative(path.win32.resolve(root), full);
  if (rel === '..' || rel.startsWith('..\\') || path.win32.isAbsolute(rel)) {
    throw new ToolError('PATH_OUTSIDE_ROOT', `The path "${p}" leads outside the workspace (${root}).`, 'path.outside-root');
  }
  return { full, relative: rel === '' ? '.' : rel.split('\\').join('/') };
}

/** `C:\…` or `\\server\share…`: a path that names the same place whatever the current drive and folder. */
function isFullyQualified(p: string): boolean {
  return /^[a-z]:[\\/]/i.test(p) || /^[\\/][\\/][^\\/?.][^\\/]*[\\/][^\\/]+/.test(p);
}
