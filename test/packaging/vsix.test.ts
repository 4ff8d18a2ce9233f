import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWith, skipWithout } from '../helpers/needs';
import { relativeLinks } from './markdown';
import { zipEntries, type ZipEntry } from './zip';

/**
 * The README is the extension's page inside VS Code and on the Marketplace, rendered from the files IN the .vsix:
 * a link or image to a file that .vscodeignore leaves out is dead there even though it works on GitHub. And the
 * packager renames some files (README.md → readme.md, CHANGELOG.md → changelog.md, LICENSE → LICENSE.txt), so
 * a link to the original name is dead too on a case-sensitive file system. Hence this packages for real, with the
 * flags of `npm run package`, and reads the names from the .vsix itself.
 */

const REPO = path.resolve(__dirname, '../..');
let tmp = '';

describeWith('vsce')('the packaged .vsix', () => {
  let vsix: string;
  let entries: Set<string>;
  let byName: Map<string, ZipEntry>;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-vsix-'));
    vsix = path.join(tmp, 'guarded-shell.vsix');
    // The packager's arguments exactly as `npm run package` gives them, with the output moved to the temp folder.
    const script = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.package!;
    const args = script.slice(script.indexOf('scripts/vsce.mjs ') + 'scripts/vsce.mjs '.length).split(/\s+/);
    args[args.indexOf('-o') + 1] = vsix;
    execFileSync(process.execPath, ['scripts/vsce.mjs', ...args], { cwd: REPO, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
    byName = new Map(zipEntries(vsix).filter((e) => e.name.startsWith('extension/')).map((e) => [e.name.slice('extension/'.length), e]));
    entries = new Set(byName.keys());
  }, 130_000);
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('holds the README, the bundles and the pages and image the README shows, and no sources or maps', () => {
    for (const f of ['readme.md', 'package.json', 'dist/extension.js', 'dist/server.js', 'dist/server-main.js', 'docs/approval-panel.png', 'docs/cli.md']) expect(entries).toContain(f);
    expect([...entries].filter((f) => f.endsWith('.map') || f.startsWith('src/') || f.startsWith('test/') || f.includes('node_modules/'))).toEqual([]);
  });

  it('ships the launcher\'s fork server built here, executable once installed', (ctx) => {
    skipWithout(ctx, 'fork-server'); // built only where there is a C compiler, on Linux (scripts/launcher.mjs)
    const entry = byName.get('dist/guarded-shell-launcher');
    expect(entry).toBeDefined();
    expect(entry!.mode & 0o111).not.toBe(0);
    expect(entry!.read().equals(fs.readFileSync(path.join(REPO, 'dist', 'guarded-shell-launcher')))).toBe(true);
  });

  it('resolves every relative link and image of every packaged document inside the package', () => {
    const dead: string[] = [];
    const docs = [...entries].filter((f) => f.toLowerCase().endsWith('.md'));
    expect(docs).toContain('readme.md');
    for (const doc of docs) {
      const text = byName.get(doc)!.read().toString('utf8');
      for (const { target, line } of relativeLinks(text)) {
        const file = decodeURI(target).split('#')[0]!;
        if (!file) continue; // an anchor on the same page
        const inPackage = path.posix.normalize(path.posix.join(path.posix.dirname(doc), file));
        if (!entries.has(inPackage)) dead.push(`${doc}:${line}: ${target} → ${inPackage} is not in the .vsix`);
      }
    }
    expect(dead).toEqual([]);
  });
});
