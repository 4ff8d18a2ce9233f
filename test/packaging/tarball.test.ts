import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The standalone CLI as a user installs it: `npm pack` in a clean copy of the sources (no dist/: prepack must
 * build it), then `npm i -g` of the tarball into a temporary prefix and `npx` of the tarball, both with an empty
 * npm cache and --offline, so the package can only work if it needs no dependency from the registry. The
 * installed binary then serves a real MCP client over stdio, far from this repository's node_modules.
 */

const REPO = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { name: string; version: string; dependencies?: Record<string, string> };
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

let tmp = '';
let tarball = '';
let packed: { files: { path: string; size: number }[]; size: number; unpackedSize: number; entryCount: number };

/** npm with its own empty cache and no registry: whatever it installs must come from the tarball. */
function npm(args: string[], cwd: string, extraEnv: Record<string, string> = {}, program = NPM): string {
  return execFileSync(program, args, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, npm_config_cache: path.join(tmp, 'npm-cache'), npm_config_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extraEnv },
  });
}

/** The files a clone has: git's list (tracked and new, not ignored), or, outside a git checkout, the tree without build output. */
function sourceFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' });
  if (git.status === 0) return git.stdout.split('\0').filter(Boolean);
  const skip = new Set(['.git', 'node_modules', 'dist', 'out', 'coverage', '.bench']);
  const walk = (rel: string): string[] =>
    fs.readdirSync(path.join(REPO, rel), { withFileTypes: true }).flatMap((e) => {
      const r = path.join(rel, e.name);
      if (skip.has(e.name) || e.name.endsWith('.vsix') || e.name.endsWith('.tgz')) return [];
      return e.isDirectory() ? walk(r) : e.isFile() ? [r] : [];
    });
  return walk('');
}

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-tarball-')));
  // A clean copy of what a clone holds (tracked and new, not ignored: no dist/, no node_modules), plus the
  // installed node_modules by link so prepack's esbuild can run.
  const src = path.join(tmp, 'clone');
  for (const f of sourceFiles()) {
    if (!fs.existsSync(path.join(REPO, f))) continue; // deleted in the work tree
    fs.mkdirSync(path.dirname(path.join(src, f)), { recursive: true });
    fs.copyFileSync(path.join(REPO, f), path.join(src, f));
  }
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(src, 'node_modules'));
  expect(fs.existsSync(path.join(src, 'dist'))).toBe(false);
  const out = npm(['pack', '--json', '--pack-destination', tmp], src);
  packed = JSON.parse(out.slice(out.indexOf('[')))[0];
  tarball = path.join(tmp, `${pkg.name}-${pkg.version}.tgz`);
  console.log(`npm pack: ${tarball} — ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.entryCount} files`);
}, 180_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('packs the bundled CLI and the documents, built by prepack, and nothing else', () => {
    const names = packed.files.map((f) => f.path).sort();
    const docs = fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    // media/: the standalone approval page's scripts and styles (--approver web), served next to dist/cli.js.
    const media = ['approval.css', 'approval.js', 'history.css', 'history.js', 'webHost.css', 'webHost.js'].map((f) => `media/${f}`);
    // The launcher's fork server, where prepack's build could compile it (scripts/launcher.mjs: Linux, a C compiler).
    const launcher = fs.existsSync(path.join(tmp, 'clone', 'dist', 'guarded-shell-launcher')) ? ['dist/guarded-shell-launcher'] : [];
    expect(names).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'dist/cli.js', 'dist/cli-main.js', ...launcher, ...docs, ...media, 'package.json'].sort());
    expect(fs.existsSync(tarball)).toBe(true);
  });

  it('declares no runtime dependency: the bundle holds them all', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it('stays small', () => {
    expect(packed.size).toBeLessThan(1_000_000);
  });
});

describe('installing the tarball', () => {
  it('npm i -g installs a working guarded-shell binary (offline, empty cache)', async () => {
    const prefix = path.join(tmp, 'prefix');
    npm(['install', '--global', '--prefix', prefix, tarball], tmp);
    const bin = path.join(prefix, process.platform === 'win32' ? 'guarded-shell.cmd' : path.join('bin', 'guarded-shell'));
    const help = spawnSync(bin, ['--help'], { cwd: tmp, encoding: 'utf8', timeout: 30_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: guarded-shell [options]');
    expect(spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()).toBe(pkg.version);

    // A real MCP client over stdio, against the installed copy (its own folder, no node_modules beside it).
    const ws = fs.mkdtempSync(path.join(tmp, 'ws-'));
    fs.writeFileSync(path.join(ws, 'hello.txt'), 'from the workspace\n');
    const client = new Client({ name: 'tarball-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: bin, args: ['--stdio', '--cwd', ws, '--mode', 'auto', '--isolation', 'none', '--quiet', '--allow', 'cat'], cwd: tmp, stderr: 'ignore' }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['shell_execute', 'cmdshell', 'readFile', 'editFile']));
      const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['cat', 'hello.txt'] } });
      expect(r.structuredContent).toMatchObject({ outcome: 'ok', stdout: 'from the workspace\n' });
    } finally {
      await client.close();
    }

    // The installed copy serves its approval page (the page's scripts ship in the package).
    const page = spawn(bin, ['--port', '0', '--approver', 'web', '--cwd', ws, '--isolation', 'none', '--quiet'], { cwd: tmp, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const link = await new Promise<string>((resolve, reject) => {
        let err = '';
        const timer = setTimeout(() => reject(new Error(`no approval link: ${err}`)), 20_000);
        page.stderr!.on('data', (d: Buffer) => {
          err += d.toString();
          const m = /approvals: open (\S+) /.exec(err);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
      });
      const origin = new URL(link).origin;
      for (const p of ['/', '/media/webHost.js', '/media/approval.js', '/media/history.js', '/media/approval.css']) {
        expect((await fetch(origin + p)).status, p).toBe(200);
      }
    } finally {
      page.kill('SIGTERM');
    }
  }, 120_000);

  it('npx --yes ./guarded-shell-<version>.tgz --help runs it (offline, empty cache)', () => {
    const out = npm(['--yes', `./${path.basename(tarball)}`, '--help'], tmp, { npm_config_cache: path.join(tmp, 'npx-cache') }, NPX);
    expect(out).toContain('Usage: guarded-shell [options]');
  }, 120_000);
});
