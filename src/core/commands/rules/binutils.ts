import { allow, deny, type Verdict } from '../../verdict';

/**
 * GNU binutils' archive and symbol tools — ar, nm, ranlib (and the gcc-ar / gcc-nm / gcc-ranlib wrappers, which pass
 * their arguments on, and target-prefixed or versioned names) — load a BFD plugin with `--plugin NAME`: a shared
 * object of the caller's choosing, whose constructor runs as the tool. Refused in every spelling getopt_long reads
 * as it: `--plugin NAME`, `--plugin=NAME` and any abbreviation (`--plu`; `--p` is `--plugin` to ar), anywhere before
 * a `--` (both tools permute their arguments). An abbreviation another option shares is refused too: a false denial
 * at worst. A response file (`@FILE`, anywhere: libiberty expands it before any option is read; after a `--` it
 * is a false denial at worst) is refused too, as for the compiler drivers: it holds options the rule cannot see,
 * `--plugin` among them. The plugins BFD loads by itself come from the toolchain's own folder, not the caller's.
 */

const LOADS_CODE = 'plugin';

export const binutilsRule = (args: readonly string[], name?: string): Verdict => {
  const file = args.find((a) => a.startsWith('@'));
  if (file !== undefined) {
    return deny('ARGUMENT_FORBIDDEN', 'binutils.response-file', `${name ?? 'This program'} "${file}" is a response file: it holds options the rule cannot inspect (such as --plugin, which loads a shared object), so it is not allowed.`);
  }
  for (const a of args) {
    if (a === '--') break;
    if (!a.startsWith('--')) continue;
    const typed = a.slice(2).split('=')[0]!;
    if (typed !== '' && LOADS_CODE.startsWith(typed)) {
      const spelled = typed === LOADS_CODE ? `--${LOADS_CODE}` : `--${typed} (which it reads as --${LOADS_CODE})`;
      return deny('ARGUMENT_FORBIDDEN', 'binutils.plugin', `${name ?? 'This program'} ${spelled} is not allowed: it loads a shared object of the caller's choosing into the program (a BFD plugin), which runs its code.`);
    }
  }
  return allow('binutils.ok');
};

/** For the docs: the option that loads code (refused in every spelling). */
export const BINUTILS_CODE_LOADER_FOR_DOCS = `--${LOADS_CODE}`;
