// Bundles the three entry points. The server and CLI bundles have NO externals: a stray `vscode`
// import into src/core or src/server makes this build fail, which is the point.
//   --production  minified, no source maps: what `npm pack` and the .vsix ship
//   --sourcemap   source maps even with --production (the bench profiles the shipped code through them)
//   --metafile    writes esbuild's metafile per bundle to .bench/meta/ (the bench lists what each bundle holds)
import * as esbuild from 'esbuild';
import { trimPlugins } from './scripts/bundle/plugins.mjs';
import { besideTheBundle, buildLauncher } from './scripts/launcher.mjs';

const quiet = process.argv.includes('--quiet');
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');
const metafile = process.argv.includes('--metafile');

const fs = await import('node:fs');
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));

const common = {
  // The bundles find the launcher's fork server beside themselves (scripts/launcher.mjs).
  define: { GUARDED_SHELL_VERSION: JSON.stringify(pkg.version), ...besideTheBundle },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production || process.argv.includes('--sourcemap'),
  minify: production,
  logLevel: quiet ? 'warning' : 'info',
  legalComments: 'none',
  plugins: trimPlugins,
  metafile,
  // The sandbox's network bridge, in Perl (src/core/network/bridge.pl), goes into the bundle as a string.
  loader: { '.pl': 'text' },
};

const entries = [
  // dist/cli.js is a small starter that loads the CLI bundle with V8's code cache (src/cli/start.ts).
  { entryPoints: ['src/cli/start.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js' },
  // dist/server.js, the process the extension forks, starts dist/server-main.js the same way.
  { entryPoints: ['src/cli/start.ts'], outfile: 'dist/server.js', define: { ...common.define, GUARDED_SHELL_STARTER_MAIN: '"server-main.js"' } },
  { entryPoints: ['src/server/ipcMain.ts'], outfile: 'dist/server-main.js' },
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
];

// The launcher's fork server, compiled from C into dist/ (or one line saying why not).
buildLauncher({ quiet });

const present = entries.filter((e) => fs.existsSync(e.entryPoints[0]));

if (watch) {
  for (const e of present) await (await esbuild.context({ ...common, ...e })).watch();
} else {
  const results = await Promise.all(present.map((e) => esbuild.build({ ...common, ...e })));
  if (production) for (const e of present) onlyAscii(e.outfile); // (a development build keeps comments, in any script)
  if (metafile) {
    fs.mkdirSync('.bench/meta', { recursive: true });
    present.forEach((e, i) => fs.writeFileSync(`.bench/meta/${e.outfile.replace(/^dist\//, '')}.json`, JSON.stringify(results[i].metafile)));
  }
}

/**
 * V8 keeps a script's source as one string for as long as the process runs, with two bytes per character once a
 * single character needs them: one curly quote in a String.raw or a regular expression (which esbuild cannot
 * escape) doubled the server's 1 MB bundle in memory. Write such characters as \u escapes in the source.
 */
function onlyAscii(file) {
  const bytes = fs.readFileSync(file);
  const at = bytes.findIndex((b) => b > 0x7f);
  if (at < 0) return;
  const line = bytes.subarray(0, at).toString('utf8').split('\n').length;
  const near = bytes.subarray(Math.max(0, at - 60), at + 20).toString('utf8');
  throw new Error(`${file}:${line}: a character outside ASCII (near ${JSON.stringify(near)}) makes V8 hold the whole bundle's source at two bytes per character; write it as a \\u escape in the TypeScript source`);
}
