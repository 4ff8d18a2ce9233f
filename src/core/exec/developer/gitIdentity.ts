import * as fs from 'node:fs';
import * as path from 'node:path';
import { attempt } from '../../attempt';
import { parseGitConfig } from '../../commands/gitConfigFile';
import { gitdirMatches, includeCondition } from './gitdirPattern';

/**
 * The person's git identity, read by the server as DATA from their own git configuration files — no git or any
 * other program is run — and given to every command as GIT_AUTHOR_* / GIT_COMMITTER_* (those beat every
 * configuration file, so `git commit` works inside a sandbox that hides the home folder).
 *
 * Read in git's order, the last value winning: the system file (/etc/gitconfig, or GIT_CONFIG_SYSTEM; none with
 * GIT_CONFIG_NOSYSTEM), $XDG_CONFIG_HOME/git/config (default ~/.config/git/config), ~/.gitconfig (both replaced
 * by GIT_CONFIG_GLOBAL), then the workspace repository's own config (and config.worktree when
 * extensions.worktreeConfig is on), so a per-repository identity still wins over the global one, as in git.
 * Only `user.name`, `user.email` and their per-role overrides `author.*` / `committer.*` are taken.
 *
 * Includes: `[include] path` is followed (relative to the including file, `~/` = home, at most 10 deep, as git);
 * `[includeIf "gitdir:…"]` / `gitdir/i:` is evaluated against the workspace's git directory exactly as git does;
 * an includeIf that cannot be decided without git (`onbranch:`, `hasconfig:`) makes the keys its file sets
 * UNKNOWN, and an unknown key is not given at all: no identity is better than the wrong one (a personal address
 * on a work repository). The repository's own config is read, but includes written there are not followed: a
 * command may write that file when git writes are allowed, and the server must not read files on its say-so.
 * A file git would refuse (a syntax error, includes deeper than 10) gives no identity at all.
 */

export interface GitIdentity {
  readonly authorName?: string;
  readonly authorEmail?: string;
  readonly committerName?: string;
  readonly committerEmail?: string;
}

/** The environment names git's configuration files depend on: the only ones the reader may look at (and its cache keys on). */
export const IDENTITY_ENV_NAMES = ['XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM'] as const;
export type IdentityEnv = { readonly [K in (typeof IDENTITY_ENV_NAMES)[number]]?: string };

export interface GitIdentitySources {
  /** The person's home folder (the server's HOME): `~/.gitconfig`, `~/` in include paths. */
  readonly home?: string;
  /** The server's environment: XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM. */
  readonly env: IdentityEnv;
  /** The workspace's repository: its git directory (gitdir: conditions) and common directory (its config). */
  readonly repo?: { readonly gitDir?: string; readonly commonDir?: string };
}

/** The keys taken, as `section.key`. */
const IDENTITY_KEYS = new Set(['user.name', 'user.email', 'author.name', 'author.email', 'committer.name', 'committer.email']);
const MAX_INCLUDE_DEPTH = 10;

interface Value {
  readonly value: string;
  /** False when it came through an includeIf that cannot be decided here. */
  readonly certain: boolean;
}

class Unusable extends Error {}

export function readGitIdentity(src: GitIdentitySources): GitIdentity {
  return readGitIdentityFrom(src).identity;
}

/** readGitIdentity, with every file it tried to read (present or not): what the identity depends on. */
export function readGitIdentityFrom(src: GitIdentitySources): { readonly identity: GitIdentity; readonly files: readonly string[] } {
  const files: string[] = [];
  const values = new Map<string, Value>();
  return { identity: read(), files };

  function read(): GitIdentity {
    try {
      for (const file of userFiles(src)) readFile(file, { follow: true, certain: true, depth: 0 });
      const common = src.repo?.commonDir;
      if (common) {
        const repoConfig = readFile(path.join(common, 'config'), { follow: false, certain: true, depth: 0 });
        if (repoConfig.worktreeConfig && src.repo?.gitDir) readFile(path.join(src.repo.gitDir, 'config.worktree'), { follow: false, certain: true, depth: 0 });
      }
    } catch (e) {
      if (e instanceof Unusable) return {};
      throw e;
    }
    const get = (key: string) => {
      const v = values.get(key);
      return v?.certain ? v.value : undefined;
    };
    // A role's own key wins over user.*; an unknown role key hides the user.* fallback too (it might apply).
    const pick = (role: string, field: string): string | undefined => {
      const own = values.get(`${role}.${field}`);
      if (own) return own.certain ? own.value : undefined;
      return get(`user.${field}`);
    };
    const out: Record<string, string> = {};
    const set = (name: keyof GitIdentity, v: string | undefined) => {
      if (v !== undefined && v !== '' && !v.includes('\0')) out[name] = v;
    };
    set('authorName', pick('author', 'name'));
    set('authorEmail', pick('author', 'email'));
    set('committerName', pick('committer', 'name'));
    set('committerEmail', pick('committer', 'email'));
    return out;
  }

  function readFile(file: string, how: { follow: boolean; certain: boolean; depth: number }): { worktreeConfig: boolean } {
    if (how.depth > MAX_INCLUDE_DEPTH) throw new Unusable(`includes nested deeper than ${MAX_INCLUDE_DEPTH}`);
    files.push(file);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // git skips a missing file (and an include of one); anything else it cannot read is an error for git too.
      if (code === 'ENOENT' || code === 'ENOTDIR') return { worktreeConfig: false };
      throw new Unusable(`${file}: ${code ?? (e as Error).message}`);
    }
    let worktreeConfig = false;
    for (const e of entriesOf(file, text)) {
      const key = `${e.section}.${e.key}`;
      if (IDENTITY_KEYS.has(key) && e.subsection === undefined) {
        // `name` without "=" is a boolean in git's eyes; as an identity it is nothing usable.
        if (typeof e.value === 'string') values.set(key, { value: e.value, certain: how.certain });
        continue;
      }
      if (key === 'extensions.worktreeconfig' && e.subsection === undefined) worktreeConfig = e.value === true || /^(true|yes|on|1)$/i.test(e.value);
      if (e.key !== 'path' || typeof e.value !== 'string' || !how.follow) continue;
      if (e.section === 'include' && e.subsection === undefined) {
        includeFrom(file, e.value, how.certain, how.depth);
      } else if (e.section === 'includeif' && e.subsection !== undefined) {
        const cond = includeCondition(e.subsection);
        if (cond === 'never') continue;
        const gitDir = src.repo?.gitDir;
        const matched = cond === 'unknown' ? undefined : gitDir === undefined ? false : gitdirMatches(cond, gitDir, { ...(src.home && { home: src.home }), configFile: realOf(file) });
        if (matched === false) continue;
        includeFrom(file, e.value, how.certain && matched === true, how.depth);
      }
    }
    return { worktreeConfig };
  }

  function includeFrom(file: string, target: string, certain: boolean, depth: number): void {
    let p = target;
    if (p.startsWith('~/')) {
      if (!src.home) throw new Unusable('an include under ~/ without a home folder');
      p = path.join(src.home, p.slice(2));
    } else if (p.startsWith('~')) {
      throw new Unusable(`an include of another user's file (${p})`);
    }
    readFile(path.resolve(path.dirname(file), p), { follow: true, certain, depth: depth + 1 });
  }
}

/**
 * A file's entries by section, subsection and name, from the one reader of git's configuration syntax
 * (commands/gitConfigFile.ts, checked against the real git). A file git would refuse gives nothing: git uses
 * nothing from it either.
 */
function entriesOf(file: string, text: string): { section: string; subsection?: string; key: string; value: string | true }[] {
  const parsed = parseGitConfig(text);
  if ('error' in parsed) throw new Unusable(`${file}: ${parsed.error}`);
  return parsed.entries.map((entry) => {
    // section.subsection.name: neither a section nor a name holds a dot, a subsection may.
    const first = entry.key.indexOf('.');
    const last = entry.key.lastIndexOf('.');
    return {
      section: entry.key.slice(0, first),
      ...(last > first && { subsection: entry.key.slice(first + 1, last) }),
      key: entry.key.slice(last + 1),
      value: entry.value ?? true,
    };
  });
}

/** The user-level files git reads, in its order (the later wins). */
function userFiles(src: GitIdentitySources): string[] {
  const files: string[] = [];
  const env = src.env;
  if (!truthy(env.GIT_CONFIG_NOSYSTEM)) files.push(env.GIT_CONFIG_SYSTEM || '/etc/gitconfig');
  if (env.GIT_CONFIG_GLOBAL !== undefined) {
    // git: GIT_CONFIG_GLOBAL replaces both global files; empty or /dev/null means none.
    if (env.GIT_CONFIG_GLOBAL !== '') files.push(env.GIT_CONFIG_GLOBAL);
    return files;
  }
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : src.home ? path.join(src.home, '.config') : undefined;
  if (xdg) files.push(path.join(xdg, 'git', 'config'));
  if (src.home) files.push(path.join(src.home, '.gitconfig'));
  return files;
}

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v);
const realOf = (p: string) => attempt(() => fs.realpathSync(p)) ?? p;

/** The environment names for an identity: what git reads before any configuration file. */
export function gitIdentityEnv(id: GitIdentity): Record<string, string> {
  return {
    ...(id.authorName !== undefined && { GIT_AUTHOR_NAME: id.authorName }),
    ...(id.authorEmail !== undefined && { GIT_AUTHOR_EMAIL: id.authorEmail }),
    ...(id.committerName !== undefined && { GIT_COMMITTER_NAME: id.committerName }),
    ...(id.committerEmail !== undefined && { GIT_COMMITTER_EMAIL: id.committerEmail }),
  };
}
