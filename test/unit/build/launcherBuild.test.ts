import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { buildLauncher } from '../../../scripts/launcher.mjs';
import { describeWith } from '../../helpers/needs';

/**
 * The build puts the fork server in dist/ and keeps it only while the binary says it was built from this source,
 * compiler and flags: a binary made by hand (a sanitizer build, another checkout's) is never shipped in its place,
 * however new its times. Built here into a temporary folder with the machine's real C compiler.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const stampOf = (file: string) => /guarded-shell-launcher-build ([0-9a-f]{64})\0/.exec(fs.readFileSync(file, 'latin1'))?.[1];

describeWith('fork-server')('the fork server\'s build', () => {
  it('builds once, keeps a current binary, and builds again over one made by hand even when that one is newer', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-launcher-build-'));
    dirs.push(dir);
    const out = path.join(dir, 'guarded-shell-launcher');
    expect(buildLauncher({ quiet: true, out })).toBe(true);
    const id = stampOf(out);
    expect(id).toBeDefined();
    const built = fs.statSync(out).ino;

    expect(buildLauncher({ quiet: true, out })).toBe(true);
    expect(fs.statSync(out).ino).toBe(built); // current: left alone

    // A hand-made binary, newer than the source: the old rule (rebuild only when the source is newer) kept it.
    fs.rmSync(out);
    fs.copyFileSync('/bin/true', out);
    const future = new Date(Date.now() + 3_600_000);
    fs.utimesSync(out, future, future);
    expect(buildLauncher({ quiet: true, out })).toBe(true);
    expect(stampOf(out)).toBe(id);
    expect(fs.readdirSync(dir)).toEqual(['guarded-shell-launcher']); // no temporary file left behind
  });
});
