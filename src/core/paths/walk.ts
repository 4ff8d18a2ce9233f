import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../errors';
import { checkPathText, isInside } from './confine';
import { at, closeQuietly, idOf, openEntry, openRootDir, type Dir, type Entry } from './fdpath';

/**
 * Resolves a path INSIDE the root by descriptors, the way openat2(RESOLVE_BENEATH) would: from an open
 * descriptor of the root, one component at a time, each opened relative to the folder before it with
 * O_NOFOLLOW. A symbolic link is never followed by the kernel: its text is read and resolved here, against the
 * folder it sits in, and a link that leads above the root is refused. What a concurrent process swaps in between
 * two steps is therefore looked at, not followed: the walk can end at a different file inside the root, never at
 * one outside. Callers compare `relative` with what was decided and `entry.st` with what they expect.
 */

export interface Walked {
  /** Logical real path relative to the root, '/'-separated ('.' for the root). */
  readonly relative: string;
  readonly real: string;
  /** The folder holding the final entry (undefined when the target is the root itself). */
  readonly parent: Dir | undefined;
  readonly name: string;
  /** The final entry (as itself, when it is a link that was not followed); undefined when it does not exist. */
  readonly entry: Entry | undefined;
  /** With allowMissingParents: components below `name` that do not exist either (mkdir -p). */
  readonly missingTail: readonly string[];
  /** The final name was reached through a link whose target does not exist. */
  readonly throughDanglingLink: boolean;
  close(): void;
}

export interface WalkOptions {
  /** Follow a symbolic link in the final component (inside the root only). */
  readonly followFinal: boolean;
  /** A missing folder on the way ends the walk there instead of failing (for mkdir -p / mkdirs). */
  readonly allowMissingParents?: boolean;
  /**
   * Refuse every symbolic link on the way (O_NOFOLLOW on every component, nothing resolved here). For paths
   * that were already resolved to a real path when they were decided: a link there now means it changed.
   */
  readonly refuseLinks?: boolean;
  /** Folder the path is relative to (inside the root); default the root. */
  readonly base?: string;
  /** What the path is, for messages ("file", "output redirect"). */
  readonly what?: string;
}

const MAX_LINKS = 40;

export function walk(root: string, p: string, options: WalkOptions): Walked {
  const what = options.what ?? 'path';
  checkPathText(p, what);
  const abs = path.resolve(options.base ?? root, p);
  if (!isInside(root, abs)) throw outside(what, p, root);
  let queue = parts(path.relative(root, abs));
  const stack: Dir[] = [openRootDir(root)];
  const names: string[] = [];
  let hops = 0;
  let lastWasLink = false;
  let done = false;
  try {
    while (queue.length > 0) {
      const c = queue.shift()!;
      if (c === '..') {
        if (stack.length === 1) throw outside(what, p, root);
        closeQuietly(stack.pop()!.fd);
        names.pop();
        continue;
      }
      const top = stack[stack.length - 1]!;
      const entry = openEntry(top, c);
      const last = queue.length === 0;
      if (!entry) {
        if (last || (options.allowMissingParents && !queue.includes('..'))) {
          done = true;
          return result(root, stack, names, c, undefined, last ? [] : queue, lastWasLink && last);
        }
        throw new ToolError('PATH_NOT_FOUND', `The folder "${[...names, c].join('/')}" (in the ${what} "${p}") does not exist.`, 'path.not-found');
      }
      if (entry.st.isSymbolicLink()) {
        if (last && !options.followFinal) {
          done = true;
          return result(root, stack, names, c, entry, [], false);
        }
        if (options.refuseLinks) {
          throw new ToolError('PATH_OUTSIDE_ROOT', `"${[...names, c].join('/')}" (in the ${what} "${p}") is a symbolic link now; it is not followed and nothing was done.`, 'path.swapped-link');
        }
        if (++hops > MAX_LINKS) throw new ToolError('BAD_REQUEST', `The ${what} "${p}" has too many levels of symbolic links.`, 'path.link-loop');
        const target = fs.readlinkSync(at(top, c));
        if (path.isAbsolute(target)) {
          const t = path.resolve(target);
          if (!isInside(root, t)) throw new ToolError('PATH_OUTSIDE_ROOT', `The ${what} "${p}" leads outside the workspace (${root}) through the link "${[...names, c].join('/')}".`, 'path.outside-root');
          while (stack.length > 1) closeQuietly(stack.pop()!.fd);
          names.length = 0;
          queue = [...parts(path.relative(root, t)), ...queue];
        } else {
          queue = [...parts(target), ...queue];
        }
        lastWasLink = last;
        continue;
      }
      if (last) {
        done = true;
        return result(root, stack, names, c, entry, [], false);
      }
      if (!entry.st.isDirectory()) {
        closeQuietly(entry.fd);
        throw new ToolError('PATH_NOT_FOUND', `"${[...names, c].join('/')}" (in the ${what} "${p}") is not a folder.`, 'path.not-folder');
      }
      stack.push({ fd: entry.fd!, real: path.join(top.real, c), id: idOf(entry.st) });
      names.push(c);
      lastWasLink = false;
    }
    // Nothing left: the path is the root itself (or a folder on the stack reached through `..`).
    const top = stack.pop()!;
    const name = names.pop();
    if (name === undefined) {
      done = true;
      const st = fs.fstatSync(top.fd, { bigint: true });
      return { relative: '.', real: root, parent: undefined, name: '', entry: { st, fd: top.fd }, missingTail: [], throughDanglingLink: false, close: () => closeQuietly(top.fd) };
    }
    const st = fs.fstatSync(top.fd, { bigint: true });
    done = true;
    return result(root, stack, names, name, { st, fd: top.fd }, [], false);
  } finally {
    if (!done) for (const d of stack) closeQuietly(d.fd);
  }
}

/** Keeps only the parent of the final entry open. */
function result(root: string, stack: Dir[], names: string[], name: string, entry: Entry | undefined, missingTail: readonly string[], dangling: boolean): Walked {
  const parent = stack[stack.length - 1]!;
  for (const d of stack.slice(0, -1)) closeQuietly(d.fd);
  const relative = [...names, name].join('/');
  return {
    relative,
    real: path.join(root, relative),
    parent,
    name,
    entry,
    missingTail,
    throughDanglingLink: dangling && entry === undefined,
    close: () => {
      closeQuietly(entry?.fd);
      closeQuietly(parent.fd);
    },
  };
}

function parts(rel: string): string[] {
  // Only the platform's separators: on POSIX a backslash is an ordinary character of a name.
  return rel.split(path.sep === '\\' ? /[/\\]/ : '/').filter((s) => s !== '' && s !== '.');
}

function outside(what: string, p: string, root: string): ToolError {
  return new ToolError('PATH_OUTSIDE_ROOT', `The ${what} "${p}" leads outside the workspace (${root}).`, 'path.outside-root');
}
