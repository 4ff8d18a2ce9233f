// `npm run bench`: bundles the TypeScript harness (bench/main.ts, which reuses test/helpers and src/core) with
// esbuild — already a devDependency — and runs it. No ts loader, no extra dependency, works after `npm ci`.
// The bundle goes to .bench/build/ (gitignored): two levels below the repository root, exactly like
// test/helpers/, so the helpers' `path.resolve(__dirname, '..', '..')` still finds the repository.
import * as esbuild from 'esbuild';
import { inTheCheckout } from '../scripts/launcher.mjs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as path from 'node:path';
import { trimPlugins } from '../scripts/bundle/plugins.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, '.bench', 'build', 'bench.cjs');
await esbuild.build({
  entryPoints: [path.join(root, 'bench', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external', // the SDK and zod load from node_modules, as in the server's own tests
  sourcemap: 'inline',
  logLevel: 'warning',
  loader: { '.pl': 'text' },
  define: inTheCheckout, // the launcher's fork server: the checkout's dist/ (scripts/launcher.mjs)
});
// The minimal-server baseline (bench/minimalServer.ts), bundled with its dependencies exactly the way
// `esbuild.mjs --production` bundles the shipped dist/cli.js (minified, the same trims), so start-up and memory
// compare like with like.
await esbuild.build({
  entryPoints: [path.join(root, 'bench', 'minimalServer.ts')],
  outfile: path.join(root, '.bench', 'build', 'minimal-server.cjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  minify: true,
  plugins: trimPlugins,
  logLevel: 'warning',
  legalComments: 'none',
});
process.chdir(root);
const mod = await import(pathToFileURL(outfile).href);
const code = await (mod.default?.main ?? mod.main)(process.argv.slice(2));
process.exit(code);
