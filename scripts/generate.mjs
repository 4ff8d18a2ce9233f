// npm run generate: writes package.json's contributes.configuration and the generated tables in README.md and
// docs/*.md from the registries (scripts/reference.ts, bundled on the fly with esbuild: Node 20 runs no .ts).
// --check: exits 1 and names each file that is out of date, writing nothing.
import { build } from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Inside node_modules, so the bundle resolves the project's own packages.
const out = path.join(root, 'node_modules/.cache/guarded-shell/reference.cjs');
await build({ entryPoints: [path.join(root, 'scripts/reference.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'error', packages: 'external', loader: { '.pl': 'text' } });
const ref = createRequire(import.meta.url)(out);

const check = process.argv.includes('--check');
const stale = [];
const write = (file, text) => {
  const full = path.join(root, file);
  if (fs.readFileSync(full, 'utf8') === text) return;
  stale.push(file);
  if (!check) fs.writeFileSync(full, text);
};

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
pkg.contributes.configuration.properties = ref.vscodeConfiguration();
write('package.json', JSON.stringify(pkg, null, 2) + '\n');
const docs = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
for (const file of docs) write(file, ref.fillRegions(fs.readFileSync(path.join(root, file), 'utf8')).text);

if (check && stale.length) {
  console.error(`generate: out of date (run npm run generate): ${stale.join(', ')}`);
  process.exit(1);
}
console.log(stale.length ? `generate: wrote ${stale.join(', ')}` : 'generate: everything is up to date');
