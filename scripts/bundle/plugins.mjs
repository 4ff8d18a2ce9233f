// esbuild plugins that keep code the shipped bundles never run out of them (issue 17: the whole bundle is parsed
// at every start, so every kilobyte costs start-up time in every process). Shared by esbuild.mjs and the bench,
// which bundles its minimal-server baseline the same way so the comparison stays like with like.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * zod's `z.locales` namespace holds ~50 translations of its error messages (≈400 KB). Nothing here calls
 * `z.config(z.locales.xx())`; zod itself only ever installs `en`. The namespace keeps `en` alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), '..', 'locales', 'index.js'), namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};\n`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/** iconv-lite's code-page tables (≈540 KB) replaced by Node's TextDecoder (scripts/bundle/iconv-lite.cjs says why). */
const iconvByTextDecoder = {
  name: 'iconv-by-textdecoder',
  setup(build) {
    build.onResolve({ filter: /^iconv-lite$/ }, () => ({ path: path.join(here, 'iconv-lite.cjs') }));
  },
};

/**
 * `import * as fs from 'node:fs'` in CommonJS output is `__toESM(require("node:fs"))`: a fresh object with a getter
 * (a closure) for each of the module's ~100 exports, made again in every file that imports it. 125 of them in the
 * server's bundle cost about 10 ms of every start and thousands of closures of its memory. A built-in module has
 * no ESM semantics to keep (its namespace is its exports object, whose properties are already live), so our own
 * TypeScript files get the module itself: `const fs = require('node:fs')` (a default import alike).
 */
const IMPORT_BUILTIN = /^import (?:\* as )?([A-Za-z_$][\w$]*) from '(node:[a-z_/]+)';$/gm;
const builtinsAsThemselves = {
  name: 'builtins-as-themselves',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (/[\\/]node_modules[\\/]/.test(args.path)) return undefined;
      const source = fs.readFileSync(args.path, 'utf8');
      return { contents: source.replace(IMPORT_BUILTIN, "const $1 = require('$2');"), loader: 'ts' };
    });
  },
};

export const trimPlugins = [zodEnglishOnly, iconvByTextDecoder, builtinsAsThemselves];
