import { allow, deny, type Verdict } from '../../verdict';

/**
 * The programs a C/C++ compiler driver hands options on to — the linker (collect2 → ld), the preprocessor (cc1 -E)
 * and the assembler (as) — judged by ALLOWLISTS of the options each legitimately receives in builds. cc.ts
 * unpacks every forwarding channel (`-Wl,`, `-Xlinker`, `--for-linker`, `-Wp,`, `-Xpreprocessor`, `-Wa,`,
 * `-Xassembler`, `--for-assembler`) into words and judges them here; an `ld`/`as` called directly gets the same
 * rule. A word the rule does not know is refused: the driver would forward it to a program whose options the
 * rule cannot see through (ld's `-plugin`, lld's `--load-pass-plugin`, cc1's `-fplugin` all load a shared object).
 *
 * Every word starting with `-` is judged, including words that are the value of the option before them: a
 * value that looks like an option is refused (a false denial at worst), so no judgement depends on which word
 * the receiving program takes as a value — words from different channels are interleaved with the driver's own
 * arguments on the receiving command line. A word starting with `@` is a response file at any level: refused
 * (its content could change between the check and the use).
 */

export type Receiver = 'linker' | 'preprocessor' | 'assembler';

const refuse = (rule: string, message: string): Verdict => deny('ARGUMENT_FORBIDDEN', rule, message);

/**
 * Linker long options, with one dash or two (GNU ld parses with getopt_long_only), exact names only: an
 * abbreviation is refused even where ld would accept it.
 */
const LINKER_LONG = new Set(`
  as-needed no-as-needed add-needed no-add-needed copy-dt-needed-entries no-copy-dt-needed-entries gc-sections
  no-gc-sections print-gc-sections gc-keep-exported start-group end-group whole-archive no-whole-archive push-state
  pop-state version-script dynamic-list dynamic-list-data dynamic-list-cpp-new dynamic-list-cpp-typeinfo
  export-dynamic no-export-dynamic exclude-libs build-id hash-style enable-new-dtags disable-new-dtags
  no-undefined allow-shlib-undefined no-allow-shlib-undefined unresolved-symbols warn-common warn-once
  fatal-warnings no-fatal-warnings warn-unresolved-symbols error-unresolved-symbols icf threads no-threads
  thread-count strip-all strip-debug discard-all discard-locals sort-common sort-section relax no-relax
  eh-frame-hdr no-eh-frame-hdr compress-debug-sections gdb-index color-diagnostics image-base section-start
  defsym wrap undefined entry soname rpath rpath-link library library-path output script dynamic-linker
  no-dynamic-linker Map cref trace verbose version print-map stats no-keep-memory reduce-memory-overheads demangle
  no-demangle emit-relocs relocatable shared static pie no-pie pic-executable Bstatic Bdynamic Bsymbolic
  Bsymbolic-functions Bno-symbolic Bgroup Bshareable dy dn call_shared non_shared dependency-file
  no-undefined-version undefined-version ignore-unresolved-symbol allow-multiple-definition error-limit
  warn-textrel no-warn-execstack warn-execstack no-warn-rwx-segments warn-rwx-segments nmagic omagic no-omagic
  format oformat print-memory-usage orphan-handling force-dynamic package-metadata ld-generated-unwind-info
  no-ld-generated-unwind-info disable-linker-version enable-linker-version Ttext Tdata Tbss Ttext-segment
  Trodata-segment Tldata-segment fix-cortex-a53-843419 fix-cortex-a53-835769 no-fix-cortex-a53-843419 sysroot
  no-check-sections check-sections noinhibit-exec stack-size emit-stack-sizes
`.split(/\s+/).filter(Boolean));

/** Short linker options, exactly as written (`-s`), and those taking a value attached or in the next word (`-lm`). */
const LINKER_SHORT_FLAGS = new Set(['-s', '-S', '-x', '-X', '-E', '-N', '-n', '-r', '-i', '-t', '-v', '-V', '-q', '-M', '-d', '-dc', '-dp', '-g', '-Qy', '-Qn']);
const LINKER_SHORT_VALUE = /^-[lLOoeuyzTRhmIFfa]/;

/**
 * Names that load code into the linker or name a program it runs: ld/gold/mold `-plugin`, `-plugin-opt` (the GCC
 * LTO plugin runs the program it is told is lto-wrapper), lld's `--load-pass-plugin`, `-mllvm` and
 * `--lto-newpm-passes`, mold's `-run`. Refused in every spelling the linker could read as them: exact,
 * abbreviated (GNU ld takes unique abbreviations, with one dash or two), or hidden behind what looks like a short
 * option's attached value (`-load-pass-plugin=x` is a long option, not `-l` + "oad-pass-plugin=x", to
 * getopt_long_only). A single-letter word that is a short option (`-m`, `-r`) is that short option to every linker.
 */
const LINKER_LOADS_CODE = ['plugin', 'plugin-opt', 'plugin-save-temps', 'load-pass-plugin', 'mllvm', 'lto-newpm-passes', 'run'];

function judgeLinkerWord(word: string): string | undefined {
  if (LINKER_SHORT_FLAGS.has(word) || /^-[lLOoeuyzTRhmIFfa]$/.test(word)) return undefined;
  const name = word.replace(/^--?/, '').split('=')[0]!;
  const loader = LINKER_LOADS_CODE.find((d) => name !== '' && (d.startsWith(name) || name.startsWith(d)));
  if (loader) return `it could mean ${loader}, which makes the linker load code or run a program of the caller's choosing`;
  if (LINKER_LONG.has(name)) return undefined;
  if (!word.startsWith('--') && LINKER_SHORT_VALUE.test(word)) return undefined;
  return 'it is not on the list of linker options the rule knows';
}

/** Preprocessor options (cc1 -E / cpp) received through -Wp, and -Xpreprocessor: joined or separate values. */
const PREPROCESSOR = [
  /^-[DUI]/, /^-(iquote|isystem|idirafter|include|imacros|iprefix|iwithprefix|iwithprefixbefore|isysroot|imultilib|imultiarch)/,
  /^-M[FTQ]/, /^-(M|MM|MD|MMD|MP|MG|P|C|CC|H|dD|dM|dN|dI|dU|undef|nostdinc|nostdinc\+\+|trigraphs|traditional|traditional-cpp|w|v|remap|ansi|pedantic|pedantic-errors)$/,
  /^-std=/, /^-W(no-)?[A-Za-z0-9=+_-]+$/,
  /^-f(no-)?(directives-only|preprocessed|working-directory|dollars-in-identifiers|extended-identifiers|pch-deps|pch-preprocess|show-column|char8_t|signed-char|unsigned-char)$/,
  /^-f(input-charset|exec-charset|wide-exec-charset|tabstop|macro-prefix-map|file-prefix-map|debug-prefix-map|max-include-depth)=/,
];

/** Assembler options (GNU as; clang's integrated assembler takes a subset) received through -Wa, and -Xassembler. */
const ASSEMBLER = [
  /^-I/, /^--defsym(=|$)/, /^-g/, /^--g(dwarf|stabs|en-debug)/, /^--(64|32|x32)$/,
  /^-m(arch|cpu|tune|fpu|float-abi|abi|relax-relocations|x86-used-note|evexrcig|fence-as-lock-add|lfence-after-load|lfence-before-indirect-branch|lfence-before-ret|align-branch|align-branch-boundary|branches-within-32B-boundaries)(=|$)/,
  /^-m(thumb|arm|sse2avx|no-shared|shared|naked-reg|amd64|intel64|add-bnd-prefix|omit-lock-prefix|syntax=[a-z]+|mnemonic=[a-z]+|regnames|no-regnames)$/,
  /^--(noexecstack|execstack|no-warn|warn|fatal-warnings|keep-locals|statistics|version|compress-debug-sections(=[a-z-]+)?|nocompress-debug-sections|reduce-memory-overheads|strip-local-absolute|traditional-format|sectname-subst|no-pad-sections|divide|MD)$/,
  /^--(size-check|elf-stt-common|generate-missing-build-notes|multibyte-handling|gsframe)=/,
  /^-(W|w|J|K|L|R|v|V|Z|f|D|n|o|Qy|Qn)$/, /^-a[cdghlmns]*(=|$)/,
];

function judgeByPatterns(word: string, patterns: readonly RegExp[], what: string): string | undefined {
  return patterns.some((p) => p.test(word)) ? undefined : `it is not on the list of ${what} options the rule knows`;
}

/**
 * Judges the words one receiving program gets. `via`: the driver option that forwarded them (for the message);
 * undefined when the program was called directly.
 */
export function judgeReceived(receiver: Receiver, words: readonly string[], via?: string, family = 'cc'): Verdict {
  const rule = `${family}.forwarded-option`;
  for (const word of words) {
    if (word.startsWith('@')) {
      const what = via ? `${via} forwards the response file "${word}" to the ${receiver}` : `The ${receiver} argument "${word}" is a response file`;
      return refuse(rule, `${what}: a response file holds options the rule cannot inspect, so it is not allowed.`);
    }
    if (!word.startsWith('-') || word === '-') continue; // an input file, or a value
    const why = receiver === 'linker' ? judgeLinkerWord(word) : judgeByPatterns(word, receiver === 'preprocessor' ? PREPROCESSOR : ASSEMBLER, receiver);
    if (why) return refuse(rule, `${via ? `${via} forwards "${word}" to the ${receiver}, which` : `The ${receiver} option "${word}"`} is not allowed: ${why}.`);
  }
  return allow(`${family}.ok`);
}

/** `ld` (ld.bfd, ld.gold, ld.lld, mold …) and `as` called directly: the same allowlists as forwarded words. */
export const linkerRule = (args: readonly string[]): Verdict => judgeReceived('linker', args, undefined, 'ld');
export const assemblerRule = (args: readonly string[]): Verdict => judgeReceived('assembler', args, undefined, 'as');

/** For the docs: the linker options that load code (refused in every spelling). */
export const LINKER_CODE_LOADERS_FOR_DOCS: readonly string[] = LINKER_LOADS_CODE;
