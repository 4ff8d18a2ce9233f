import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedGitIdentity } from '../../../src/core/exec/developer/identityCache';

/**
 * The identity kept between calls is the one the files say at each call: any change to a file it was read from
 * (or to where one was missing) makes it read again, and a reading of a file changed too recently to be told from
 * a later change is not kept. `now` is passed to stand "later" without waiting.
 */
let home: string;
const env = { GIT_CONFIG_NOSYSTEM: '1' };
const later = () => Date.now() + 10_000;
const gitconfig = () => path.join(home, '.gitconfig');

beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-identcache-')));
  fs.writeFileSync(gitconfig(), '[user]\n\tname = Ada\n\temail = ada@example.org\n');
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

describe('the git identity kept between calls', () => {
  it('is kept while no file it came from changed', () => {
    const first = cachedGitIdentity({ home, env }, later());
    expect(first).toEqual({ authorName: 'Ada', authorEmail: 'ada@example.org', committerName: 'Ada', committerEmail: 'ada@example.org' });
    expect(cachedGitIdentity({ home, env }, later())).toBe(first);
  });

  it('is read again after an edit that keeps the size and puts the old modification time back (the change time differs)', () => {
    const old = new Date('2020-01-01T00:00:00Z'); // a whole second: set again exactly, to the nanosecond
    fs.utimesSync(gitconfig(), old, old);
    const first = cachedGitIdentity({ home, env }, later());
    fs.writeFileSync(gitconfig(), '[user]\n\tname = Bob\n\temail = ada@example.org\n');
    fs.utimesSync(gitconfig(), old, old);
    const next = cachedGitIdentity({ home, env }, later());
    expect(next).not.toBe(first);
    expect(next.authorName).toBe('Bob');
  });

  it('is read again when a file it looked for and did not find appears (~/.config/git/config)', () => {
    const first = cachedGitIdentity({ home, env }, later());
    fs.mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
    // ~/.gitconfig is read after the XDG file and wins: the new file is seen through its e-mail only
    fs.writeFileSync(gitconfig(), '[user]\n\tname = Ada\n');
    fs.writeFileSync(path.join(home, '.config', 'git', 'config'), '[user]\n\temail = ada@work.example\n');
    const next = cachedGitIdentity({ home, env }, later());
    expect(next).not.toBe(first);
    expect(next.authorEmail).toBe('ada@work.example');
  });

  it('is read again when an included file changes', () => {
    fs.writeFileSync(gitconfig(), '[include]\n\tpath = ~/id.inc\n');
    fs.writeFileSync(path.join(home, 'id.inc'), '[user]\n\tname = Ada\n');
    expect(cachedGitIdentity({ home, env }, later()).authorName).toBe('Ada');
    fs.writeFileSync(path.join(home, 'id.inc'), '[user]\n\tname = Eve\n');
    expect(cachedGitIdentity({ home, env }, later()).authorName).toBe('Eve');
  });

  it('is not kept from a file changed within the last two seconds (its times cannot show a second change yet)', () => {
    const first = cachedGitIdentity({ home, env });
    const second = cachedGitIdentity({ home, env });
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
  });

  it('is kept per source: another home folder or GIT_CONFIG_GLOBAL is read on its own', () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-identcache-'));
    try {
      fs.writeFileSync(path.join(other, '.gitconfig'), '[user]\n\tname = Zed\n');
      expect(cachedGitIdentity({ home, env }, later()).authorName).toBe('Ada');
      expect(cachedGitIdentity({ home: other, env }, later()).authorName).toBe('Zed');
      expect(cachedGitIdentity({ home, env: { ...env, GIT_CONFIG_GLOBAL: path.join(other, '.gitconfig') } }, later()).authorName).toBe('Zed');
      expect(cachedGitIdentity({ home, env }, later()).authorName).toBe('Ada');
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
