// Bundles the three entry points. The server and CLI bundles have NO externals: a stray `vscode`
// import into src/core or src/server makes this build fail, which is the point.
import * as esbuild from 'esbuild';

const quiet = process.argv.includes('--quiet');
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const fs = await import('node:fs');
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));

const common = {
  define: { GUARDED_SHELL_VERSION: JSON.stringify(pkg.version) },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: quiet ? 'warning' : 'info',
  legalComments: 'none',
};

const entries = [
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/server/ipcMain.ts'], outfile: 'dist/server.js' },
  { entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
];

const present = entries.filter((e) => fs.existsSync(e.entryPoints[0]));

if (watch) {
  for (const e of present) await (await esbuild.context({ ...common, ...e })).watch();
} else {
  await Promise.all(present.map((e) => esbuild.build({ ...common, ...e })));
}
