// node scripts/agent-job.mjs --project GIT-DIR --plan vary|colorama|bats-core --config recommended|vscode|direct
// The scripted agent of test/integration/agentJob.test.ts, against a clone of a REAL project (issue 26's
// measurement): one line per goal and the count. Bundles test/agent/measure.ts with esbuild (a devDependency), the
// way bench/run.mjs does, into .bench/build/ (two levels below the root, like test/helpers/, so the helpers find
// dist/). Needs `npm run build` first: it drives the real dist/cli.js and dist/server.js.
import * as esbuild from 'esbuild';
import { inTheCheckout } from './launcher.mjs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, '.bench', 'build', 'agent-job.cjs');
await esbuild.build({
  entryPoints: [path.join(root, 'test', 'agent', 'measure.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  sourcemap: 'inline',
  logLevel: 'warning',
  loader: { '.pl': 'text' },
  define: inTheCheckout, // the launcher's fork server: the checkout's dist/ (scripts/launcher.mjs)
});
const mod = await import(pathToFileURL(outfile).href);
try {
  const results = await (mod.default?.main ?? mod.main)(process.argv.slice(2));
  process.exit(results.every((r) => r.done) ? 0 : 1);
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(2);
}
