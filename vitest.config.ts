import { defineConfig } from 'vitest/config';
import { perlAsText } from './test/helpers/perlAsText';

export default defineConfig({
  plugins: [perlAsText],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/conformance/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/webview/**/*.test.ts', 'test/packaging/**/*.test.ts'],
    // Builds dist/ once and probes bubblewrap, Chromium, gawk, bsdtar and Node 22 once (see test/helpers/needs.ts).
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Kill and memory tests measure real processes: keep files from competing for the 2 cores.
    fileParallelism: false,
    reporters: ['default'],
  },
});
