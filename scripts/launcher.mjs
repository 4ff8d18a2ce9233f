// The Linux launcher's fork server (src/core/exec/launch/forkServer.c), compiled into dist/guarded-shell-launcher by
// every build (esbuild.mjs) with the machine's C compiler (`cc`, or $CC), statically linked where the C library allows
// it (so the binary of a .vsix runs on any Linux of its architecture). Where there is no compiler, or not Linux, the
// build says so in one line and the launcher takes its exec chain (docs/isolation.md).
//
// Where the code finds it (src/core/exec/launch/forkServer.ts, GUARDED_SHELL_LAUNCHER): the shipped bundles look
// beside themselves; code run from the sources (vitest, the bench, the scripted agent) is told the checkout's dist/.
// Code told neither has no fork server, never one found by guessing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const LAUNCHER_NAME = 'guarded-shell-launcher';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'src', 'core', 'exec', 'launch', 'forkServer.c');
export const LAUNCHER_PATH = path.join(root, 'dist', LAUNCHER_NAME);

/** The esbuild/vitest `define` for bundles in dist/ (beside them: a bare name) or code run from the sources (a path). */
export const besideTheBundle = { GUARDED_SHELL_LAUNCHER: JSON.stringify(LAUNCHER_NAME) };
export const inTheCheckout = { GUARDED_SHELL_LAUNCHER: JSON.stringify(LAUNCHER_PATH) };

// -s: no symbol table (a static binary is mostly the C library's; stripped, it packs to about 370 KB).
const FLAGS = ['-O2', '-s', '-Wall', '-Wextra', '-o'];

/**
 * Compiles the fork server into `out` (dist/) unless the binary there says it was built from this source with this
 * compiler and these flags (its build id: a binary built by hand, or from other source, is built again, whatever its
 * times); written under a temporary name and renamed, so a failed or interrupted build never leaves half a binary.
 * True when `out` has a current one.
 */
export function buildLauncher({ quiet = false, out = LAUNCHER_PATH } = {}) {
  const say = (line) => process.stderr.write(`launcher: ${line}\n`);
  if (process.platform !== 'linux') {
    fs.rmSync(out, { force: true });
    return false;
  }
  const cc = process.env.CC || 'cc';
  const id = createHash('sha256').update(fs.readFileSync(source)).update(`\0${cc}\0${FLAGS.join(' ')}`).digest('hex');
  const stamp = Buffer.from(`guarded-shell-launcher-build ${id}\0`);
  try {
    if (fs.readFileSync(out).includes(stamp)) return true;
  } catch {
    // not built yet
  }
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const temp = `${out}.${process.pid}.tmp`;
  const flags = [`-DGUARDED_SHELL_BUILD_ID="${id}"`, ...FLAGS];
  // Static first (no dependency on the C library of the machine it runs on); dynamic where there is no static libc.
  let r = spawnSync(cc, ['-static', ...flags, temp, source], { encoding: 'utf8' });
  if (r.status !== 0 && !r.error) r = spawnSync(cc, [...flags, temp, source], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    fs.rmSync(temp, { force: true });
    fs.rmSync(out, { force: true });
    say(r.error ? `no C compiler (${cc}: ${r.error.code}): no fork server in dist/; commands start by the exec chain (install gcc for it)` : `${cc} failed (the exec chain will be used):\n${r.stderr}`);
    return false;
  }
  if (r.stderr.trim() && !quiet) say(r.stderr.trim());
  fs.chmodSync(temp, 0o755);
  fs.renameSync(temp, out);
  return true;
}
