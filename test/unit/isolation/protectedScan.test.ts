import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../../src/core/isolation/bwrap';
import { scanProtected } from '../../../src/core/isolation/protectedScan';

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
