import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { bwrapArgs } from '../../../src/core/isolation/bwrap';
import { scanProtected, walkProtected } from '../../../src/core/isolation/protectedScan';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-scan-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const mk = (rel: string, file?: string) => {
  const p = path.join(root, rel);
  if (file === undefined) fs.mkdirSync(p, { recursive: true });
  else {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, file);
  }
};

describe('scanProtected: what else must be read-only in the sandbox', () => {
  it('finds nested .git folders, gitfiles and their gitdirs inside the root, and --protect matches', () => {
    mk('.git/hooks');
    mk('a/.git/hooks');
    mk('a/b/c/.git');
    mk('mods/sub');
    mk('sub/.git', 'gitdir: ../mods/sub\n');
    mk('far/.git', 'gitdir: /somewhere/outside\n');
    mk('x/.env', 'k=v');
    mk('.env', 'k=v');
    mk('secrets/a.txt', 's');
    fs.symlinkSync('/', path.join(root, 'link-to-root')); // never followed
    const r = scanProtected(root, ['.env', 'secrets/**']);
    expect([...r.git].sort()).toEqual(['a/.git', 'a/b/c/.git', 'far/.git', 'mods/sub', 'sub/.git'].map((p) => path.join(root, p)));
    expect([...r.globbed].sort()).toEqual(['.env', 'secrets', 'x/.env'].map((p) => path.join(root, p)));
    expect(r.truncated).toBe(false);
  });

  it('says when it stopped early (bounded walk)', () => {
    for (let i = 0; i < 30; i++) mk(`d${i}/f`, 'x');
    expect(scanProtected(root, [], 10).truncated).toBe(true);
  });

  it('adds the scan results to the bwrap argv as read-only binds (nested .git unless git writes are allowed)', () => {
    const scan = () => ({ git: [path.join(root, 'a/.git')], globbed: [path.join(root, '.env')], truncated: false });
    mk('a/.git/hooks');
    mk('a/.git/config', '[core]');
    mk('.env', 'x');
    const ctx = { root, cwd: root, mode: 'auto' as const, network: 'deny' as const, home: '/nonexistent', protectedPaths: ['.env'] };
    const opts = { bwrapPath: '/usr/bin/bwrap', disableUserns: true, scan };
    const args = bwrapArgs({ file: 'true', args: [] }, ctx, opts).join(' ');
    // A nested repository's configuration and hooks: read-only; the rest of its .git stays writable.
    expect(args).toContain(`--ro-bind ${root}/a/.git/hooks ${root}/a/.git/hooks`);
    expect(args).toContain(`--ro-bind ${root}/a/.git/config ${root}/a/.git/config`);
    expect(args).not.toContain(`--ro-bind ${root}/a/.git ${root}/a/.git `);
    expect(args).toContain(`--ro-bind ${root}/.env ${root}/.env`);
    const allowed = bwrapArgs({ file: 'true', args: [] }, { ...ctx, allowGitWrites: true }, opts).join(' ');
    expect(allowed).not.toContain(`${root}/a/.git`);
    expect(allowed).toContain(`--ro-bind ${root}/.env ${root}/.env`);
  });
});

/** Lets the file system's coarse clock move on, so that a change gets a newer folder mtime than the last walk saw. */
const tick = () => new Promise((r) => setTimeout(r, 25));
const sorted = (r: { git: readonly string[]; globbed: readonly string[] }) => ({ git: [...r.git].sort(), globbed: [...r.globbed].sort() });

describe('scanProtected keeps each folder\'s listing while the folder is unchanged', () => {
  it('reads no folder again when nothing changed, and only the folder that changed when one did', async () => {
    for (let i = 0; i < 20; i++) mk(`node_modules/p${i}/lib/index.js`, 'x');
    mk('src/a.ts', 'x');
    expect(scanProtected(root, ['.env'], undefined, 0).foldersRead).toBe(43);
    expect(scanProtected(root, ['.env'], undefined, 0).foldersRead).toBe(0);
    await tick();
    mk('node_modules/p7/lib/.git/hooks');
    const r = scanProtected(root, ['.env'], undefined, 0);
    expect(r.foldersRead).toBe(1);
    expect(r.git).toEqual([path.join(root, 'node_modules/p7/lib/.git')]);
  });

  it('keeps a folder changed earlier in the same millisecond as the walk (Date.now() floors: not "changed in the future")', () => {
    mk('same/ms');
    const times = ['', 'same', 'same/ms'].flatMap((rel) => {
      const st = fs.lstatSync(path.join(root, rel), { bigint: true });
      return [st.mtimeNs, st.ctimeNs];
    });
    const newest = times.reduce((a, b) => (a > b ? a : b));
    const now = vi.spyOn(Date, 'now').mockReturnValue(Number(newest / 1_000_000n)); // the walk runs in that millisecond
    try {
      expect(scanProtected(root, [], undefined, 0).foldersRead).toBe(3);
      // Unless the newest time fell exactly on a millisecond, a floored "now" made that folder racy: read every time.
      expect(scanProtected(root, [], undefined, 0).foldersRead).toBe(0);
    } finally {
      now.mockRestore();
    }
  });

  it('stops a nested repository made in the same clock tick as the last walk from escaping the read-only mounts (racy folders are read again)', () => {
    mk('deep/er');
    expect(scanProtected(root, []).git).toEqual([]);
    mk('deep/er/.git/hooks'); // at once: the folder's mtime may not have moved on
    expect(scanProtected(root, []).git).toEqual([path.join(root, 'deep/er/.git')]);
  });

  it('stops a gitfile pointed at another folder of the workspace from keeping its old target (gitfiles are read on every walk)', async () => {
    mk('mods/one');
    mk('mods/two');
    mk('sub/.git', 'gitdir: ../mods/one\n');
    await tick();
    expect(scanProtected(root, [], undefined, 0).git).toContain(path.join(root, 'mods/one'));
    fs.writeFileSync(path.join(root, 'sub/.git'), 'gitdir: ../mods/two\n'); // in place: no folder changes
    const r = scanProtected(root, [], undefined, 0);
    expect(r.git).toContain(path.join(root, 'mods/two'));
    expect(r.git).not.toContain(path.join(root, 'mods/one'));
  });

  it('agrees with the full walk after every change of a random sequence (folders, repositories, gitfiles, protected files, removals, links)', async () => {
    let seed = 20261204;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const dirs = ['a', 'a/b', 'a/b/c', 'd', 'd/e', 'node_modules/x', 'node_modules/x/y'];
    for (const d of dirs) mk(d);
    await tick();
    scanProtected(root, ['.env', 'keys/**'], undefined, 0);
    for (let step = 0; step < 40; step++) {
      const d = path.join(root, dirs[rand(dirs.length)]!);
      const op = rand(7);
      if (!fs.existsSync(d)) fs.mkdirSync(d, { recursive: true });
      else if (op === 0 && !fs.existsSync(path.join(d, '.git'))) fs.mkdirSync(path.join(d, '.git', 'hooks'), { recursive: true });
      else if (op === 1) fs.writeFileSync(path.join(d, '.env'), 'k=v');
      else if (op === 2) fs.rmSync(path.join(d, '.git'), { recursive: true, force: true });
      else if (op === 3 && !fs.existsSync(path.join(d, '.git'))) fs.writeFileSync(path.join(d, '.git'), `gitdir: ${path.join(root, 'd')}\n`);
      else if (op === 4) fs.mkdirSync(path.join(d, 'keys'), { recursive: true });
      else if (op === 5 && !fs.existsSync(path.join(d, 'ln'))) fs.symlinkSync(root, path.join(d, 'ln'));
      else fs.rmSync(path.join(d, '.env'), { force: true });
      await tick();
      expect(sorted(scanProtected(root, ['.env', 'keys/**'], undefined, 0)), `step ${step}`).toEqual(sorted(walkProtected(root, ['.env', 'keys/**'])));
    }
  });

  it('says when it stopped early as the full walk does, having seen at least as much (it stops after the folder that crosses the bound)', async () => {
    for (let i = 0; i < 30; i++) mk(`d${i}/f`, 'x');
    mk('d3/.git/hooks');
    mk('d29/.git/hooks');
    await tick();
    const walked = walkProtected(root, [], 10);
    expect(walked.truncated).toBe(true);
    for (const round of [1, 2]) {
      const kept = scanProtected(root, [], 10, 0);
      expect(kept.truncated, `round ${round}`).toBe(true);
      expect(kept.git).toEqual(expect.arrayContaining([...walked.git]));
      expect(kept.git).not.toContain(path.join(root, 'd29/.git'));
      if (round === 2) expect(kept.foldersRead).toBe(0);
    }
  });
});
