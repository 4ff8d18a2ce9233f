import { defineConfig } from 'vitest/config';
import { perlAsText } from './test/helpers/perlAsText';
import { inTheCheckout } from './scripts/launcher.mjs';

/**
 * The reliability suite (`npm run test:stress`): load, faults, bad input, fuzz against the real server process.
 * Bounded loops, traffic only to 127.0.0.1. Files run one after another: they count processes, descriptors and
 * memory of real servers and must not disturb each other on 2 cores.
 */
export default defineConfig({
  plugins: [perlAsText],
  // The launcher's fork server, built into dist/ by the global setup (scripts/launcher.mjs).
  define: inTheCheckout,
  test: {
    include: ['test/stress/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    fileParallelism: false,
    globalSetup: ['test/helpers/build.ts', 'test/stress/globalSetup.ts'],
    reporters: ['default'],
  },
});
