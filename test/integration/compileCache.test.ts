import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SENSITIVE_HOME_ENTRIES } from '../../src/core/isolation/context';
import { startIpcProcess } from '../helpers/ipcHost';
import { CLI } from '../helpers/serverProcess';

// dist/cli.js (src/cli/start.ts) starts the CLI bundle with V8's code cache in ~/.cache/guarded-shell. These run
// the real starter with HOME pointed at a temp folder and look at what it leaves there.
const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

function freshHome(): string {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-cache-home-'));
  homes.push(h);
  return h;
}

function version(home: string, extraEnv: Record<string, string> = {}): string {
  const env = { PATH: process.env.PATH ?? '', HOME: home, ...extraEnv };
  const r = spawnSync(process.execPath, [CLI, '--version'], { env, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.trim();
}

const cacheDir = (home: string) => path.join(home, '.cache', 'guarded-shell');
const cacheFiles = (home: string) => (fs.existsSync(cacheDir(home)) ? fs.readdirSync(cacheDir(home)) : []);
const nodeMajor = Number(process.versions.node.split('.')[0]);
const nodeHasCompileCache = typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe('the CLI starter\'s code cache', () => {
  it('is written into a private folder (0700, files 0600) and reused as it is by the next start', () => {
    const home = freshHome();
    const v = version(home);
    expect(v).toMatch(/^\d+\.\d+\.\d+/);
    expect(fs.statSync(cacheDir(home)).mode & 0o777).toBe(0o700);
    const files = cacheFiles(home);
    expect(files.length).toBeGreaterThan(0);
    if (nodeMajor < 22) {
      // Our own vm.Script cache: one file per bundle + Node version, written by rename, never half a file.
      expect(files).toEqual([expect.stringMatching(/^cli-[0-9a-f]{32}\.v8$/)]);
      const file = path.join(cacheDir(home), files[0]!);
      const st = fs.statSync(file);
      expect(st.mode & 0o777).toBe(0o600);
      expect(st.size).toBeGreaterThan(100_000);
      // The second start accepts it: nothing is rewritten (a rejected cache would be replaced: a new inode).
      expect(version(home)).toBe(v);
      expect(fs.statSync(file).ino).toBe(st.ino);
      expect(cacheFiles(home)).toEqual(files);
    }
  });

  it('a cache V8 rejects (garbage of the right name) costs nothing but a compile: same answer, cache replaced', () => {
    if (nodeMajor >= 22) return; // Node's own cache validates its files itself
    const home = freshHome();
    const v = version(home);
    const file = path.join(cacheDir(home), cacheFiles(home)[0]!);
    fs.writeFileSync(file, Buffer.alloc(4096, 0x41), { mode: 0o600 });
    expect(version(home)).toBe(v);
    expect(fs.readFileSync(file).subarray(0, 16).equals(Buffer.alloc(16, 0x41))).toBe(false);
  });

  it('is not used when others can write the folder, nor a file others can write, nor a link', () => {
    const home = freshHome();
    fs.mkdirSync(cacheDir(home), { recursive: true, mode: 0o700 });
    fs.chmodSync(cacheDir(home), 0o777);
    const v = version(home);
    expect(cacheFiles(home)).toEqual([]); // nothing written into a folder others can write

    if (nodeMajor >= 22) return;
    fs.chmodSync(cacheDir(home), 0o700);
    version(home);
    const [name] = cacheFiles(home);
    const file = path.join(cacheDir(home), name!);
    // A planted cache file that is a link, or that others may write, is not read (and gets replaced by a real one).
    const planted = path.join(home, 'planted');
    fs.copyFileSync(file, planted);
    fs.rmSync(file);
    fs.symlinkSync(planted, file);
    expect(version(home)).toBe(v);
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
    fs.chmodSync(file, 0o666);
    const before = fs.statSync(file).ino;
    expect(version(home)).toBe(v);
    expect(fs.statSync(file).ino).not.toBe(before);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', () => {
    const home = freshHome();
    version(home, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(fs.existsSync(cacheDir(home))).toBe(false);
  });

  it('keeps the caches of two versions started side by side (each reuses its own), and only the newest three', () => {
    if (nodeMajor >= 22) return; // Node's own cache keeps one file per module itself
    const home = freshHome();
    // Other versions: the same starter beside a bundle with other bytes (another hash, so a cache of its own).
    const variant = (n: number) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-cache-build-'));
      homes.push(dir);
      fs.copyFileSync(CLI, path.join(dir, 'cli.js'));
      fs.writeFileSync(path.join(dir, 'cli-main.js'), fs.readFileSync(path.join(path.dirname(CLI), 'cli-main.js'), 'utf8') + `\n// build ${n}\n`);
      return path.join(dir, 'cli.js');
    };
    const run = (cli: string) => {
      const r = spawnSync(process.execPath, [cli, '--version'], { env: { PATH: process.env.PATH ?? '', HOME: home }, encoding: 'utf8', timeout: 60_000 });
      expect(r.status).toBe(0);
    };
    const [a, b, c, d] = [CLI, variant(1), variant(2), variant(3)];
    run(a);
    const first = cacheFiles(home);
    const inode = fs.statSync(path.join(cacheDir(home), first[0]!)).ino;
    run(b);
    run(a); // the first version again: its cache is still there and accepted as it is
    expect(cacheFiles(home)).toHaveLength(2);
    expect(fs.statSync(path.join(cacheDir(home), first[0]!)).ino).toBe(inode);
    run(c);
    expect(cacheFiles(home)).toHaveLength(3);
    run(d); // a fourth: the oldest written (the first version's) goes
    const last = cacheFiles(home);
    expect(last).toHaveLength(3);
    expect(last).not.toContain(first[0]);
  });

  it('lives where the sandbox and the file tools hide it when the workspace holds the home folder', () => {
    expect(SENSITIVE_HOME_ENTRIES).toContain(path.relative(os.homedir(), path.join(os.homedir(), '.cache', 'guarded-shell')));
  });
});

describe('the VS Code server\'s starter (dist/server.js)', () => {
  it('starts the server bundle with a code cache of its own, beside the CLI\'s (neither drops the other\'s)', async () => {
    const home = freshHome();
    version(home);
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-cache-ws-'));
    homes.push(ws);
    const proc = await startIpcProcess([{ folderId: 'w', folder: ws, settings: { isolation: 'none' } }], { PATH: process.env.PATH ?? '', HOME: home });
    try {
      expect((await proc.folder('w').ready).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/); // the server really started through it
      // The cache is written a moment after the start (also when the process is later killed, as here).
      for (let i = 0; i < 50 && !cacheFiles(home).some((f) => f.startsWith('server-') || f.startsWith('v')); i++) await new Promise((r) => setTimeout(r, 100));
    } finally {
      await proc.close();
    }
    const files = cacheFiles(home);
    if (nodeHasCompileCache) expect(files.some((f) => f.startsWith(`${process.version}-`))).toBe(true); // Node's own cache
    else expect(files.filter((f) => f.endsWith('.v8')).map((f) => f.split('-')[0]).sort()).toEqual(['cli', 'server']);
  });
});

