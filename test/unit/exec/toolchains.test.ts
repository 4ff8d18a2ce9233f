import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findToolchain, type ToolchainSources } from '../../../src/core/exec/developer/toolchains';
import { DEFAULT_SAFE_PATH } from '../../../src/core/exec/env';
import { defaultCommandHome, ensurePrivateHome } from '../../../src/core/exec/developer/privateHome';

/** The toolchain folders of a server PATH, against real folders laid out like the version managers lay them out. */

let base: string;
let home: string;
let ws: string;
const mk = (...parts: string[]) => {
  const p = path.join(...parts);
  fs.mkdirSync(p, { recursive: true });
  return p;
};

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-tc-')));
  home = mk(base, 'home');
  ws = mk(home, 'proj');
  for (const d of ['.pyenv/shims', '.pyenv/bin', '.pyenv/libexec', '.pyenv/plugins/pyenv-virtualenv/shims', '.local/bin', '.local/lib', '.local/share/keyrings',
    '.cargo/bin', '.rustup/toolchains', '.volta/bin', '.nvm/versions/node/v20.0.0/bin', 'go/bin', 'bin', 'scripts', '.ssh', 'proj/node_modules/.bin']) mk(home, d);
  fs.writeFileSync(path.join(home, '.cargo', 'credentials.toml'), 'token = "secret"\n');
  fs.chmodSync(mk(home, 'open'), 0o777);
  mk(base, 'fnm-store', 'node-versions', 'v20', 'installation', 'bin');
  fs.symlinkSync(path.join(base, 'fnm-store', 'node-versions', 'v20', 'installation', 'bin'), path.join(home, 'fnm-current'));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const h = (rel: string) => path.join(home, rel);
const find = (serverPath: string[], over: Partial<ToolchainSources> = {}) =>
  findToolchain({ serverPath: serverPath.join(':'), env: {}, home, systemPath: DEFAULT_SAFE_PATH, root: ws, ...over });

describe('toolchain folders from the server PATH', () => {
  it("puts pyenv's shims where the server PATH has them relative to the system folders; ~/.local/bin and ~/.cargo/bin after them", () => {
    const t = find([h('.pyenv/plugins/pyenv-virtualenv/shims'), h('.pyenv/shims'), h('.pyenv/bin'), '/usr/local/bin', '/usr/bin', '/bin', h('.local/bin'), h('.cargo/bin')]);
    expect(t.path).toBe([h('.pyenv/plugins/pyenv-virtualenv/shims'), h('.pyenv/shims'), h('.pyenv/bin'), DEFAULT_SAFE_PATH, h('.local/bin'), h('.cargo/bin')].join(':'));
    expect(t.dirs).toEqual([h('.pyenv/plugins/pyenv-virtualenv/shims'), h('.pyenv/shims'), h('.pyenv/bin'), h('.local/bin'), h('.cargo/bin')]);
  });

  it("binds a version manager's whole root (its shims run its libexec), otherwise only the entry, and what rustup and pip --user need", () => {
    const t = find([h('.pyenv/shims'), h('.local/bin'), h('.cargo/bin'), h('.nvm/versions/node/v20.0.0/bin'), h('go/bin'), h('bin')]);
    expect([...t.binds].sort()).toEqual([h('.pyenv'), h('.local/bin'), h('.local/lib'), h('.cargo/bin'), h('.rustup'), h('.nvm'), h('go/bin'), h('bin')].sort());
    // Nothing else of the home folder: not .cargo (its credentials and registry), not .ssh, not .local/share.
    expect(t.binds).not.toContain(h('.cargo'));
    expect(t.binds.some((b) => b === home || b.startsWith(h('.ssh')) || b.startsWith(h('.local/share')))).toBe(false);
    expect(t.env).toEqual({ PYENV_ROOT: h('.pyenv'), RUSTUP_HOME: h('.rustup'), NVM_DIR: h('.nvm'), PYTHONUSERBASE: h('.local') });
  });

  it("follows the managers' own variables (PYENV_ROOT elsewhere in the home folder)", () => {
    mk(home, 'tools/pyenv/shims');
    const t = find([h('tools/pyenv/shims')], { env: { PYENV_ROOT: h('tools/pyenv') } });
    expect(t.binds).toEqual([h('tools/pyenv')]);
    expect(t.env).toEqual({ PYENV_ROOT: h('tools/pyenv') });
  });

  it('gives a linked entry (fnm per-shell folders) by its real path', () => {
    const t = find([h('fnm-current'), '/usr/bin']);
    expect(t.dirs).toEqual([path.join(base, 'fnm-store', 'node-versions', 'v20', 'installation', 'bin')]);
  });

  it('never takes a relative or empty entry, the workspace, the home folder, /var/tmp, /run, a world-writable folder, a hidden path or a missing one', () => {
    const entries = ['', '.', 'bin', h('proj/node_modules/.bin'), home, '/var/tmp', '/run', h('open'), h('.ssh'), h('scripts'), h('nowhere'), '/usr/bin'];
    const t = find(entries, { hidden: [h('scripts')] });
    expect(t.dirs).toEqual([]);
    expect(t.path).toBe(DEFAULT_SAFE_PATH);
    const why = Object.fromEntries(t.skipped.map((s) => [s.entry, s.reason]));
    expect(why['']).toMatch(/relative/);
    expect(why['.']).toMatch(/relative/);
    expect(why['bin']).toMatch(/relative/);
    expect(why[h('proj/node_modules/.bin')]).toMatch(/workspace/);
    expect(why[home]).toMatch(/whole home/);
    expect(why['/var/tmp']).toMatch(/writable by anyone/);
    expect(why['/run']).toMatch(/runtime/);
    expect(why[h('open')]).toMatch(/writable by anyone/);
    expect(why[h('.ssh')]).toMatch(/hidden/);
    expect(why[h('scripts')]).toMatch(/hidden/);
    expect(why[h('nowhere')]).toMatch(/does not exist/);
  });

  it('never takes a folder below a world-writable one that is not sticky (someone else could swap it)', () => {
    const open = mk(base, 'open-parent');
    fs.chmodSync(open, 0o777);
    expect(find([mk(open, 'bin')]).skipped[0]?.reason).toMatch(/writable by anyone/);
  });

  it("never puts the commands' own HOME on PATH", () => {
    const own = mk(base, 'state', 'home', 'abc');
    const t = find([path.join(own, 'bin'), own], { privateHome: own });
    mk(own, 'bin');
    expect(find([path.join(own, 'bin')], { privateHome: own }).dirs).toEqual([]);
    expect(t.dirs).toEqual([]);
  });

  it('adds nothing when the server PATH has only system folders', () => {
    expect(find(['/usr/local/bin', '/usr/bin', '/bin']).path).toBe(DEFAULT_SAFE_PATH);
  });
});

describe("the commands' private HOME", () => {
  it('is one folder per workspace under XDG_STATE_HOME, created 0700 and given by its real path', () => {
    const state = mk(base, 'xdg-state');
    const a = defaultCommandHome('/w/a', { XDG_STATE_HOME: state });
    expect(a).not.toBe(defaultCommandHome('/w/b', { XDG_STATE_HOME: state }));
    expect(a.startsWith(path.join(state, 'guarded-shell', 'home') + '/')).toBe(true);
    const real = ensurePrivateHome(a);
    expect(fs.statSync(real).mode & 0o777).toBe(0o700);
    expect(ensurePrivateHome(a)).toBe(real); // the same folder again: caches persist
  });

  it('refuses a link planted where the folder should be (someone else could point it anywhere)', () => {
    const where = path.join(base, 'linked-home');
    fs.symlinkSync(home, where);
    expect(() => ensurePrivateHome(where)).toThrow(/not a folder/);
  });
});
