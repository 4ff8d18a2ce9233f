import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeWith } from '../helpers/needs';
import { relativeLinks } from './markdown';

/**
 * The README is the extension's page inside VS Code and on the Marketplace, rendered from the files IN the .vsix:
 * a link or image to a file that .vscodeignore leaves out is dead there even though it works on GitHub. The file
 * list comes from the packager itself (`vsce ls`, which applies .vscodeignore exactly as `vsce package` does).
 */

const REPO = path.resolve(__dirname, '../..');

describeWith('vsce')('the packaged .vsix', () => {
  let packaged: Set<string>;
  beforeAll(() => {
    const out = execFileSync(process.execPath, ['scripts/vsce.mjs', 'ls', '--no-dependencies'], { cwd: REPO, encoding: 'utf8', timeout: 120_000 });
    packaged = new Set(out.split('\n').map((l) => l.trim()).filter(Boolean));
  }, 130_000);

  it('holds the README, the bundles and the pages the README links to', () => {
    for (const f of ['README.md', 'package.json', 'dist/extension.js', 'dist/server.js', 'docs/approval-panel.png', 'docs/cli.md']) expect(packaged).toContain(f);
    expect([...packaged].filter((f) => f.endsWith('.map') || f.startsWith('src/') || f.startsWith('test/') || f.includes('node_modules/'))).toEqual([]);
  });

  it('resolves every relative link and image of every packaged document inside the package', () => {
    const dead: string[] = [];
    for (const doc of [...packaged].filter((f) => f.endsWith('.md'))) {
      for (const { target, line } of relativeLinks(fs.readFileSync(path.join(REPO, doc), 'utf8'))) {
        const file = decodeURI(target).split('#')[0]!;
        if (!file) continue; // an anchor on the same page
        const inPackage = path.posix.normalize(path.posix.join(path.posix.dirname(doc), file));
        if (!packaged.has(inPackage)) dead.push(`${doc}:${line}: ${target} → ${inPackage} is not in the .vsix`);
      }
    }
    expect(dead).toEqual([]);
  });
});
