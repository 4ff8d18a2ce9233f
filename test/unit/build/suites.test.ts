import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONG_FILES } from '../../suites';

const REPO = path.resolve(__dirname, '../../..');

/** The split between `npm test` and `npm run test:long` (test/suites.ts) names real files, each once. */
describe('the test scripts', () => {
  it('every long file exists and is named once', () => {
    for (const f of LONG_FILES) expect(fs.existsSync(path.join(REPO, f)), f).toBe(true);
    expect(new Set(LONG_FILES).size).toBe(LONG_FILES.length);
  });

  it('CI runs the long suite, strictly, after npm test', () => {
    const ci = fs.readFileSync(path.join(REPO, '.ci/run'), 'utf8');
    expect(ci).toMatch(/export GUARDED_SHELL_STRICT=1[\s\S]*\nnpm test\n[\s\S]*\nnpm run test:long\n/);
  });
});
