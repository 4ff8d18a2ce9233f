import { allow, deny, type Verdict } from '../../verdict';
import { judgeReceived, type Receiver } from './toolchain';
import type { FamilyRule, ProgramOption } from './types';

/**
 * C/C++ compiler drivers (gcc, g++, cc, c++, cpp, clang, clang++, versioned and target-prefixed names). Two tables:
 *
 *  - CC_PROGRAM_OPTIONS: the driver's options that make it start or load a program of the caller's choosing
 *    instead of its own toolchain (`-wrapper CMD`, `-B DIR`/`--prefix DIR`, spec files, compiler plugins, C++
 *    module mappers `|CMD` …). Denied (`cc.helper-option`).
 *  - CC_FORWARDING: every channel by which the driver hands options on to another program — the linker, the
 *    preprocessor, the assembler, or itself again (`-fcompare-debug=OPTS` runs a second compilation with OPTS).
 *    Each channel is unpacked and its words judged by the receiving program's allowlist (toolchain.ts), or by
 *    this rule again for the driver itself; channels the rule cannot see through (`-Xclang`, `-mllvm`, `-Xarch_…`,
 *    any other `-X…`, `-foffload=…`) are denied (`cc.forwarded-option`).
 *
 * A response file `@FILE` is denied at every level: on the command line, inside a forwarded list (`-Wl,-O1,@f`),
 * and — since none is ever read — inside the files. Everything else (input and output files, -o, -MF) is the
 * program's own I/O: delegated. Seen with the real gcc/g++/cc and binutils: test/unit/rules/ccForwarding.real.test.ts.
 */

export const CC_PROGRAM_OPTIONS: readonly ProgramOption[] = [
  { option: '-wrapper', why: 'runs the given command in front of every subprogram (cc1, as, collect2)' },
  { option: '-B*', why: 'runs cc1, as, ld … from the given directory' },
  { option: '--prefix*', why: 'is the long spelling of -B (runs cc1, as, ld … from the given directory)' },
  { option: '-specs*', why: 'reads a spec file, which defines the commands the driver runs' },
  { option: '--specs*', why: 'is the long spelling of -specs' },
  { option: '-fplugin*', why: 'loads a shared object into the compiler (also -fplugin-arg-…)' },
  { option: '-iplugindir*', why: 'sets the directory -fplugin=NAME loads NAME.so from' },
  { option: '-fpass-plugin*', why: 'loads an LLVM pass plugin (clang)' },
  { option: '-fmodule-mapper*', why: 'names the C++ module mapper, and a mapper "|CMD" is a program g++ starts' },
  { option: '--config*', why: 'reads options from a file (clang)' },
  { option: '--gcc-toolchain*', why: 'chooses where the toolchain programs come from (clang)' },
  { option: '--gcc-install-dir*', why: 'chooses where the toolchain programs come from (clang)' },
  { option: '--ld-path*', why: 'names the linker program to run (clang)' },
  { option: '-fuse-ld=PATH', why: 'names a linker by path (a plain name such as gold or lld stays allowed)' },
  { option: '-ccc-*', why: 'sets clang driver internals (install directory, gcc name)' },
  { option: '--sysroot*', why: 'makes clang look for the GCC installation, and so for its programs, under the sysroot', only: 'clang' },
];

export interface ForwardingChannel {
  /** How the channel is written: `-Wl,A,B` (comma list), `-Xlinker A` (next word), `--for-linker=A` / `--for-linker A`. */
  readonly spelled: string;
  /** Who receives the words: a program judged by its own allowlist, the driver itself, or nobody the rule can read. */
  readonly to: Receiver | 'driver' | 'refused';
  readonly why: string;
}

export const CC_FORWARDING: readonly ForwardingChannel[] = [
  { spelled: '-Wl,A,B…', to: 'linker', why: 'comma-separated words for collect2/ld' },
  { spelled: '-Xlinker A', to: 'linker', why: 'one word for the linker' },
  { spelled: '--for-linker=A, --for-linker A', to: 'linker', why: 'gcc\'s long spelling of -Xlinker' },
  { spelled: '-Wp,A,B…', to: 'preprocessor', why: 'comma-separated words for the preprocessor (cc1 -E)' },
  { spelled: '-Xpreprocessor A', to: 'preprocessor', why: 'one word for the preprocessor' },
  { spelled: '-Wa,A,B…', to: 'assembler', why: 'comma-separated words for as' },
  { spelled: '-Xassembler A', to: 'assembler', why: 'one word for the assembler' },
  { spelled: '--for-assembler=A, --for-assembler A', to: 'assembler', why: 'gcc\'s long spelling of -Xassembler' },
  { spelled: '-fcompare-debug=OPTS', to: 'driver', why: 'a second compilation with OPTS added (split at white space; a spec "%" is refused)' },
  { spelled: '@FILE (anywhere, also inside the lists above)', to: 'refused', why: 'a response file holds options the rule cannot inspect' },
  { spelled: '-Xclang A, -mllvm A, -Xarch_… A, -Xopenmp-target… A, any other -X…', to: 'refused', why: 'clang\'s channels to cc1, LLVM and offload toolchains, whose options the rule does not model' },
  { spelled: '-foffload=…, -foffload-options=…', to: 'refused', why: 'options for the offload compilers gcc starts' },
];

/** Separate-word channels: the option and who receives the next word. */
const NEXT_WORD: Readonly<Record<string, Receiver>> = { '-Xlinker': 'linker', '--for-linker': 'linker', '-Xpreprocessor': 'preprocessor', '-Xassembler': 'assembler', '--for-assembler': 'assembler' };
/** Attached channels: the prefix, who receives, and how the value splits into words. */
const ATTACHED: readonly [prefix: string, to: Receiver, split: (v: string) => string[]][] = [
  ['-Wl,', 'linker', (v) => v.split(',')],
  ['-Wp,', 'preprocessor', (v) => v.split(',')],
  ['-Wa,', 'assembler', (v) => v.split(',')],
  ['--for-linker=', 'linker', (v) => [v]],
  ['--for-assembler=', 'assembler', (v) => [v]],
];

const helper = (what: string, why: string) => deny('ARGUMENT_FORBIDDEN', 'cc.helper-option', `The compiler option ${what} is not allowed: it ${why}.`);
const forwarded = (what: string, why: string) => deny('ARGUMENT_FORBIDDEN', 'cc.forwarded-option', `The compiler option ${what} is not allowed: ${why}.`);

/** Whether `tok` is the option a table entry describes (`*`: any attached text, with or without `=`). */
function isProgramOption(tok: string, entry: ProgramOption, clang: boolean): boolean {
  if (entry.only === 'clang' && !clang) return false;
  if (entry.option === '-fuse-ld=PATH') return /^--?fuse-ld=/.test(tok) && !/^--?fuse-ld=[A-Za-z0-9._+-]+$/.test(tok);
  if (entry.option.endsWith('*')) return tok.startsWith(entry.option.slice(0, -1));
  return tok === entry.option || tok === `-${entry.option}` || tok.startsWith(`${entry.option}=`);
}

/** Judges driver arguments; `depth` bounds -fcompare-debug recursion (its value cannot nest another, but be sure). */
function judgeDriver(args: readonly string[], invokedAs: string, depth: number): Verdict {
  const clang = /clang/.test(invokedAs.toLowerCase());
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    if (tok.startsWith('@')) return forwarded(tok, 'a response file holds options the rule cannot inspect (-wrapper, -B …)');
    if (!tok.startsWith('-')) continue;
    const program = CC_PROGRAM_OPTIONS.find((e) => isProgramOption(tok, e, clang));
    if (program) return helper(tok, program.why);
    const receiver = NEXT_WORD[tok];
    if (receiver) {
      const word = args[++i];
      if (word === undefined) continue; // the driver reports the missing argument
      const v = judgeReceived(receiver, [word], `${tok} ${word}`);
      if (v.kind !== 'allow') return v;
      continue;
    }
    const attached = ATTACHED.find(([prefix]) => tok.startsWith(prefix));
    if (attached) {
      const v = judgeReceived(attached[1], attached[2](tok.slice(attached[0].length)), tok);
      if (v.kind !== 'allow') return v;
      continue;
    }
    if (tok.startsWith('-fcompare-debug=')) {
      const value = tok.slice('-fcompare-debug='.length);
      if (/[%"'\\]/.test(value) || depth > 2) return forwarded(tok, 'its value is read as a gcc spec (with "%" functions and quoting) the rule does not model');
      const v = judgeDriver(value.split(/\s+/).filter(Boolean), invokedAs, depth + 1);
      if (v.kind === 'deny') return deny('ARGUMENT_FORBIDDEN', v.rule, `${tok} runs a second compilation with these options, and ${v.reason.charAt(0).toLowerCase()}${v.reason.slice(1)}`);
      continue;
    }
    if (/^--?X/.test(tok) || tok === '-mllvm' || tok.startsWith('-mllvm=') || /^-foffload/.test(tok)) {
      return forwarded(tok, 'it hands options on to a program (cc1, LLVM, an offload compiler) whose options the rule cannot see through');
    }
  }
  return allow('cc.ok');
}

export const ccRule: FamilyRule = (args, invokedAs) => judgeDriver(args, invokedAs, 0);
