import { allow, deny } from '../../verdict';
import type { FamilyRule } from './types';

/**
 * find (GNU findutils 4.9, BSD find): primaries that run programs (`-exec -execdir -ok -okdir`), delete files
 * (`-delete`) or write files (`-fprint -fprint0 -fprintf -fls`). find matches primaries by their exact
 * spelling (no abbreviations, no clusters), so the rule scans every token, skipping only the argument of a
 * primary that takes exactly one argument in both GNU and BSD find (so `find . -name -delete` looks for a
 * file called "-delete" and stays allowed).
 */
export const FIND_FORBIDDEN: Readonly<Record<string, string>> = {
  '-exec': 'runs a program for each file',
  '-execdir': 'runs a program for each file',
  '-ok': 'runs a program for each file (after a prompt)',
  '-okdir': 'runs a program for each file (after a prompt)',
  '-delete': 'deletes files',
  '-fprint': 'writes its output to a file of its choosing',
  '-fprint0': 'writes its output to a file of its choosing',
  '-fprintf': 'writes its output to a file of its choosing',
  '-fls': 'writes its output to a file of its choosing',
};

/** Primaries/options whose single next token is data in GNU find (and data or an error in BSD find). */
const ONE_ARGUMENT = new Set([
  '-D', '-amin', '-anewer', '-atime', '-cmin', '-cnewer', '-context', '-ctime', '-fstype', '-gid', '-group',
  '-ilname', '-iname', '-inum', '-ipath', '-iregex', '-iwholename', '-links', '-lname', '-maxdepth', '-mindepth',
  '-mmin', '-mtime', '-name', '-newer', '-path', '-perm', '-printf', '-regex', '-regextype', '-samefile', '-size',
  '-type', '-uid', '-used', '-user', '-wholename', '-xtype', '-files0-from',
]);
const NEWER_XY = /^-newer[aBcmt][aBcmt]$/;

export const findRule: FamilyRule = (args) => {
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    const why = Object.prototype.hasOwnProperty.call(FIND_FORBIDDEN, tok) ? FIND_FORBIDDEN[tok] : undefined;
    if (why) {
      const kind = tok === '-delete' ? 'delete' : tok.startsWith('-f') ? 'file-write' : 'exec';
      return deny('ARGUMENT_FORBIDDEN', `find.${kind}`, `find ${tok} is not allowed: it ${why}. Use find to list files, and other tools for the rest.`);
    }
    if (ONE_ARGUMENT.has(tok) || NEWER_XY.test(tok)) i++;
  }
  return allow('find.ok');
};
