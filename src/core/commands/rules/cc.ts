import { allow, deny } from '../../verdict';
import type { FamilyRule } from './types';

/**
 * C/C++ compiler drivers (gcc, g++, cc, c++, clang, clang++, versioned and target-prefixed names): options that
 * make the driver start or load a program of the caller's choosing instead of its own toolchain. Seen with the
 * real gcc: `-wrapper CMD` runs CMD in front of every subprogram, `-B DIR` runs `as`/`ld`/`cc1` from DIR.
 * Denied (`cc.helper-option`):
 *   -wrapper; -B (attached or separate); -specs=/--specs (spec files define the commands the driver runs);
 *   -fplugin=, -fplugin-arg-…, -fpass-plugin= (load a shared object into the compiler); -Xclang (passes raw
 *   cc1 flags such as -load); --config (clang: options from a file); --gcc-toolchain / --gcc-install-dir /
 *   --ld-path / -fuse-ld=PATH (choose the helper programs); linker plugins through -Wl,/-Xlinker (-plugin);
 *   `@FILE` response files (options the rule cannot read).
 * Everything else (the compiler's own input and output files, -o anywhere) is the program's own I/O: delegated.
 */
const why = (what: string) => deny('ARGUMENT_FORBIDDEN', 'cc.helper-option', `The compiler option ${what} is not allowed: it makes the compiler driver start or load a program of the caller's choosing.`);

export const ccRule: FamilyRule = (args) => {
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    if (tok.startsWith('@')) return deny('ARGUMENT_FORBIDDEN', 'cc.helper-option', `The compiler argument ${tok} is not allowed: a response file holds options the rule cannot inspect (-wrapper, -B …).`);
    if (!tok.startsWith('-')) continue;
    const name = tok.split('=')[0]!;
    if (tok === '-wrapper' || tok.startsWith('-B') || tok === '-Xclang' || tok.startsWith('-Xclang=')) return why(tok);
    if (['-specs', '--specs', '-fplugin', '-fpass-plugin', '--config', '--gcc-toolchain', '--gcc-install-dir', '--ld-path', '-ccc-install-dir', '-ccc-gcc-name'].includes(name)) return why(tok);
    if (tok.startsWith('-fplugin') || tok.startsWith('-fpass-plugin') || tok.startsWith('--config')) return why(tok);
    if (name === '-fuse-ld' && /[/\\]/.test(tok)) return why(tok);
    if (tok.startsWith('-Wl,') && /(^|,)-{1,2}plugin/.test(tok.slice(4))) return why(tok);
    if (tok === '-Xlinker' && /^-{1,2}plugin/.test(args[i + 1] ?? '')) return why(`-Xlinker ${args[i + 1]}`);
  }
  return allow('cc.ok');
};
