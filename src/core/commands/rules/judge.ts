import * as path from 'node:path';
import { allow, deny, type Verdict } from '../../verdict';
import { awkRule } from './awk';
import { ccRule } from './cc';
import { binutilsRule } from './binutils';
import { rsyncRule } from './rsync';
import { assemblerRule, linkerRule } from './toolchain';
import { curlRule } from './curl';
import { baseCommandName, familyOf } from './families';
import { findRule } from './find';
import { opensslRule } from './openssl';
import { describeForbidden, judgeForbiddenName } from './forbidden';
import { gitRule } from './git';
import { hardenGitReadOnlyArgs } from './gitHarden';
import { hardenSedArgv, sedRule } from './sed';
import { sortRule } from './sort';
import { tarRule } from './tar';
import { wgetRule } from './wget';
import { zipRule } from './zip';
import type { FamilyRule } from './types';

/**
 * Argument hardening for ONE pipeline stage (argv[0] is the command name exactly as given, maybe a path).
 * The allowlist is judged elsewhere; this is the second, independent layer: never-runnable names and the
 * argument forms by which allowed programs start other programs or write where they should not.
 * Order: name sanity → then for EVERY name of the program (as called, the path found, its realpath; see
 * namesToJudge): /proc and /dev paths → forbidden names → git's dashed names and exec path → family rule →
 * allow (`rules.none`). Never throws.
 *
 * Defence in depth, not a sandbox: the sandbox is `isolation`.
 */

export const FAMILY_RULES: Readonly<Record<string, FamilyRule>> = {
  find: findRule,
  awk: awkRule,
  tar: tarRule,
  sort: sortRule,
  sed: sedRule,
  git: gitRule,
  zip: zipRule,
  wget: wgetRule,
  cc: ccRule,
  ld: linkerRule,
  as: assemblerRule,
  binutils: binutilsRule,
  rsync: rsyncRule,
  openssl: opensslRule,
  curl: curlRule,
};

/** Characters a command NAME may contain: letters, digits and `. _ + - / @ : ,` (paths, versions, drives). */
const SAFE_NAME = /^[A-Za-z0-9._+\-/@:,]+$/;

function judgeName(name: string): Verdict | undefined {
  if (name === '') return deny('BAD_REQUEST', 'name.empty', 'The command name is empty.');
  if (/[\0\n\r]/.test(name)) return deny('BAD_REQUEST', 'name.control-character', `The command name ${JSON.stringify(name)} contains a newline or NUL byte.`);
  if (!SAFE_NAME.test(name)) {
    return deny('BAD_REQUEST', 'name.metacharacter', `The command name ${JSON.stringify(name)} contains white space, a shell metacharacter or another character that is not allowed in a command name. Give the program name alone and its arguments as separate argv elements.`);
  }
  if (name.startsWith('-')) return deny('BAD_REQUEST', 'name.metacharacter', `The command name "${name}" starts with "-".`);
  if (baseCommandName(name) === '') return deny('BAD_REQUEST', 'name.empty', `The command name "${name}" names a directory, not a program.`);
  return undefined;
}

function judgeArgumentBytes(args: readonly string[]): Verdict | undefined {
  for (const a of args) {
    if (a.includes('\0')) return deny('BAD_REQUEST', 'argv.nul', 'An argument contains a NUL byte, which no program can receive.');
    if (a.startsWith('-')) {
      const eq = a.indexOf('=');
      const optName = eq >= 0 ? a.slice(0, eq) : a;
      if (/[\x00-\x1f\x7f]/.test(optName)) {
        return deny('BAD_REQUEST', 'argv.option-name-control-character', `The option name ${JSON.stringify(optName)} contains a newline or another control character.`);
      }
    }
  }
  return undefined;
}

/** Options for judging a stage by every name its program has (see resolve.ts). */
export interface JudgeOptions {
  /**
   * The other names of the program: the absolute path the PATH lookup found and its realpath. A program is
   * never runnable when ANY of its names is forbidden, and the argument rules of every family it belongs to
   * apply (e.g. `editor` -> /usr/bin/vim.basic, `sort2` -> /usr/bin/tar).
   */
  readonly aliases?: readonly string[];
  /**
   * The caller has judged delegation itself (commands/delegation.ts: inside a sandbox, or opted in): names of
   * shells, interpreters and wrappers are not refused here, their arguments are judged as for any program.
   */
  readonly delegationJudged?: boolean;
}

/**
 * Programs that act on the name they are started by (argv[0]) and refuse names they do not know: judged by
 * that name, not by the file's own name (busybox started as `ls` is ls). git is one too, but only for its
 * dashed names (/usr/lib/git-core/git-grep, a link to git, is `git grep`); started by any other name git acts
 * as plain git, so its own name is judged then.
 */
const MULTICALL = new Set(['busybox', 'toybox', 'coreutils']);

/** The names to judge: the invoked name, then aliases, without a multi-call binary's own name when it was linked. */
export function namesToJudge(invoked: string, aliases: readonly string[] = []): string[] {
  const names = [...new Set([invoked, ...aliases])];
  const bases = names.map(baseCommandName);
  const linkedApplet = bases.some((b) => !MULTICALL.has(b) && b !== 'git');
  const dashedGit = bases.some((b) => b.startsWith('git-'));
  return names.filter((_, i) => {
    if (i === 0) return true;
    const b = bases[i]!;
    if (MULTICALL.has(b)) return !linkedApplet;
    if (b === 'git') return !dashedGit;
    return true;
  });
}

/** A path that names a running process's image or an open descriptor (/proc/self/exe, /proc/1/fd/3, /dev/fd/3). */
function judgeProcessPath(name: string): Verdict | undefined {
  if (!name.includes('/')) return undefined;
  const norm = path.posix.normalize(name.replace(/\\/g, '/'));
  if (/^\/+(proc|dev)(\/|$)/.test(norm) || /^\/+(proc|dev)(\/|$)/.test(path.posix.resolve('/', norm))) {
    return deny('COMMAND_FORBIDDEN', 'forbidden.process-image', `"${name}" can never be run: a path under /proc or /dev names a running process's own program (the server's node for /proc/self/exe) or an open file descriptor, not an installed program.`);
  }
  return undefined;
}

/** git-<sub> programs (git-grep, /usr/lib/git-core/git-rebase) are git with a subcommand; other files in git-core are helpers. */
function judgeGitFamilyName(name: string, args: readonly string[]): Verdict | undefined {
  const base = baseCommandName(name);
  const dashed = /^git-(.+)$/.exec(base);
  if (dashed) {
    const v = gitRule([dashed[1]!, ...args], name);
    return v.kind === 'allow' ? undefined : v;
  }
  const dir = path.posix.basename(path.posix.dirname(name.replace(/\\/g, '/'))).toLowerCase();
  if (dir === 'git-core' && base !== 'git') {
    return deny('COMMAND_FORBIDDEN', 'git.exec-path-program', `"${name}" can never be run: it is a helper program in git's exec path, not a git subcommand.`);
  }
  return undefined;
}

function judgeOneName(name: string, args: readonly string[], delegationJudged: boolean): Verdict | undefined {
  const proc = judgeProcessPath(name);
  if (proc) return proc;
  const forbidden = delegationJudged ? undefined : judgeForbiddenName(name);
  if (forbidden) return forbidden;
  const git = judgeGitFamilyName(name, args);
  if (git) return git;
  const family = familyOf(name);
  const rule = family !== undefined ? FAMILY_RULES[family] : undefined;
  if (!rule) return undefined;
  const v = rule(args, name);
  return v.kind === 'allow' ? undefined : v;
}

export function judgeCommand(argv: readonly string[], options: JudgeOptions = {}): Verdict {
  try {
    if (!Array.isArray(argv) || argv.length === 0) return deny('BAD_REQUEST', 'argv.empty', 'The command is empty.');
    if (!argv.every((a) => typeof a === 'string')) return deny('BAD_REQUEST', 'argv.type', 'Every argv element must be a string.');
    const name = argv[0]!;
    const args = argv.slice(1);
    const early = judgeName(name) ?? judgeArgumentBytes(args);
    if (early) return early;
    for (const n of namesToJudge(name, options.aliases)) {
      const v = judgeOneName(n, args, options.delegationJudged === true);
      if (v) return v;
    }
    return allow('rules.none');
  } catch (e) {
    // A rule must never throw; if one does, the request is denied (fail closed) and the bug is visible.
    return deny('ARGUMENT_FORBIDDEN', 'rules.internal-error', `The argument rules could not judge this command (${(e as Error)?.message ?? 'unknown error'}), so it is denied.`);
  }
}

/**
 * The argv to actually spawn for one stage, given every name of its program: `--sandbox` added for sed; for a
 * read-only git call, the hardening of gitHarden.ts (configuration-driven programs off) when `gitReadOnly`
 * gives the configured filter names. argv[0] is kept as given: the caller spawns the judged path.
 */
export function prepareArgv(argv: readonly string[], options: JudgeOptions & { readonly gitReadOnly?: { readonly filterDrivers: readonly string[] } } = {}): string[] {
  if (argv.length === 0) return [];
  const families = new Set(namesToJudge(argv[0]!, options.aliases).map((n) => familyOf(n)));
  if (families.has('sed')) return [argv[0]!, ...hardenSedArgv(argv.slice(1))];
  if (families.has('git') && options.gitReadOnly) {
    const hardened = hardenGitReadOnlyArgs(argv.slice(1), options.gitReadOnly.filterDrivers);
    if (hardened) return [argv[0]!, ...hardened];
  }
  return [...argv];
}

/** For the README / docs: every never-runnable name and pattern. */
export const FORBIDDEN_NAMES_FOR_DOCS = describeForbidden();
