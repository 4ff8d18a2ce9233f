import type { Plugin } from 'vite';

/** Imports of `*.pl` (the sandbox's network bridge) as text, as esbuild's `text` loader bundles them. */
export const perlAsText: Plugin = {
  name: 'perl-as-text',
  transform(code, id) {
    return id.endsWith('.pl') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined;
  },
};
