import * as path from 'node:path';

/**
 * `[includeIf "gitdir:PATTERN"]` as git evaluates it (config.c include_by_gitdir): `~/` is the home folder, `./`
 * the folder of the file holding the condition, a pattern not starting with `/` gets `**` + `/` in front, one
 * ending in `/` gets `**` appended, and the result is matched against the repository's git directory with
 * wildmatch's WM_PATHNAME rules: `*` and `?` stay within one path component, `**` + `/` spans any number of
 * folders (also none), a trailing `/**` everything below.
 */

export interface GitdirCondition {
  /** The text after `gitdir:` / `gitdir/i:`. */
  readonly pattern: string;
  readonly ignoreCase: boolean;
}

/** The condition of an includeIf subsection: a gitdir one, 'unknown' (onbranch:, hasconfig:), or 'never' (git ignores it). */
export function includeCondition(subsection: string): GitdirCondition | 'unknown' | 'never' {
  const m = /^gitdir(\/i)?:(.*)$/s.exec(subsection);
  if (m) return { pattern: m[2]!, ignoreCase: m[1] !== undefined };
  if (/^(onbranch|hasconfig):/.test(subsection)) return 'unknown';
  return 'never';
}

/**
 * Whether the repository at `gitDir` (absolute, real) matches. `home` expands `~/`; `configFile` anchors `./`.
 * Undefined when git's own expansion could not be imitated (`~user/`, `~/` without a home): then it is unknown.
 */
export function gitdirMatches(c: GitdirCondition, gitDir: string, opts: { home?: string; configFile: string }): boolean | undefined {
  let pattern = c.pattern;
  if (pattern.startsWith('~')) {
    if (!pattern.startsWith('~/') || !opts.home) return undefined;
    pattern = `${opts.home.replace(/\/+$/, '')}/${pattern.slice(2)}`;
  }
  if (pattern.startsWith('./')) pattern = path.dirname(opts.configFile) + pattern.slice(1);
  else if (!pattern.startsWith('/')) pattern = '**/' + pattern;
  if (pattern.endsWith('/')) pattern += '**';
  return wildmatchPathname(pattern, c.ignoreCase).test(gitDir);
}

/** wildmatch with WM_PATHNAME as a regular expression over a whole path. */
export function wildmatchPathname(pattern: string, ignoreCase = false): RegExp {
  let re = '';
  let i = 0;
  while (i < pattern.length) {
    const atComponentStart = i === 0 || pattern[i - 1] === '/';
    if (pattern.startsWith('**', i) && atComponentStart && (i + 2 === pattern.length || pattern[i + 2] === '/')) {
      if (i + 2 === pattern.length) {
        re += '.*'; // trailing "/**": everything below
        i += 2;
      } else {
        re += '(?:[^/]*/)*'; // "**/": any number of folders, also none
        i += 3;
      }
      continue;
    }
    const c = pattern[i]!;
    if (c === '*') {
      // A "**" not standing alone as a component is an ordinary "*" (wildmatch).
      while (pattern[i] === '*') i++;
      re += '[^/]*';
      continue;
    }
    if (c === '?') {
      re += '[^/]';
      i++;
      continue;
    }
    if (c === '[') {
      const end = classEnd(pattern, i);
      if (end < 0) {
        re += '\\[';
        i++;
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      re += `[${negated ? '^/' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]').replace(/\[/g, '\\[')}]`;
      i = end + 1;
      continue;
    }
    if (c === '\\' && i + 1 < pattern.length) {
      re += escapeRegExp(pattern[i + 1]!);
      i += 2;
      continue;
    }
    re += escapeRegExp(c);
    i++;
  }
  return new RegExp(`^${re}$`, ignoreCase ? 'is' : 's');
}

/** Index of the `]` closing the class opened at `start` (a `]` right after `[`, `[!` or `[^` is a member), or -1. */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '!' || pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  for (; i < pattern.length; i++) if (pattern[i] === ']') return i;
  return -1;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
