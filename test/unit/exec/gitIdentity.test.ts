import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ownRepository } from '../../../src/core/commands/gitRepo';
import { readGitIdentity, type GitIdentity } from '../../../src/core/exec/developer/gitIdentity';
import { describeWith } from '../../helpers/needs';

/**
 * The git identity is read as data by the server; the real git is the oracle: for every configuration below,
 * what we read must be what `git var GIT_AUTHOR_IDENT` / `GIT_COMMITTER_IDENT` report in the same repository
 * with the same home folder — except where we withhold on purpose (an includeIf we cannot decide without git).
 */

let base: string;
let home: string;
let ws: string;
let work: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ident-')));
  home = path.join(base, 'home');
  ws = path.join(base, 'personal', 'proj');
  work = path.join(base, 'Work', 'proj');
  fs.mkdirSync(home, { recursive: true });
  for (const repo of [ws, work]) {
    fs.mkdirSync(repo, { recursive: true });
    execFileSync('git', ['init', '-q', repo], { env: { PATH: process.env.PATH ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
  }
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** Resets the home folder to exactly these files (paths relative to it) and the repositories' own config additions. */
function setup(files: Record<string, string>, repoConfig: Record<string, string> = {}): void {
  for (const e of fs.readdirSync(home)) fs.rmSync(path.join(home, e), { recursive: true, force: true });
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
  }
  for (const repo of [ws, work]) {
    const config = path.join(repo, '.git', 'config');
    const original = fs.readFileSync(config, 'utf8').split('\n# test\n')[0]!;
    fs.writeFileSync(config, original + (repoConfig[repo] ? `\n# test\n${repoConfig[repo]}` : ''));
  }
}

const ours = (repo: string, env: Record<string, string> = {}): GitIdentity =>
  readGitIdentity({ home, env: { GIT_CONFIG_NOSYSTEM: '1', ...env }, repo: ownRepository(repo) });

/** What git itself says, as the same four fields. */
function gits(repo: string, env: Record<string, string> = {}): GitIdentity {
  const run = (v: string) => execFileSync('git', ['var', v], { cwd: repo, env: { PATH: process.env.PATH ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1', ...env }, encoding: 'utf8' });
  const split = (ident: string) => /^(.*) <(.*)> \d+ [+-]\d{4}\n$/.exec(ident)!;
  const a = split(run('GIT_AUTHOR_IDENT'));
  const c = split(run('GIT_COMMITTER_IDENT'));
  return { authorName: a[1]!, authorEmail: a[2]!, committerName: c[1]!, committerEmail: c[2]! };
}

const both = (name: string, email: string): GitIdentity => ({ authorName: name, authorEmail: email, committerName: name, committerEmail: email });

describeWith('git')('the git identity is read from the configuration files exactly as git reads it', () => {
  // Built when the test runs (the temp folders exist only after beforeAll).
  const cases: Record<string, { files: () => Record<string, string>; repoConfig?: () => Record<string, string>; repo?: () => string; env?: Record<string, string> }> = {
    'a plain [user] section in ~/.gitconfig': { files: () => ({ '.gitconfig': '[user]\n\tname = Ada Lovelace\n\temail = ada@example.org\n' }) },
    '~/.gitconfig winning over ~/.config/git/config': {
      files: () => ({ '.config/git/config': '[user]\nname = Xdg Name\nemail = xdg@example.org\n', '.gitconfig': '[user]\nemail = home@example.org\n' }),
    },
    'quotes, escapes, comments, continued lines and case-insensitive names': {
      files: () => ({ '.gitconfig': '# mine\n[User]\n  NAME = "Ada \\"The Countess\\"  Lovelace" ; a comment\n  Email = ada@\\\nexample.org   # trailing\n' }),
    },
    'an [include] below the home folder (~/ and a relative path)': {
      files: () => ({ '.gitconfig': '[include]\n\tpath = ~/ids/main.inc\n', 'ids/main.inc': '[include]\n\tpath = more.inc\n[user]\n\tname = Included\n', 'ids/more.inc': '[user]\n\temail = inc@example.org\n' }),
    },
    'includeIf gitdir: that matches this repository (a work identity)': {
      files: () => ({ '.gitconfig': `[user]\nname = Me\nemail = me@example.org\n[includeIf "gitdir:${base}/Work/"]\npath = work.inc\n`, 'work.inc': '[user]\nemail = me@work.example\n' }),
      repo: () => work,
    },
    'includeIf gitdir: that does not match this repository': {
      files: () => ({ '.gitconfig': `[user]\nname = Me\nemail = me@example.org\n[includeIf "gitdir:${base}/Work/"]\npath = work.inc\n`, 'work.inc': '[user]\nemail = me@work.example\n' }),
    },
    'includeIf gitdir/i: ignores case, a relative pattern matches at any depth': {
      files: () => ({ '.gitconfig': '[user]\nname = Me\nemail = me@example.org\n[includeIf "gitdir/i:work/"]\npath = work.inc\n[includeIf "gitdir:work/"]\npath = never.inc\n', 'work.inc': '[user]\nemail = me@work.example\n', 'never.inc': '[user]\nname = Wrong Case\n' }),
      repo: () => work,
    },
    "the repository's own user.email over the global one": {
      files: () => ({ '.gitconfig': '[user]\nname = Me\nemail = me@example.org\n' }),
      repoConfig: () => ({ [ws]: '[user]\n\temail = local@example.org\n' }),
    },
    'author.* and committer.* over user.*': {
      files: () => ({ '.gitconfig': '[user]\nname = Me\nemail = me@example.org\n[author]\nemail = author@example.org\n[committer]\nname = Committer\n' }),
    },
    'GIT_CONFIG_GLOBAL replacing both home files': {
      files: () => ({ '.gitconfig': '[user]\nname = Ignored\nemail = ignored@example.org\n', 'other.cfg': '[user]\nname = Other\nemail = other@example.org\n' }),
      env: { GIT_CONFIG_GLOBAL: '' }, // filled in below: an absolute path
    },
  };

  for (const [title, c] of Object.entries(cases)) {
    it(title, () => {
      setup(c.files(), c.repoConfig?.() ?? {});
      const repo = c.repo?.() ?? ws;
      const env = c.env?.GIT_CONFIG_GLOBAL !== undefined ? { GIT_CONFIG_GLOBAL: path.join(home, 'other.cfg') } : (c.env ?? {});
      const expected = gits(repo, env);
      expect(ours(repo, env)).toEqual(expected);
    });
  }

  it('reads the values as git does (spot checks of the oracle itself)', () => {
    setup({ '.gitconfig': '[User]\n  NAME = "Ada \\"The Countess\\"  Lovelace" ; a comment\n  Email = ada@\\\nexample.org   # trailing\n' });
    expect(ours(ws)).toEqual(both('Ada "The Countess"  Lovelace', 'ada@example.org'));
  });

  it('withholds what an includeIf it cannot decide without git might set (onbranch:): no identity beats a wrong one', () => {
    setup({ '.gitconfig': '[user]\nname = Me\nemail = me@example.org\n[includeIf "onbranch:work/**"]\npath = work.inc\n', 'work.inc': '[user]\nemail = me@work.example\n' });
    expect(ours(ws)).toEqual({ authorName: 'Me', committerName: 'Me' });
    // A definite value after the undecidable include is certain again.
    setup({ '.gitconfig': '[includeIf "onbranch:work/**"]\npath = work.inc\n[user]\nname = Me\nemail = me@example.org\n', 'work.inc': '[user]\nemail = me@work.example\n' });
    expect(ours(ws)).toEqual(both('Me', 'me@example.org'));
  });

  it('gives nothing from a file git would refuse (a bad escape), as git gives nothing', () => {
    setup({ '.gitconfig': '[user]\nname = Bad \\q escape\nemail = me@example.org\n' });
    expect(ours(ws)).toEqual({});
    expect(() => gits(ws)).toThrow();
  });

  it("does not follow includes written in the repository's own config (a command may write it)", () => {
    fs.writeFileSync(path.join(base, 'planted.inc'), '[user]\nname = Planted\n');
    setup({ '.gitconfig': '[user]\nname = Me\nemail = me@example.org\n' }, { [ws]: `[include]\n\tpath = ${path.join(base, 'planted.inc')}\n` });
    expect(ours(ws)).toEqual(both('Me', 'me@example.org'));
  });

  it('gives nothing when there is no configuration at all', () => {
    setup({});
    expect(ours(ws)).toEqual({});
  });
});

