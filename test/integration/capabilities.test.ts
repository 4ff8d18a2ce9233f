import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, onPath } from '../helpers/capabilities';

/**
 * The capability probes and the skip/strict switch (test/helpers/capabilities.ts, needs.ts). The probes must be
 * real (a browser stub that does not answer is not a browser), and GUARDED_SHELL_STRICT=1 must turn a skip into a
 * failure, or CI could pass by skipping.
 */

const REPO = path.resolve(__dirname, '../..');
let dir = '';
const saved = { PATH: process.env.PATH, CHROMIUM: process.env.CHROMIUM };

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-caps-')));
});
afterEach(() => {
  process.env.PATH = saved.PATH;
  if (saved.CHROMIUM === undefined) delete process.env.CHROMIUM;
  else process.env.CHROMIUM = saved.CHROMIUM;
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function script(name: string, body: string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

describe('probes', () => {
  it('finds a browser by any of its distribution names on PATH, not at a fixed path', () => {
    const bin = path.join(dir, 'bin1');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'chromium-browser'), '#!/bin/sh\necho "Chromium 140.0"\n', { mode: 0o755 });
    process.env.PATH = bin;
    delete process.env.CHROMIUM;
    expect(findChromium()).toEqual({ available: true, path: path.join(bin, 'chromium-browser') });
  });

  it('does not take a browser that does not answer --version (a snap stub, a broken install)', () => {
    const bin = path.join(dir, 'bin2');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'chromium'), '#!/bin/sh\necho "install it with snap" >&2\nexit 1\n', { mode: 0o755 });
    process.env.PATH = bin;
    delete process.env.CHROMIUM;
    const s = findChromium();
    expect(s.available).toBe(false);
    expect(s.reason).toContain('found but not working');
    expect(s.reason).toContain('install it with snap');
  });

  it('says which names it looked for when there is none', () => {
    process.env.PATH = path.join(dir, 'empty');
    delete process.env.CHROMIUM;
    expect(findChromium()).toEqual({ available: false, reason: expect.stringContaining('chromium, chromium-browser, google-chrome') });
  });

  it('takes $CHROMIUM first', () => {
    process.env.CHROMIUM = script('my-chrome', 'echo "Google Chrome 140"');
    expect(findChromium().path).toBe(path.join(dir, 'my-chrome'));
  });

  it('ignores relative PATH entries and non-executable files', () => {
    fs.mkdirSync(path.join(dir, 'bin3'));
    fs.writeFileSync(path.join(dir, 'bin3', 'gawk'), 'not a program', { mode: 0o644 });
    expect(onPath('gawk', ['relative', path.join(dir, 'bin3')].join(path.delimiter))).toEqual([]);
  });
});

describe('the skip and strict switch, in a real vitest run', () => {
  // One file with tests that need gawk, run with gawk reported missing (GUARDED_SHELL_TEST_WITHOUT).
  const run = (strict: boolean) =>
    spawnSync(process.execPath, [path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/unit/rules/realPrograms.test.ts', '-t', 'gawk'], {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, GUARDED_SHELL_TEST_WITHOUT: 'gawk', GUARDED_SHELL_STRICT: strict ? '1' : '', NO_COLOR: '1', FORCE_COLOR: '0' },
    });

  it('skips what needs a missing program and says so in one line', () => {
    const r = run(false);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Tests\s+\d+ skipped/);
    expect(r.stdout.split('\n').filter((l) => l.includes('skipped: the awk rules checked against the real gawk'))).toHaveLength(1);
    expect(r.stdout).toContain('Install: apt-get install gawk');
  }, 130_000);

  it('fails it under GUARDED_SHELL_STRICT=1', () => {
    const r = run(true);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('FAILED (GUARDED_SHELL_STRICT): the awk rules checked against the real gawk');
  }, 130_000);
});
