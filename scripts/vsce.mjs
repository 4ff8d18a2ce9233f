#!/usr/bin/env node
// Runs the pinned extension packager (@vscode/vsce, tools/vsce/package-lock.json) under a Node 22 or later:
//   node scripts/vsce.mjs package --no-dependencies …     node scripts/vsce.mjs ls --no-dependencies
// Why not a devDependency: vsce (and its Azure dependencies) require Node 22+, so as a devDependency it made
// `npm ci` print EBADENGINE warnings on Node 20, which is what the product runs on. It is installed here, from its
// own lockfile, the first time it is needed (needs the npm registry once), and run by a Node that it supports.
// Exit code 3 with one line on stderr when no Node 22+ is found.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { findNode22, installedVsce, ROOT, TOOLS, VSCE_DIR, wantedVsce } from './lib/packager.mjs';

const found = findNode22();
if (!found.node) {
  process.stderr.write(`vsce: ${found.reason}\n`);
  process.exit(3);
}
// npm's own launcher starts `node` from PATH: put the chosen Node first, so npm and vsce run under it.
const env = { ...process.env, PATH: `${path.dirname(found.node)}${path.delimiter}${process.env.PATH ?? ''}` };

const wanted = wantedVsce();
if (installedVsce() !== wanted) {
  process.stderr.write(`vsce: installing @vscode/vsce ${wanted} into tools/vsce (once)\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: TOOLS, env, stdio: ['ignore', 2, 2] });
  if (r.status !== 0 || installedVsce() !== wanted) {
    process.stderr.write(`vsce: could not install @vscode/vsce ${wanted} (npm ci in tools/vsce exited with ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}
const r = spawnSync(found.node, [path.join(VSCE_DIR, 'vsce'), ...process.argv.slice(2)], { cwd: ROOT, env, stdio: 'inherit' });
process.exit(r.status ?? 1);
