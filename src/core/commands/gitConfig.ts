import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../paths/confine';
import { attempt } from '../attempt';
import { parseGitConfig } from './gitConfigFile';
import type { OwnRepository } from './gitRepo';
import { filterDriverOf, isIncludeKey, judgeGitEnvironment, judgeOperatorKey, judgeRepositoryKey } from './rules/gitConfigKeys';

/**
 * Read-only git judged against its effective configuration (issue 28). Reads every configuration file a git call
 * will read, the way git reads them (gitConfigFile.ts), and decides whether the call may count as read-only:
 *
 *  - the repository's own files — `config` of its common directory, `config.worktree`, the same files of every
 *    submodule git directory inside it (`modules/…`, which recursing reads use), every file any of them includes
 *    (`include.path`, `includeIf.*.path`: every condition counts as true) and any configuration file inside the
 *    workspace — may only set keys on the reviewed harmless list (rules/gitConfigKeys.ts);
 *  - the operator's own files (system, and global under the child's HOME/XDG_CONFIG_HOME/GIT_CONFIG_GLOBAL) are
 *    trusted, except for keys the command-line overrides cannot switch off (trace2 targets);
 *  - configuration or trace targets from the child's environment make the call not read-only.
 *
 * It also returns the filter driver names configured anywhere, which read-only git switches off one by one.
 * A file that exists but cannot be read or parsed completely makes the call not read-only (git would stop on it).
 */

export type GitConfigJudgement = { readonly filterDrivers: readonly string[] } | { readonly notReadOnly: string };

type Scope = 'repository' | 'operator';

interface Source {
  readonly file: string;
  readonly scope: Scope;
  /** The git directory this configuration belongs to (for relative core.worktree values). */
  readonly gitDir?: string;
  readonly depth: number;
}

/** git stops at this include depth ("exceeded maximum include depth"). */
const MAX_INCLUDE_DEPTH = 10;
/** Directories visited under modules/ before the walk gives up (and the call is not read-only). */
const MAX_MODULE_DIRS = 2000;

export function judgeGitConfiguration(repo: OwnRepository, childEnv: Readonly<Record<string, string | undefined>>, root: string): GitConfigJudgement {
  const fromEnv = judgeGitEnvironment(childEnv);
  if (fromEnv) return { notReadOnly: fromEnv };
  const home = childEnv.HOME;
  const sources: Source[] = [];
  const operator = (file: string) => sources.push({ file, scope: 'operator', depth: 0 });
  operator(childEnv.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig');
  if (childEnv.GIT_CONFIG_GLOBAL !== undefined) operator(childEnv.GIT_CONFIG_GLOBAL);
  else {
    const xdg = childEnv.XDG_CONFIG_HOME ?? (home ? path.join(home, '.config') : undefined);
    if (xdg) operator(path.join(xdg, 'git', 'config'));
    if (home) operator(path.join(home, '.gitconfig'));
  }
  const gitDirs = repositoryGitDirs(repo);
  if (typeof gitDirs === 'string') return { notReadOnly: gitDirs };
  for (const dir of gitDirs) {
    for (const name of ['config', 'config.worktree']) sources.push({ file: path.join(dir, name), scope: 'repository', gitDir: dir, depth: 0 });
  }

  const filters = new Set<string>();
  const seen = new Set<string>();
  while (sources.length) {
    const src = sources.shift()!;
    const key = `${src.scope}\0${src.file}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (src.depth > MAX_INCLUDE_DEPTH) return { notReadOnly: `the git configuration includes files more than ${MAX_INCLUDE_DEPTH} deep (from "${src.file}")` };
    // Most of these files do not exist: a plain existence test is much cheaper than a failed open (an exception).
    if (!fs.existsSync(src.file)) continue;
    let text: string;
    try {
      text = fs.readFileSync(src.file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue; // git skips a missing file (and a missing include)
      return { notReadOnly: `the git configuration file "${src.file}" cannot be read (${code ?? (e as Error).message})` };
    }
    const parsed = parseGitConfig(text);
    if ('error' in parsed) return { notReadOnly: `git cannot read its configuration file "${src.file}" (${parsed.error})` };
    // A file the agent can write (inside the workspace) is judged like the repository's own, wherever it was named.
    const scope: Scope = src.scope === 'repository' || isInside(root, attempt(() => fs.realpathSync.native(src.file)) ?? path.resolve(src.file)) ? 'repository' : 'operator';
    for (const { key: k, value, line } of parsed.entries) {
      const where = `"${src.file}" line ${line}`;
      const why = scope === 'repository' ? judgeRepositoryKey(k, value, { root, ...(src.gitDir !== undefined && { gitDir: src.gitDir }) }) : judgeOperatorKey(k, value);
      if (why) return { notReadOnly: `${where} sets ${why}` };
      const filter = filterDriverOf(k);
      if (filter !== undefined) filters.add(filter);
      if (isIncludeKey(k) && value !== undefined && value !== '') {
        const target = includeTarget(value, src.file, home);
        if (target === undefined) return { notReadOnly: `${where} includes "${value}", which the server cannot resolve as git would` };
        sources.push({ file: target, scope, ...(src.gitDir !== undefined && { gitDir: src.gitDir }), depth: src.depth + 1 });
      }
    }
  }
  return { filterDrivers: [...filters] };
}

/** An include path as git resolves it: `~/` from HOME, relative to the including file's directory. */
function includeTarget(value: string, from: string, home: string | undefined): string | undefined {
  if (value.startsWith('~/')) return home ? path.join(home, value.slice(2)) : undefined;
  if (value.startsWith('~') || value.startsWith('%(prefix)')) return undefined; // ~user and the install prefix
  return path.resolve(path.dirname(from), value);
}

/**
 * The git directories whose configuration a call in `repo` may read: its own, its common directory, and every
 * git directory under their `modules/` (submodules, nested ones too). A message when the walk cannot be completed.
 */
function repositoryGitDirs(repo: OwnRepository): string[] | string {
  const found = new Set<string>();
  for (const d of [repo.gitDir, repo.commonDir]) if (d !== undefined) found.add(d);
  let visited = 0;
  const walk = (dir: string): string | undefined => {
    if (!fs.existsSync(dir)) return undefined;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : `"${dir}" cannot be read (${code})`;
    }
    for (const entry of entries) {
      const child = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) return `"${child}" is a symbolic link among the submodule git directories`;
      if (!entry.isDirectory()) continue;
      if (++visited > MAX_MODULE_DIRS) return `more than ${MAX_MODULE_DIRS} directories under the submodule git directories`;
      if (fs.existsSync(path.join(child, 'HEAD')) || fs.existsSync(path.join(child, 'config'))) {
        found.add(child);
        const inner = walk(path.join(child, 'modules'));
        if (inner) return inner;
      } else {
        const inner = walk(child); // a submodule name with slashes: modules/lib/a
        if (inner) return inner;
      }
    }
    return undefined;
  };
  for (const d of [...found]) {
    const problem = walk(path.join(d, 'modules'));
    if (problem) return `the git configuration cannot be judged: ${problem}`;
  }
  return [...found];
}
