import { defineConfig } from 'vitest/config';
import { LONG_FILES } from './test/suites';
import { perlAsText } from './test/helpers/perlAsText';
import { inTheCheckout } from './scripts/launcher.mjs';

/**
 * `npm run test:long`: the files that measure real processes under pressure, drive a real browser, or run vitest
 * themselves (test/suites.ts). One file at a time: kill and memory tests count real processes and must not
 * compete with another file for the 2 cores.
 */
export default defineConfig({
  plugins: [perlAsText],
  // The launcher's fork server, built into dist/ by the global setup (scripts/launcher.mjs).
  define: inTheCheckout,
  test: {
    include: [...LONG_FILES],
    globalSetup: ['test/helpers/globalSetup.ts'],
    // Rounds and events bound these tests, not time: the timeout is only there to end a test that hangs, and is
    // generous because a loaded machine may run 30 rounds of a race slowly.
    testTimeout: 180_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    reporters: ['default'],
  },
});
