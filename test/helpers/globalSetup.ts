import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestProject } from 'vitest/node';
import { setup as build } from './build';
import { CAPABILITIES, probeCapabilities, strict, summaryLine, type CapabilityMap } from './capabilities';
import { LAUNCHER_PATH } from '../../scripts/launcher.mjs';

/**
 * Once per run, before any test file: build dist/ (the integration tests start the real dist/cli.js and
 * dist/server.js, so no file may depend on another having built it) and probe what the machine can do. At the
 * end: one line per missing capability, so a skipped suite is never silent.
 */

let probed: CapabilityMap | undefined;
let stateHome: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Servers started by the tests keep their state (the commands' HOME, backups) below XDG_STATE_HOME: a temp
  // folder for the run, inherited by every worker and server process, never the real home folder.
  stateHome = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-test-state-'));
  process.env.XDG_STATE_HOME = stateHome;
  build();
  // The config's `define` (where the fork server is) reaches the test files, not this file: the probes need it too.
  Object.assign(globalThis, { GUARDED_SHELL_LAUNCHER: LAUNCHER_PATH });
  probed = await probeCapabilities();
  project.provide('capabilities', probed);
}

export function teardown(): void {
  if (stateHome) fs.rmSync(stateHome, { recursive: true, force: true });
  if (!probed) return;
  const missing = CAPABILITIES.filter((n) => !probed![n].available);
  if (missing.length === 0) return;
  const lines = missing.map((n) => `  ${summaryLine(n, probed![n], strict())}`);
  process.stdout.write(`\n== Capabilities this machine lacks (${strict() ? 'strict: the tests that need them failed' : 'their tests were skipped; GUARDED_SHELL_STRICT=1 makes this a failure'})\n${lines.join('\n')}\n\n`);
}
