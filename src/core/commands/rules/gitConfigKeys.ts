import * as path from 'node:path';
import { isInside } from '../../paths/confine';

/**
 * The two reviewed lists behind read-only git (issue 28), as data.
 *
 * 1. HARMLESS_GIT_KEYS: the only keys a repository's OWN configuration (its `config`, `config.worktree`, the
 *    configuration of the submodule git directories inside it, and every file those include) may set for a git
 *    call to count as read-only. Each family was reviewed key by key: none names a program, a file git writes,
 *    or a filter/driver, for the reading subcommands read-only mode allows. A key that is not listed (a typo, a
 *    new git feature, `gpg.program`, `diff.x.textconv`, `core.pager` …) makes the call not read-only: it asks,
 *    and read-only mode refuses it. An allowlist, so a key git adds tomorrow is refused until it is reviewed.
 *
 * 2. NEUTRALISED_GIT_CONFIG: what read-only git runs with (`git -c KEY=VALUE …`, the highest-priority scope, so
 *    it also wins over the operator's own system and global files, which are not judged key by key): every
 *    program-naming setting a reading subcommand could reach, switched off.
 */

export interface ValueContext {
  /** The workspace root (real path). */
  readonly root: string;
  /** The git directory whose configuration this is (relative `core.worktree` values are relative to it). */
  readonly gitDir?: string;
}

export interface HarmlessKeyFamily {
  readonly family: string;
  /**
   * Key patterns: `section.name` (no subsection), `section.*.name` (any subsection), `*` for any variable
   * name or any subsection. Section and variable names compare in lower case, subsections as written.
   */
  readonly keys: readonly string[];
  /** Why the family is harmless for the reading subcommands. */
  readonly why: string;
  /** A reason the VALUE makes the key harmful, or undefined. */
  readonly refuseValue?: (value: string | undefined, at: ValueContext) => string | undefined;
}

/** Signature placeholders (`%G?`, `%GS`, `%GK` …) make git verify signatures with gpg.program. */
const noSignaturePlaceholder = (value: string | undefined): string | undefined =>
  value !== undefined && value.includes('%G') ? 'its format contains a %G signature placeholder, which makes git run the signature verifier (gpg.program)' : undefined;

export const HARMLESS_GIT_KEYS: readonly HarmlessKeyFamily[] = [
  {
    family: 'repository format',
    keys: [
      'core.repositoryformatversion', 'core.bare', 'core.filemode', 'core.logallrefupdates', 'core.ignorecase',
      'core.precomposeunicode', 'core.symlinks', 'extensions.objectformat', 'extensions.refstorage',
      'extensions.worktreeconfig', 'extensions.preciousobjects', 'extensions.partialclone', 'extensions.noop',
    ],
    why: 'written by git init/clone; they describe the on-disk format (a partial clone\'s promisor remote is never contacted: read-only git allows no transport)',
  },
  {
    family: 'work tree',
    keys: ['core.worktree', 'core.autocrlf', 'core.eol', 'core.safecrlf', 'core.sparsecheckout', 'core.sparsecheckoutcone', 'index.sparse', 'core.checkstat', 'core.trustctime'],
    why: 'where the work tree is and how its files are compared (line endings, sparse checkout); core.worktree only when it is inside the workspace (git submodule writes it into the submodule\'s git directory)',
    refuseValue: (value, at) => {
      if (value === undefined) return undefined;
      const wt = path.resolve(at.gitDir ?? at.root, value);
      return isInside(at.root, wt) ? undefined : `it puts the work tree at "${value}", outside the workspace`;
    },
  },
  {
    family: 'remotes',
    keys: [
      'remote.*.url', 'remote.*.pushurl', 'remote.*.fetch', 'remote.*.push', 'remote.*.tagopt', 'remote.*.prune',
      'remote.*.mirror', 'remote.*.promisor', 'remote.*.partialclonefilter',
    ],
    why: 'written by git clone / git remote add; read-only git reaches no remote (protocol.allow=never). Not here: remote.*.uploadpack, receivepack, vcs and proxy, which name programs',
  },
  {
    family: 'branches',
    keys: ['branch.*', 'branch.*.*'],
    why: 'upstream tracking and descriptions (and tools\' bookkeeping such as VS Code\'s branch.*.vscode-merge-base): git runs nothing named in a branch section',
  },
  {
    family: 'submodules',
    keys: ['submodule.*.url', 'submodule.*.active', 'submodule.*.branch', 'submodule.active'],
    why: 'written by git submodule add/init; the submodules\' own git directories are judged by this list too. Not here: submodule.*.update, which can be "!command"',
  },
  {
    family: 'identity',
    keys: ['user.name', 'user.email', 'author.name', 'author.email', 'committer.name', 'committer.email'],
    why: 'names and addresses recorded in new commits',
  },
  {
    family: 'includes',
    keys: ['include.path', 'includeif.*.path'],
    why: 'the files they name are read and judged by this same list (every condition counts as true)',
  },
  {
    family: 'display',
    keys: ['color.*', 'color.*.*', 'core.quotepath', 'i18n.commitencoding', 'i18n.logoutputencoding', 'log.date', 'log.decorate', 'log.abbrevcommit'],
    why: 'colours, quoting, encodings and date formats of the output',
  },
  {
    family: 'formats',
    keys: ['format.pretty', 'pretty.*'],
    why: 'named output formats for log/show, unless they contain a %G signature placeholder',
    refuseValue: noSignaturePlaceholder,
  },
  {
    family: 'defaults of writing commands',
    keys: ['init.defaultbranch', 'pull.rebase', 'pull.ff', 'push.default', 'push.autosetupremote', 'fetch.prune', 'merge.conflictstyle', 'rebase.autosquash', 'rebase.autostash'],
    why: 'read only by pull, push, fetch, merge and rebase, which are never read-only',
  },
  {
    family: 'git-lfs marker',
    keys: ['lfs.repositoryformatversion'],
    why: 'written by git-lfs into the repository; git itself ignores it (the lfs filter is a filter.* key, not on this list)',
  },
];

interface KeyParts {
  readonly section: string;
  readonly sub?: string;
  readonly name: string;
}

/** git's own split (git_config_parse_key): section up to the first dot, name after the last, subsection between. */
function split(key: string): KeyParts | undefined {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return undefined;
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  return first === last ? { section, name } : { section, sub: key.slice(first + 1, last), name };
}

const PATTERNS = HARMLESS_GIT_KEYS.map((f) => ({ family: f, patterns: f.keys.map((k) => split(k)!) }));

function matches(p: KeyParts, k: KeyParts): boolean {
  if (p.section !== k.section) return false;
  if (p.name !== '*' && p.name !== k.name) return false;
  if (p.sub === undefined) return k.sub === undefined;
  return k.sub !== undefined && (p.sub === '*' || p.sub === k.sub);
}

/** The family a key belongs to on the reviewed list, or undefined. */
export function harmlessFamilyOf(key: string): HarmlessKeyFamily | undefined {
  const k = split(key);
  if (!k) return undefined;
  return PATTERNS.find(({ patterns }) => patterns.some((p) => matches(p, k)))?.family;
}

/** Why a repository-owned key=value makes a git call not read-only, or undefined when it is harmless. */
export function judgeRepositoryKey(key: string, value: string | undefined, at: ValueContext): string | undefined {
  const family = harmlessFamilyOf(key);
  if (!family) return `${key} is not on the reviewed list of harmless git configuration keys`;
  const why = family.refuseValue?.(value, at);
  return why ? `${key}: ${why}` : undefined;
}

/** True when a key is an include directive (include.path, includeIf.<condition>.path). */
export function isIncludeKey(key: string): boolean {
  const k = split(key);
  return k !== undefined && k.name === 'path' && ((k.section === 'include' && k.sub === undefined) || (k.section === 'includeif' && k.sub !== undefined));
}

/** The filter driver a key configures (`filter.NAME.clean` → NAME), or undefined. */
export function filterDriverOf(key: string): string | undefined {
  const k = split(key);
  return k && k.section === 'filter' && k.sub !== undefined ? k.sub : undefined;
}

/**
 * Keys that act although read-only git's `-c` overrides cannot reach them: git reads trace2.* from the system
 * and global files only, before the command line (a normalTarget/perfTarget/eventTarget path is appended to on
 * every call). Such a key in the operator's own files makes the call not read-only.
 */
export function judgeOperatorKey(key: string, value: string | undefined): string | undefined {
  const k = split(key);
  if (k?.section === 'trace2' && k.sub === undefined && /target$/.test(k.name) && value !== undefined && !/^(|0|false|no|off)$/i.test(value.trim())) {
    return `${key} makes git write trace output to "${value}", and the command line cannot switch it off`;
  }
  return undefined;
}

/**
 * Environment a read-only git call must not inherit (names the operator passed through): configuration from the
 * environment (which the server cannot judge key by key) and trace targets (files git appends to).
 */
export function judgeGitEnvironment(env: Readonly<Record<string, string | undefined>>): string | undefined {
  for (const name of ['GIT_CONFIG_PARAMETERS', 'GIT_CONFIG_COUNT', 'GIT_CONFIG']) {
    if (env[name] !== undefined && env[name] !== '') return `${name} in the environment gives git configuration the server does not judge`;
  }
  for (const [name, value] of Object.entries(env)) {
    if (/^GIT_TRACE/.test(name) && value !== undefined && !/^(|0|1|2|false|true|no|yes|off|on)$/i.test(value.trim())) {
      return `${name}=${value} makes git write trace output to a file`;
    }
  }
  return undefined;
}

export interface NeutralisedSetting {
  /** `KEY=VALUE` as given to `git -c`. */
  readonly setting: string;
  readonly why: string;
}

/** Every transport git ships: a per-protocol setting outranks protocol.allow, so each is named. */
const TRANSPORTS = ['file', 'git', 'ssh', 'http', 'https', 'ftp', 'ftps', 'ext'] as const;

export const NEUTRALISED_GIT_CONFIG: readonly NeutralisedSetting[] = [
  { setting: 'core.fsmonitor=false', why: 'the file system monitor hook runs on every index refresh' },
  { setting: 'core.hooksPath=/dev/null', why: 'no hook runs (post-index-change runs when status refreshes the index)' },
  { setting: 'core.pager=cat', why: 'git treats "cat" as no pager' },
  { setting: 'diff.external=', why: 'no external diff program (with --no-ext-diff, also none of diff.*.command)' },
  { setting: 'log.showSignature=false', why: 'log and show would verify signatures' },
  { setting: 'gpg.program=', why: 'no signature verifier (a %G placeholder or a signed tag otherwise runs it)' },
  { setting: 'gpg.openpgp.program=', why: 'the same for OpenPGP signatures' },
  { setting: 'gpg.x509.program=', why: 'the same for X.509 signatures (gpgsm)' },
  { setting: 'gpg.ssh.program=', why: 'the same for SSH signatures (ssh-keygen)' },
  { setting: 'gpg.ssh.defaultKeyCommand=', why: 'a program that prints the SSH signing key' },
  { setting: 'credential.helper=', why: 'an empty helper empties the list of credential helpers' },
  { setting: 'core.askPass=', why: 'no password prompt program' },
  { setting: 'diff.ignoreSubmodules=all', why: 'status and diff do not start git in submodules' },
  { setting: 'diff.autoRefreshIndex=false', why: 'git diff would rewrite the index\'s stat cache (--no-optional-locks does not stop it); side effect: --name-only/--raw also list files whose content is unchanged but whose stat changed' },
  { setting: 'protocol.allow=never', why: 'no transport at all: a partial clone would fetch missing objects from its promisor remote (ssh, core.sshCommand, remote helpers)' },
  ...TRANSPORTS.map((p) => ({ setting: `protocol.${p}.allow=never`, why: `the ${p} transport (a per-protocol setting outranks protocol.allow)` })),
];

/** Per call, in addition: `pager.SUB=false` for the subcommand, and for every filter driver configured anywhere. */
export const NEUTRALISED_PER_DRIVER: readonly string[] = ['filter.NAME.clean=', 'filter.NAME.smudge=', 'filter.NAME.process='];
