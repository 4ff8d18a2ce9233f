import { defineConfig } from 'vitest/config';
import { ALL_FILES, LONG_FILES } from './test/suites';
import { perlAsText } from './test/helpers/perlAsText';
import { inTheCheckout } from './scripts/launcher.mjs';

/** `npm test`: every unit, integration, webview and packaging test but the long ones (test/suites.ts: `npm run test:long`). */
export default defineConfig({
  plugins: [perlAsText],
  // The launcher's fork server, built into dist/ by the global setup (scripts/launcher.mjs).
  define: inTheCheckout,
  test: {
    include: ALL_FILES,
    exclude: [...LONG_FILES, '**/node_modules/**'],
    // Builds dist/ once and probes bubblewrap, Chromium, gawk, bsdtar and Node 22 once (see test/helpers/needs.ts).
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two files at a time: most of the suite waits on real processes, not on the CPU, and nothing left here
    // measures time or memory against another file (those are in the long suite, one file at a time).
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
