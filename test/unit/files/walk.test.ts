import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { procFdWorks } from '../../../src/core/paths/fdpath';
import { checkChangeable, checkReadable, guardFor } from '../../../src/core/paths/guard';
import { openForRead, openForWrite } from '../../../src/core/paths/open';
import { walk } from '../../../src/core/paths/walk';
import { parsePolicy } from '../../../src/core/policy';
import { tempWorkspace } from './helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());
const p = (rel: string) => path.join(ws.root, rel);

describe('walk: resolution by descriptors, beneath the root', () => {
  it('uses openat semantics through /proc/self/fd on Linux', () => {
    if (process.platform === 'linux') expect(procFdWorks()).toBe(true);
  });

  it('follows a link that stays inside and reports the real relative path', () => {
    fs.mkdirSync(p('a/b'), { recursive: true });
    fs.writeFileSync(p('a/b/f.txt'), 'x');
    fs.symlinkSync('a/b', p('lnk'));
    fs.symlinkSync(p('a'), p('abs-lnk'));
    const w = walk(ws.root, 'lnk/f.txt', { followFinal: true });
    expect(w.relative).toBe('a/b/f.txt');
    expect(w.entry?.st.isFile()).toBe(true);
    w.close();
    const w2 = walk(ws.root, 'abs-lnk/b/../b/f.txt', { followFinal: true });
    expect(w2.relative).toBe('a/b/f.txt');
    w2.close();
  });

  it('refuses a link that leads above the root, by relative or absolute target, and .. past the root', () => {
    fs.symlinkSync('../outside', p('rel-out'));
    fs.symlinkSync(ws.outside, p('abs-out'));
    fs.mkdirSync(p('d'));
    fs.symlinkSync('../../outside/x', p('d/deep-out'));
    for (const q of ['rel-out/x', 'abs-out/x', 'd/deep-out', '../outside/x', 'd/../../outside']) {
      expect(() => walk(ws.root, q, { followFinal: true })).toThrow(/leads outside the workspace/);
    }
  });

  it('with refuseLinks, any link on the path is refused (the path was decided as a real path)', () => {
    fs.mkdirSync(p('a'));
    fs.symlinkSync('a', p('lnk'));
    expect(() => walk(ws.root, 'lnk/x', { followFinal: true, refuseLinks: true })).toThrow(/symbolic link now/);
  });

  it('looks at a FIFO without opening it, and refuses it for I/O at once', () => {
    execFileSync('mkfifo', [p('fifo')]);
    const g = guardFor(parsePolicy({ root: ws.root }));
    // Opening a FIFO with no peer blocks for ever: returning at all is the proof.
    expect(() => openForRead(g, 'fifo')).toThrow(/FIFO \(named pipe\), not a regular file/);
    expect(() => openForWrite(g, 'fifo', true)).toThrow(/FIFO/);
  });

  it('stops at the first missing folder only when asked (mkdir -p)', () => {
    fs.mkdirSync(p('a'));
    const w = walk(ws.root, 'a/b/c/d', { followFinal: true, allowMissingParents: true });
    expect([w.name, ...w.missingTail]).toEqual(['b', 'c', 'd']);
    w.close();
    expect(() => walk(ws.root, 'a/b/c/d', { followFinal: true })).toThrow(/does not exist/);
  });
});

describe('guard: identity, not names', () => {
  it('recognises a read-only file under another name by its identity (dev:ino)', () => {
    fs.mkdirSync(p('deploy'));
    fs.writeFileSync(p('deploy/prod.conf'), 'x');
    const g = guardFor(parsePolicy({ root: ws.root, sandboxReadOnlyPaths: ['deploy/prod.conf'] }));
    fs.renameSync(p('deploy/prod.conf'), p('renamed.conf')); // same inode, new name
    const st = fs.lstatSync(p('renamed.conf'), { bigint: true });
    expect(() => checkChangeable(g, { relative: 'renamed.conf', real: p('renamed.conf'), st })).toThrow(/read-only path/);
  });

  it('refuses reads and in-place writes of a file with other hard links, but not a replacement by rename', () => {
    fs.writeFileSync(p('a'), 'x');
    fs.linkSync(p('a'), p('b'));
    const g = guardFor(parsePolicy({ root: ws.root }));
    const st = fs.lstatSync(p('b'), { bigint: true });
    expect(() => checkReadable(g, { relative: 'b', real: p('b'), st })).toThrow(/2 hard links/);
    expect(() => checkChangeable(g, { relative: 'b', real: p('b'), st }, { inPlace: true })).toThrow(/2 hard links/);
    expect(() => checkChangeable(g, { relative: 'b', real: p('b'), st })).not.toThrow();
  });

  it('hides the same paths from the server that the sandbox hides (one list)', () => {
    fs.mkdirSync(p('secret'));
    fs.writeFileSync(p('secret/key'), 'k');
    const g = guardFor(parsePolicy({ root: ws.root, sandboxHiddenPaths: ['secret'] }));
    expect(() => openForRead(g, 'secret/key')).toThrow(/hidden path/);
    expect(() => openForWrite(g, 'secret/new', false)).toThrow(/hidden path/);
    expect(fs.existsSync(p('secret/new'))).toBe(false);
  });
});
