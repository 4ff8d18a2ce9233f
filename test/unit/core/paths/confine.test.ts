import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../../src/core/errors';
import { checkPathText, isInside, realRoot, resolveInside } from '../../../../src/core/paths/confine';
import { makeSandbox, write } from '../tempWorkspace';

/** Runs `fn` and returns the ToolError it throws (fails the test when it does not throw one). */
function toolError(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ToolError);
    return e as ToolError;
  }
  throw new Error('expected a ToolError, but nothing was thrown');
}

describe('isInside (separator-aware containment)', () => {
  const cases: Array<[string, string, string, boolean]> = [
    ['the root itself', '/ws', '/ws', true],
    ['a direct child', '/ws', '/ws/a.txt', true],
    ['a deep child', '/ws', '/ws/a/b/c', true],
    ['a child whose name starts with two dots', '/ws', '/ws/..hidden', true],
    ['a sibling sharing the prefix (/ws-evil)', '/ws', '/ws-evil', false],
    ['a file in a sibling sharing the prefix', '/ws', '/ws-evil/x.txt', false],
    ['a sibling that is a longer name (/wsx)', '/ws', '/wsx', false],
    ['the parent', '/ws', '/', false],
    ['an unrelated absolute path', '/ws', '/etc/passwd', false],
    ['a child of a nested root', '/a/ws', '/a/ws/b', true],
    ['the parent of a nested root', '/a/ws', '/a', false],
    ['anything below the file system root', '/', '/etc', true],
  ];
  it.each(cases)('%s: isInside(%s, %s) = %s', (_what, root, child, expected) => {
    expect(isInside(root, child)).toBe(expected);
  });

  it('stops a prefix-sharing sibling folder (/ws-evil) from counting as inside /ws on the real disk', () => {
    const s = makeSandbox();
    expect(isInside(s.ws, s.wsEvil)).toBe(false);
    expect(isInside(s.ws, path.join(s.wsEvil, 'x.txt'))).toBe(false);
  });
});

describe('checkPathText', () => {
  it('rejects an empty path with BAD_REQUEST and rule path.empty', () => {
    const e = toolError(() => checkPathText('', 'file'));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.rule).toBe('path.empty');
    expect(e.message).toContain('file');
  });
  it('stops a NUL byte that would truncate the path in a C API (a.txt\\0/../../etc/passwd)', () => {
    const e = toolError(() => checkPathText('a.txt\0/../../etc/passwd'));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.rule).toBe('path.nul');
  });
  it('accepts an ordinary relative path', () => {
    expect(() => checkPathText('src/a.ts')).not.toThrow();
  });
});

describe('resolveInside: plain paths', () => {
  it('resolves an existing file inside the root with its relative form', () => {
    const s = makeSandbox();
    write(path.join(s.ws, 'src', 'a.txt'), 'x');
    const r = resolveInside(s.ws, 'src/a.txt');
    expect(r).toEqual({ real: path.join(s.ws, 'src', 'a.txt'), exists: true, danglingLink: false, relative: 'src/a.txt' });
  });

  it('resolves the root itself as "."', () => {
    const s = makeSandbox();
    expect(resolveInside(s.ws, '.').relative).toBe('.');
    expect(resolveInside(s.ws, s.ws).relative).toBe('.');
  });

  it('resolves a new file in a new subfolder to where it would be created', () => {
    const s = makeSandbox();
    const r = resolveInside(s.ws, 'new/deeper/file.txt');
    expect(r.exists).toBe(false);
    expect(r.danglingLink).toBe(false);
    expect(r.real).toBe(path.join(s.ws, 'new', 'deeper', 'file.txt'));
    expect(r.relative).toBe('new/deeper/file.txt');
  });

  it('accepts `..` that stays inside (a/../b.txt)', () => {
    const s = makeSandbox();
    write(path.join(s.ws, 'b.txt'));
    expect(resolveInside(s.ws, 'a/../b.txt').relative).toBe('b.txt');
  });

  it('accepts an absolute path that is inside the root', () => {
    const s = makeSandbox();
    write(path.join(s.ws, 'in.txt'));
    expect(resolveInside(s.ws, path.join(s.ws, 'in.txt')).relative).toBe('in.txt');
  });

  it('resolves relative to `base` when one is given', () => {
    const s = makeSandbox();
    write(path.join(s.ws, 'sub', 'f.txt'));
    expect(resolveInside(s.ws, 'f.txt', { base: path.join(s.ws, 'sub') }).relative).toBe('sub/f.txt');
  });
});

describe('resolveInside: escapes are PATH_OUTSIDE_ROOT', () => {
  const escapes: Array<[string, (s: ReturnType<typeof makeSandbox>) => string]> = [
    ['a `..` escape to the parent (..)', () => '..'],
    ['a `..` escape to a sibling file (../outside/secret.txt)', () => '../outside/secret.txt'],
    ['a `..` escape hidden after a real folder (sub/../../outside)', () => 'sub/../../outside'],
    ['a `..` escape to a file that does not exist yet (../outside/new.txt)', () => '../outside/new.txt'],
    ['an absolute path outside (/etc/passwd)', () => '/etc/passwd'],
    ['an absolute path to the prefix-sharing sibling (/…/ws-evil/x.txt)', (s) => path.join(s.wsEvil, 'x.txt')],
    ['a relative path to the prefix-sharing sibling (../ws-evil)', () => '../ws-evil'],
    ['an absolute new file in a new folder outside', (s) => path.join(s.outside, 'new', 'f.txt')],
  ];
  it.each(escapes)('stops %s', (_what, make) => {
    const s = makeSandbox();
    fs.mkdirSync(path.join(s.ws, 'sub'));
    const e = toolError(() => resolveInside(s.ws, make(s)));
    expect(e.code).toBe('PATH_OUTSIDE_ROOT');
    expect(e.rule).toBe('path.outside-root');
  });

  it('names the offending path and what it was in the message', () => {
    const s = makeSandbox();
    const e = toolError(() => resolveInside(s.ws, '../outside/secret.txt', { what: 'output redirect' }));
    expect(e.message).toContain('output redirect');
    expect(e.message).toContain('../outside/secret.txt');
  });

  it('rejects an empty path before touching the disk', () => {
    const s = makeSandbox();
    expect(toolError(() => resolveInside(s.ws, '')).code).toBe('BAD_REQUEST');
  });

  it('stops a NUL byte smuggled into a path', () => {
    const s = makeSandbox();
    const e = toolError(() => resolveInside(s.ws, 'ok.txt\0../../etc/passwd'));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.rule).toBe('path.nul');
  });
});

describe('resolveInside: symbolic links', () => {
  it('stops a symlinked file that points outside (ws/link -> outside/secret.txt)', () => {
    const s = makeSandbox();
    fs.symlinkSync(path.join(s.outside, 'secret.txt'), path.join(s.ws, 'link'));
    expect(toolError(() => resolveInside(s.ws, 'link')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops a relative symlink that climbs out (ws/link -> ../outside/secret.txt)', () => {
    const s = makeSandbox();
    fs.symlinkSync('../outside/secret.txt', path.join(s.ws, 'link'));
    expect(toolError(() => resolveInside(s.ws, 'link')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops a symlinked directory that points outside (ws/dir -> outside)', () => {
    const s = makeSandbox();
    fs.symlinkSync(s.outside, path.join(s.ws, 'dir'));
    expect(toolError(() => resolveInside(s.ws, 'dir')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops reading an existing file through a symlinked parent (ws/dir/secret.txt, dir -> outside)', () => {
    const s = makeSandbox();
    fs.symlinkSync(s.outside, path.join(s.ws, 'dir'));
    expect(toolError(() => resolveInside(s.ws, 'dir/secret.txt')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops creating a new file through a symlinked parent (ws/dir/new.txt, dir -> outside)', () => {
    const s = makeSandbox();
    fs.symlinkSync(s.outside, path.join(s.ws, 'dir'));
    expect(toolError(() => resolveInside(s.ws, 'dir/new.txt')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops creating a new file in a new subfolder under a symlinked parent (dir/a/b/new.txt)', () => {
    const s = makeSandbox();
    fs.symlinkSync(s.outside, path.join(s.ws, 'dir'));
    expect(toolError(() => resolveInside(s.ws, 'dir/a/b/new.txt')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops a symlink to the prefix-sharing sibling (ws/link -> ws-evil)', () => {
    const s = makeSandbox();
    fs.symlinkSync(s.wsEvil, path.join(s.ws, 'link'));
    expect(toolError(() => resolveInside(s.ws, 'link/x.txt')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops a dangling symlink whose target outside would be created by a write', () => {
    const s = makeSandbox();
    fs.symlinkSync(path.join(s.outside, 'created-by-write.txt'), path.join(s.ws, 'dangling'));
    const e = toolError(() => resolveInside(s.ws, 'dangling'));
    expect(e.code).toBe('PATH_OUTSIDE_ROOT');
    expect(e.rule).toBe('path.dangling-link');
  });

  it('stops a dangling relative symlink that climbs out (ws/dangling -> ../outside/new.txt)', () => {
    const s = makeSandbox();
    fs.symlinkSync('../outside/new.txt', path.join(s.ws, 'dangling'));
    expect(toolError(() => resolveInside(s.ws, 'dangling')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops a write through a chain of two dangling links whose last hop leads outside', () => {
    // ws/first -> ws/second -> outside/escaped.txt (missing). Opening ws/first for writing follows BOTH links and
    // creates outside/escaped.txt, so the chain must be judged by its final target, not by its first hop.
    const s = makeSandbox();
    fs.symlinkSync(path.join(s.outside, 'escaped.txt'), path.join(s.ws, 'second'));
    fs.symlinkSync(path.join(s.ws, 'second'), path.join(s.ws, 'first'));
    // Prove the attack is real on this file system: a write through `first` lands outside.
    const probe = path.join(s.ws, 'probe-first');
    fs.symlinkSync(path.join(s.ws, 'probe-second'), probe);
    fs.symlinkSync(path.join(s.outside, 'probe.txt'), path.join(s.ws, 'probe-second'));
    fs.writeFileSync(probe, 'x');
    expect(fs.existsSync(path.join(s.outside, 'probe.txt'))).toBe(true);

    expect(toolError(() => resolveInside(s.ws, 'first')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops a relative dangling link reached through a folder alias (its target judged from the wrong folder)', () => {
    // ws/deep/e/f/alias -> ws/shallow, and ws/shallow/l -> ../../escaped.txt (dangling). The OS resolves the link
    // from ws/shallow, so a write to deep/e/f/alias/l creates <base>/escaped.txt, OUTSIDE the root; judged from
    // the alias's folder instead, the same text reads ws/deep/e/escaped.txt, which looks inside.
    const s = makeSandbox();
    fs.mkdirSync(path.join(s.ws, 'shallow'));
    fs.mkdirSync(path.join(s.ws, 'deep', 'e', 'f'), { recursive: true });
    fs.symlinkSync(path.join(s.ws, 'shallow'), path.join(s.ws, 'deep', 'e', 'f', 'alias'));
    fs.symlinkSync('../../escaped.txt', path.join(s.ws, 'shallow', 'l'));
    // Prove the attack on this file system with a twin link, then remove what it created.
    fs.symlinkSync('../../probe.txt', path.join(s.ws, 'shallow', 'probe'));
    fs.writeFileSync(path.join(s.ws, 'deep', 'e', 'f', 'alias', 'probe'), 'x');
    expect(fs.existsSync(path.join(s.base, 'probe.txt'))).toBe(true);

    expect(toolError(() => resolveInside(s.ws, 'deep/e/f/alias/l')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('stops a new file below a dangling directory link that points outside (ws/dl/new.txt, dl -> outside/missing)', () => {
    // The tail below a dangling link is not link-free: once outside/missing appears, ws/dl/new.txt is outside.
    const s = makeSandbox();
    fs.symlinkSync(path.join(s.outside, 'missing'), path.join(s.ws, 'dl'));
    expect(toolError(() => resolveInside(s.ws, 'dl/new.txt')).code).toBe('PATH_OUTSIDE_ROOT');
  });

  it('accepts a dangling symlink whose target is inside and reports it as dangling', () => {
    const s = makeSandbox();
    fs.symlinkSync(path.join(s.ws, 'not-yet.txt'), path.join(s.ws, 'dangling'));
    const r = resolveInside(s.ws, 'dangling');
    expect(r.danglingLink).toBe(true);
    expect(r.exists).toBe(false);
  });

  it('accepts a relative dangling symlink whose target is inside (ws/dangling -> sub/later.txt)', () => {
    const s = makeSandbox();
    fs.mkdirSync(path.join(s.ws, 'sub'));
    fs.symlinkSync('sub/later.txt', path.join(s.ws, 'dangling'));
    expect(resolveInside(s.ws, 'dangling').danglingLink).toBe(true);
  });

  it('follows a symlink that stays inside to its real target', () => {
    const s = makeSandbox();
    write(path.join(s.ws, 'real', 'f.txt'), 'x');
    fs.symlinkSync(path.join(s.ws, 'real'), path.join(s.ws, 'alias'));
    const r = resolveInside(s.ws, 'alias/f.txt');
    expect(r.real).toBe(path.join(s.ws, 'real', 'f.txt'));
    expect(r.relative).toBe('real/f.txt');
    expect(r.exists).toBe(true);
  });

  it('stops a symlink loop with a clear error instead of hanging', () => {
    const s = makeSandbox();
    fs.symlinkSync(path.join(s.ws, 'b'), path.join(s.ws, 'a'));
    fs.symlinkSync(path.join(s.ws, 'a'), path.join(s.ws, 'b'));
    const e = toolError(() => resolveInside(s.ws, 'a'));
    expect(e.code).toBe('IO_ERROR');
    expect(e.message).toContain('Cannot resolve');
  });
});

describe('realRoot', () => {
  it('returns the real path of a directory reached through a symlink', () => {
    const s = makeSandbox();
    const link = path.join(s.base, 'ws-link');
    fs.symlinkSync(s.ws, link);
    expect(realRoot(link)).toBe(s.ws);
  });

  it('names a missing root with PATH_NOT_FOUND', () => {
    const s = makeSandbox();
    const e = toolError(() => realRoot(path.join(s.base, 'missing')));
    expect(e.code).toBe('PATH_NOT_FOUND');
    expect(e.message).toContain('missing');
  });

  it('refuses a file as the root', () => {
    const s = makeSandbox();
    const f = write(path.join(s.base, 'file.txt'));
    const e = toolError(() => realRoot(f));
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toContain('not a directory');
  });

  it.each([
    ['empty', ''],
    ['with a NUL byte', '/tmp\0/x'],
  ])('refuses a root path that is %s', (_what, p) => {
    expect(toolError(() => realRoot(p)).code).toBe('BAD_REQUEST');
  });
});
