// The extension packager, @vscode/vsce (engines ">= 22"): where its pinned copy lives (tools/vsce, own lockfile)
// and a Node.js 22 or later to run it. The product itself runs on Node 20, so the project does not require 22 everywhere; this looks, in
// order, at the Node running this script, $GUARDED_SHELL_NODE22 (a path to a node binary), and the Node 24 that
// scripts/e2e-setup.sh caches for the VS Code end-to-end tests.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TOOLS = path.join(ROOT, 'tools', 'vsce');
export const VSCE_DIR = path.join(TOOLS, 'node_modules', '@vscode', 'vsce');

/** The version tools/vsce/package.json pins. */
export function wantedVsce() {
  return JSON.parse(fs.readFileSync(path.join(TOOLS, 'package.json'), 'utf8')).dependencies['@vscode/vsce'];
}

/** The version installed in tools/vsce, if any. */
export function installedVsce() {
  try {
    return JSON.parse(fs.readFileSync(path.join(VSCE_DIR, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

export const NEEDED_MAJOR = 22;

const HOW_TO = 'install Node 22 or later (e.g. `nvm install 22`) and run it from there, set GUARDED_SHELL_NODE22=/path/to/node, '
  + 'or run `bash scripts/e2e-setup.sh`, which caches Node 24 in /var/cache/guarded-shell-e2e';

function majorOf(nodePath) {
  try {
    const v = execFileSync(nodePath, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return Number(v.trim().split('.')[0]);
  } catch {
    return 0;
  }
}

function cachedNodes() {
  const cache = process.env.E2E_CACHE || '/var/cache/guarded-shell-e2e';
  let names = [];
  try {
    names = fs.readdirSync(cache).filter((n) => /^node\d+-/.test(n)).sort().reverse();
  } catch {
    return [];
  }
  return names.map((n) => path.join(cache, n, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node'));
}

/** `{ node }` with the absolute path of a Node >= 22, or `{ reason }` saying what is missing and how to get it. */
export function findNode22() {
  if (Number(process.versions.node.split('.')[0]) >= NEEDED_MAJOR) return { node: process.execPath };
  const candidates = [process.env.GUARDED_SHELL_NODE22, ...cachedNodes()].filter(Boolean);
  for (const c of candidates) {
    if (fs.existsSync(c) && majorOf(c) >= NEEDED_MAJOR) return { node: c };
  }
  return { reason: `packaging the extension needs Node ${NEEDED_MAJOR} or later (@vscode/vsce requires it; this is Node ${process.versions.node}): ${HOW_TO}` };
}
