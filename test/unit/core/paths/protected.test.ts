import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { globToRegExp, matchesGlob } from '../../../../src/core/paths/glob';
import { resolveInside, type ResolvedPath } from '../../../../src/core/paths/confine';
import { checkWritable } from '../../../../src/core/paths/protected';
import { makeSandbox, write } from '../tempWorkspace';

describe('globToRegExp', () => {
  it.each([
    ['*.pem', 'key.pem', true],
    ['*.pem', 'dir/key.pem', false], // `*` stays inside one segment
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false], // `?` never matches a separator
    ['secrets/**', 'secrets/a/b.txt', true],
    ['**/id_rsa', 'id_rsa', true],
    ['**/id_rsa', 'home/u/.ssh/id_rsa', true],
    ['a.b', 'axb', false], // dots are literal
    ['(x)', '(x)', true], // regex characters are literal
  ])('%s against %s -> %s', (glob, p, expected) => {
    expect(globToRegExp(glob).test(p)).toBe(expected);
  });
});

describe('matchesGlob (protected-path rules)', () => {
  const table: Array<[string, string, boolean]> = [
    // `.env`: a basename pattern protects the file at any depth
    ['.env', '.env', true],
    ['.env', 'app/config/.env', true],
    ['.env', '.env.example', false],
    ['.env', 'env', false],
    // `*.pem` at any depth
    ['*.pem', 'server.pem', true],
    ['*.pem', 'deploy/certs/server.pem', true],
    ['*.pem', 'server.pem.txt', false],
    // a folder glob protects everything below it
    ['secrets/**', 'secrets/db.txt', true],
    ['secrets/**', 'secrets/deep/er/key', true],
    ['secrets/**', 'not-secrets/db.txt', false],
    ['secrets/**', 'secretsX/db.txt', false],
    // a bare folder name protects what is inside it
    ['secrets', 'secrets/db.txt', true],
    ['secrets', 'app/secrets/db.txt', true],
    ['./secrets/', 'secrets/db.txt', true],
    // a pattern with a slash is anchored at the root
    ['config/prod.json', 'config/prod.json', true],
    ['config/prod.json', 'x/config/prod.json', false],
  ];
  it.each(table)('%s protects %s: %s', (glob, p, expected) => {
    expect(matchesGlob(p, glob)).toBe(expected);
  });

  it('stops renaming or deleting a protected folder itself: `secrets/**` covers `secrets`', () => {
    // A move or rmdir of `secrets` changes every file the rule protects; the folder must be protected too.
    expect(matchesGlob('secrets', 'secrets/**')).toBe(true);
  });
});

function resolved(relative: string, real = `/ws/${relative}`): ResolvedPath {
  return { real, relative, exists: true, danglingLink: false };
}

const policy = { protectedPaths: ['.env', '*.pem', 'secrets/**'], ownFiles: ['/ws/guarded-shell.json', '/ws/audit.log'] };

describe('checkWritable', () => {
  it.each([
    ['.git/config'],
    ['.git/hooks/pre-commit'],
    ['vendor/lib/.git/hooks/post-checkout'],
    ['a/b/c/.git/HEAD'],
    ['.git'],
  ])('stops planting a git hook or editing git internals at any depth (%s)', (rel) => {
    const v = checkWritable(resolved(rel), policy);
    expect(v).toMatchObject({ kind: 'deny', code: 'PATH_PROTECTED', rule: 'protected.git' });
  });

  it.each([['.github/workflows/ci.yml'], ['my.git/file'], ['.gitignore'], ['src/.gitkeep']])(
    'does not mistake a look-alike for git internals (%s)',
    (rel) => {
      expect(checkWritable(resolved(rel), { protectedPaths: [], ownFiles: [] })).toBeUndefined();
    },
  );

  it.each([['/ws/guarded-shell.json', 'guarded-shell.json'], ['/ws/audit.log', 'audit.log']])(
    'stops an agent rewriting the server\'s own file %s (config or audit log)',
    (real, rel) => {
      expect(checkWritable(resolved(rel, real), policy)).toMatchObject({ kind: 'deny', code: 'PATH_PROTECTED', rule: 'protected.own-file' });
    },
  );

  it.each([
    ['.env', '.env'],
    ['services/api/.env', '.env'],
    ['tls/server.pem', '*.pem'],
    ['secrets/prod/db.txt', 'secrets/**'],
  ])('stops overwriting the user-protected %s (rule %s)', (rel, glob) => {
    const v = checkWritable(resolved(rel), policy);
    expect(v).toMatchObject({ kind: 'deny', code: 'PATH_PROTECTED', rule: 'protected.user-glob' });
    expect(v && v.kind === 'deny' ? v.reason : '').toContain(glob);
  });

  it.each([['src/index.ts'], ['README.md'], ['env.txt'], ['docs/secrets.md']])('allows an ordinary file (%s)', (rel) => {
    expect(checkWritable(resolved(rel), policy)).toBeUndefined();
  });

  it('stops writing the own config file through a symlinked alias inside the workspace', () => {
    const s = makeSandbox();
    const conf = write(path.join(s.ws, 'guarded-shell.json'), '{}');
    fs.symlinkSync(conf, path.join(s.ws, 'alias.json'));
    const target = resolveInside(s.ws, 'alias.json');
    expect(checkWritable(target, { protectedPaths: [], ownFiles: [conf] })).toMatchObject({ kind: 'deny', rule: 'protected.own-file' });
  });

  it('stops writing into .git through a symlinked alias of the .git folder', () => {
    const s = makeSandbox();
    fs.mkdirSync(path.join(s.ws, '.git', 'hooks'), { recursive: true });
    fs.symlinkSync(path.join(s.ws, '.git'), path.join(s.ws, 'innocent'));
    const target = resolveInside(s.ws, 'innocent/hooks/pre-commit');
    expect(checkWritable(target, { protectedPaths: [], ownFiles: [] })).toMatchObject({ kind: 'deny', rule: 'protected.git' });
  });
});
