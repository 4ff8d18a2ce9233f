// esbuild plugins that keep code the shipped bundles never run out of them (issue 17: the whole bundle is parsed
// at every start, so every kilobyte costs start-up time in every process). Shared by esbuild.mjs and the bench,
// which bundles its minimal-server baseline the same way so the comparison stays like with like.
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

export const trimPlugins = [zodEnglishOnly, iconvByTextDecoder];
