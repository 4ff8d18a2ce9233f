import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../paths/confine';
import { deny, type Verdict } from '../verdict';
import { tarRule } from './rules/tar';

/**
 * Per-call environment values (`env`/`envs` of a request) are chosen by the agent, so they pass the same
 * rules as argv for the programs they affect, or are refused for the call. (Names the operator passes through
 * from the server's own environment are the operator's choice and are not judged here.)
 *
 *  - TAR_OPTIONS is prepended to tar's argv by GNU tar: judged by the tar rule as if written there (a value
 *    with quotes or backslashes, which tar's word splitter reads differently, is refused). TAPE (the default
 *    archive) is refused when it names a remote archive (host:file).
 *  - Variables that make a program read options, configuration, code or helper names from elsewhere are
 *    refused: the loader's (LD_*, DYLD_*), shells' and interpreters' startup hooks, editor/pager/browser
 *    selectors, git's GIT_* (configuration, directories, programs; only the author/committer identity is
 *    accepted), bsdtar's TAR_READER/WRITER_OPTIONS, zip's ZIPOPT, ripgrep's config path, HOME and XDG_* (where
 *    programs find their configuration), and TMPDIR/TMP/TEMP (where temporary files go: sort -T's class).
 *  - PATH (when the operator passes it through): every entry must be an absolute directory outside the
 *    workspace; otherwise a program's helper lookups (tar -z runs gzip, git runs ssh) would find files the
 *    agent wrote.
 */

const REFUSED_EXACT = new Set([
  'BASH_ENV', 'ENV', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE', 'ZDOTDIR',
  'INPUTRC', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONSTARTUP', 'PYTHONPATH', 'PYTHONHOME', 'PYTHONINSPECT',
  'PYTHONUSERBASE', 'PERL5OPT', 'PERL5LIB', 'PERLLIB', 'PERL5DB', 'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'CLASSPATH', 'EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'MANOPT', 'LESSOPEN',
  'LESSCLOSE', 'LESSKEY', 'LESS', 'BROWSER', 'SHELL', 'TERMINAL', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'GCONV_PATH',
  'HOSTALIASES', 'LOCPATH', 'GLIBC_TUNABLES', 'TMPDIR', 'TMP', 'TEMP', 'HOME', 'AWKPATH', 'AWKLIBPATH',
  'TAR_READER_OPTIONS', 'TAR_WRITER_OPTIONS', 'RSH', 'ZIP', 'ZIPOPT', 'UNZIP', 'UNZIPOPT', 'RIPGREP_CONFIG_PATH',
  'GREP_OPTIONS', 'CURL_HOME', 'WGETRC', 'COMPILER_PATH', 'GCC_EXEC_PREFIX', 'OPENSSL_CONF', 'OPENSSL_ENGINES',
  'OPENSSL_MODULES', 'CCC_OVERRIDE_OPTIONS', 'SSH_AUTH_SOCK', 'MAKEFLAGS', 'MFLAGS', 'GNUMAKEFLAGS', 'XARGS',
  'SYSTEMROOT', 'COMSPEC', 'PATHEXT', 'WINDIR',
]);
const REFUSED_PREFIX = ['LD_', 'DYLD_', 'BASH_FUNC_', 'XDG_', 'MALLOC_', 'GIT_', 'SSH_', 'GPG', 'GNUPG', 'PKG_CONFIG', 'npm_config_'.toUpperCase()];
const GIT_IDENTITY = new Set(['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE']);

const refused = (name: string, why: string): Verdict =>
  deny('BAD_REQUEST', 'env.per-call-refused', `The per-call environment value ${name} is not accepted: ${why}. Leave it out of this call (an operator can set it for the server instead).`);

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

/** Judges the per-call environment values. `root` is the workspace's real path. */
export function judgeCallEnv(overrides: Readonly<Record<string, string>> | undefined, root: string, platform: NodeJS.Platform = process.platform): Verdict | undefined {
  if (!overrides) return undefined;
  const windows = platform === 'win32';
  for (const [rawName, value] of Object.entries(overrides)) {
    if (typeof value !== 'string') continue; // buildChildEnv reports the type error
    const name = windows ? rawName.toUpperCase() : rawName;
    const upper = name.toUpperCase();
    if (upper === 'PATH') {
      const v = judgePath(value, root, windows);
      if (v) return v;
      continue;
    }
    if (name === 'TAR_OPTIONS') {
      const v = judgeTarOptions(value);
      if (v) return v;
      continue;
    }
    if (name === 'TAPE') {
      const colon = value.indexOf(':');
      const slash = value.indexOf('/');
      if (colon > 0 && (slash < 0 || colon < slash)) return refused('TAPE', 'GNU tar opens a host:file archive through rsh/ssh');
      continue;
    }
    if (GIT_IDENTITY.has(name)) continue;
    if (REFUSED_EXACT.has(upper) || REFUSED_PREFIX.some((p) => upper.startsWith(p))) {
      return refused(rawName, 'it makes programs read configuration, options, code or helper programs from elsewhere (or put files elsewhere)');
    }
  }
  return undefined;
}
