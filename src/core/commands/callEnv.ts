import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../paths/confine';
import { deny, type Verdict } from '../verdict';
import { tarRule } from './rules/tar';

/**
 * Per-call environment values (`env` of a request) are chosen by the agent. By allowlist (issue 28):
 *
 *  1. HARMLESS_CALL_ENV: names whose values programs only read as data (locale, time zone, terminal size,
 *     colour switches, commit identity). A call may set these without the operator's say, each value of the
 *     shape the list gives.
 *  2. Every other name must be on the operator's pass-through list (childEnvAllowlist) — and even then the
 *     families in REFUSED_CALL_ENV are refused: names that make a program load code, run a program, read
 *     options or configuration from elsewhere, or write files (compiler, loader, interpreter, shell, git,
 *     pager/editor, home/configuration, search paths, temporary directories, option variables …), matched by
 *     pattern so a name nobody listed yet in a family is refused too.
 *  3. Three operator-passed names are judged by value, like argv: TAR_OPTIONS (by the tar rule, as the words GNU
 *     tar prepends), TAPE (not host:file), and PATH (absolute entries outside the workspace).
 *
 * (Names the operator passes through from the server's own environment are the operator's choice and are not
 * judged here; neither are the variables the server itself sets for every child.)
 */

export interface HarmlessName {
  readonly name: string;
  /** The shape a value must have (a locale name is not a path to a locale directory). */
  readonly value: RegExp;
  readonly why: string;
}

const LOCALE = /^[A-Za-z0-9_.@-]*$/;
const FLAG = /^[A-Za-z0-9_.-]{0,32}$/;
/** Anything but control characters (which no identity needs): author and committer names are free text. */
const TEXT = /^[^\0-\x1f\x7f]*$/;

export const HARMLESS_CALL_ENV: readonly HarmlessName[] = [
  ...['LANG', 'LC_ALL', 'LC_CTYPE', 'LC_COLLATE', 'LC_MESSAGES', 'LC_NUMERIC', 'LC_TIME', 'LC_MONETARY', 'LC_PAPER', 'LC_NAME', 'LC_ADDRESS', 'LC_TELEPHONE', 'LC_MEASUREMENT', 'LC_IDENTIFICATION'].map((name) => ({
    name, value: LOCALE, why: 'a locale name (no slash: a path would load locale files from elsewhere)',
  })),
  { name: 'LANGUAGE', value: /^[A-Za-z0-9_.@:-]*$/, why: 'a list of message languages' },
  { name: 'TZ', value: /^(?!:?\/)(?!.*\.\.)[A-Za-z0-9_+,.:<>/-]*$/, why: 'a time zone name or rule (not a path to a zone file)' },
  { name: 'TERM', value: /^[A-Za-z0-9._+-]*$/, why: 'a terminal type' },
  { name: 'COLUMNS', value: /^\d{0,5}$/, why: 'the output width' },
  { name: 'LINES', value: /^\d{0,5}$/, why: 'the output height' },
  ...['NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLORTERM'].map((name) => ({ name, value: FLAG, why: 'a colour switch' })),
  { name: 'SOURCE_DATE_EPOCH', value: /^\d{0,12}$/, why: 'the time reproducible builds record' },
  ...['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE'].map((name) => ({
    name, value: TEXT, why: 'the identity git records in a commit',
  })),
];

export interface RefusedFamily {
  readonly family: string;
  /** Matched against the name in upper case. */
  readonly pattern: RegExp;
  readonly why: string;
}

export const REFUSED_CALL_ENV: readonly RefusedFamily[] = [
  { family: 'loader', pattern: /^(LD_|DYLD_|_RLD|LIBPATH$|SHLIB_PATH$|GLIBC_TUNABLES$|MALLOC_|GCONV_PATH$|LOCPATH$|HOSTALIASES$|LOCALDOMAIN$|RES_OPTIONS$)/, why: 'makes the dynamic loader or the C library load code or read files of the caller\'s choosing' },
  { family: 'compiler', pattern: /^(GCC_|COLLECT_|COMPILER_PATH$|LIBRARY_PATH$|CPATH$|C_INCLUDE_PATH$|CPLUS_INCLUDE_PATH$|OBJC_INCLUDE_PATH$|DEPENDENCIES_OUTPUT$|SUNPRO_DEPENDENCIES$|CCC_|CLANG_|CXX_MODULE_MAPPER$|LTO_|CC$|CXX$|CPP$|LD$|AS$|AR$|NM$|RANLIB$|STRIP$|OBJCOPY$|OBJDUMP$|MAKE$|MAKELEVEL$|MFLAGS$|RUSTC|CARGO_)/, why: 'makes a compiler or build tool load code (GCC_COMPARE_DEBUG loads a plugin), choose its programs (COMPILER_PATH, CC), or write files (DEPENDENCIES_OUTPUT)' },
  { family: 'interpreter', pattern: /^(PYTHON|PERL|RUBY|GEM_|BUNDLE_|NODE_|NPM_|YARN_|PNPM_|JAVA_|_JAVA_|JDK_|CLASSPATH$|LUA_|TCL|TK_|PHP|DENO_|BUN_|ERL_|JULIA_|GUILE_|OCAML|R_|IRB|AWKPATH$|AWKLIBPATH$)/, why: 'makes an interpreter load code or modules (PYTHONPATH, PERL5OPT, NODE_OPTIONS, RUBYOPT …)' },
  { family: 'shell', pattern: /^(BASH_ENV$|ENV$|BASH_FUNC_|SHELLOPTS$|BASHOPTS$|PS[0-4]$|PROMPT_COMMAND|IFS$|CDPATH$|GLOBIGNORE$|ZDOTDIR$|INPUTRC$|SHELL$|CONFIG_SHELL$|FPATH$|HISTFILE$|KSH_|ZSH_)/, why: 'makes a shell run startup code or change how it reads commands' },
  { family: 'git', pattern: /^GIT_/, why: 'chooses git\'s configuration, directories, programs or trace files (only the author/committer identity is accepted)' },
  { family: 'pager, editor, browser', pattern: /(PAGER|EDITOR|VISUAL|BROWSER|ASKPASS|TERMINAL)$|^(LESS|MORE$|MANOPT$|LESSOPEN|LESSCLOSE|LESSKEY)/, why: 'names a program to start for paging, editing, browsing or prompting' },
  { family: 'remote shell and credentials', pattern: /^(RSH$|RSYNC_|SSH_|GPG|GNUPG|SUDO_|DBUS_|DISPLAY$|WAYLAND_DISPLAY$|XAUTHORITY$|KRB5)/, why: 'names a remote-shell program or reaches an agent, display or key store' },
  { family: 'network routing', pattern: /_PROXY$/, why: 'sends the program\'s network traffic through a host of the caller\'s choosing' },
  { family: 'home and configuration', pattern: /^(HOME$|XDG_)|_HOME$|RC$|CONF($|_)|CONFIG($|_)|_CONFIG/, why: 'makes programs read their configuration (which can name programs) from elsewhere' },
  { family: 'search paths', pattern: /PATH$|^TERMINFO|^TERMCAP$/, why: 'makes programs look for programs, modules or data elsewhere (PATH itself is judged entry by entry)' },
  { family: 'temporary files', pattern: /^(TMPDIR|TMP|TEMP)$/, why: 'moves where programs write temporary files (sort -T\'s class)' },
  { family: 'option variables', pattern: /(_OPTIONS|OPTS|OPT|FLAGS)$|^(GZIP|BZIP|BZIP2|XZ_DEFAULTS|ZIP|UNZIP|ZSTD_)/, why: 'is read by a program as extra command-line options (TAR_OPTIONS alone is judged by the tar rule)' },
  { family: 'library and engine selection', pattern: /^(OPENSSL_|SSL_|CURL_|WGET|PKG_CONFIG|SYSTEMROOT$|COMSPEC$|PATHEXT$|WINDIR$|XARGS$)/, why: 'makes a program load engines, modules or helper programs from elsewhere' },
];

const harmless = new Map(HARMLESS_CALL_ENV.map((h) => [h.name, h]));

const refused = (name: string, why: string): Verdict =>
  deny('BAD_REQUEST', 'env.per-call-refused', `The per-call environment value ${name} is not accepted: ${why}. Leave it out of this call (an operator can set it for the server instead).`);

/** The names buildChildEnv may take from this call: the operator's pass-through list and the harmless names it sets. */
export function perCallEnvAllowlist(operatorList: readonly string[], overrides: Readonly<Record<string, string>> | undefined, platform: NodeJS.Platform = process.platform): string[] {
  const windows = platform === 'win32';
  const set = Object.keys(overrides ?? {}).filter((n) => harmless.has(windows ? n.toUpperCase() : n));
  return [...new Set([...operatorList, ...set])];
}

function judgeTarOptions(value: string): Verdict | undefined {
  if (/["'\\]/.test(value)) return refused('TAR_OPTIONS', 'it contains quotes or backslashes, which GNU tar splits differently from plain words');
  const words = value.split(/\s+/).filter(Boolean);
  const v = tarRule(words, 'tar');
  if (v.kind === 'deny') return deny('ARGUMENT_FORBIDDEN', v.rule, `The per-call TAR_OPTIONS value is not accepted: GNU tar reads it as options, and ${v.reason}`);
  // A value that ends inside an option needing a value would consume the first argv word.
  if (words.length && tarRule([...words, '--use-compress-program=x'], 'tar').kind === 'allow') {
    return refused('TAR_OPTIONS', 'its last option takes a value, which would be taken from the command line');
  }
  return undefined;
}

function judgePath(value: string, root: string, windows: boolean): Verdict | undefined {
  for (const entry of value.split(windows ? ';' : ':')) {
    if (entry === '' || !path.isAbsolute(entry)) {
      return refused('PATH', `the entry "${entry}" is relative (or empty, which means the working directory), so programs would be looked up in the workspace`);
    }
    let real = path.resolve(entry);
    try {
      real = fs.realpathSync.native(entry);
    } catch {
      /* a missing directory holds no programs */
    }
    if (isInside(root, path.resolve(entry)) || isInside(root, real)) {
      return refused('PATH', `the entry "${entry}" is inside the workspace, where the agent can write programs`);
    }
  }
  return undefined;
}

/** The operator-passed names that are judged by value, like argv. */
function judgeByValue(name: string, value: string, root: string, windows: boolean): Verdict | undefined | 'not-judged' {
  if (name.toUpperCase() === 'PATH') return judgePath(value, root, windows);
  if (name === 'TAR_OPTIONS') return judgeTarOptions(value);
  if (name === 'TAPE') {
    const colon = value.indexOf(':');
    const slash = value.indexOf('/');
    return colon > 0 && (slash < 0 || colon < slash) ? refused('TAPE', 'GNU tar opens a host:file archive through rsh/ssh') : undefined;
  }
  return 'not-judged';
}

export interface CallEnvOptions {
  /** The operator's pass-through list (childEnvAllowlist); a name not on it and not harmless is refused. */
  readonly operatorAllowlist?: readonly string[];
  readonly platform?: NodeJS.Platform;
}

/**
 * Judges the per-call environment values. `root` is the workspace's real path. Without `operatorAllowlist`, every
 * name is judged as if the operator had passed it through (the families and values only).
 */
export function judgeCallEnv(overrides: Readonly<Record<string, string>> | undefined, root: string, options: CallEnvOptions = {}): Verdict | undefined {
  if (!overrides) return undefined;
  const windows = (options.platform ?? process.platform) === 'win32';
  const passed = options.operatorAllowlist && new Set(options.operatorAllowlist.map((n) => (windows ? n.toUpperCase() : n)));
  for (const [rawName, value] of Object.entries(overrides)) {
    if (typeof value !== 'string') continue; // buildChildEnv reports the type error
    const name = windows ? rawName.toUpperCase() : rawName;
    const known = harmless.get(name);
    if (known) {
      if (!known.value.test(value)) return refused(rawName, `its value is not ${known.why}`);
      continue;
    }
    if (passed && !passed.has(name)) {
      return refused(rawName, `it is not on the reviewed list of harmless names a call may set (${HARMLESS_CALL_ENV.map((h) => h.name).filter((n) => !n.startsWith('LC_') || n === 'LC_ALL').join(', ')}, LC_*), and the operator has not passed it through (childEnvAllowlist)`);
    }
    const byValue = judgeByValue(name, value, root, windows);
    if (byValue !== 'not-judged') {
      if (byValue) return byValue;
      continue;
    }
    const upper = name.toUpperCase();
    const family = REFUSED_CALL_ENV.find((f) => f.pattern.test(upper));
    if (family) return refused(rawName, `it ${family.why} (${family.family} variables are refused even when the operator passes the name through)`);
  }
  return undefined;
}
