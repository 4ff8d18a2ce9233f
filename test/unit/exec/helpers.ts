import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_SAFE_PATH } from '../../../src/core/exec/env';
import { findPidsWithEnv } from '../../../src/core/exec/processes';
import type { Launcher } from '../../../src/core/exec/launch/contract';
import { plainLinuxLauncher } from '../../../src/core/exec/launch';
import type { ExecSpec, ExecStage } from '../../../src/core/exec/types';

/** Name of a test-only variable: each test tags its children so it can count ITS survivors in /proc. */
export const TAG_NAME = 'GS_EXEC_TEST_TAG';

/**
 * The launcher the stages are prepared and started by: the plain one for the executor's own tests (its
 * supervision, not the containment); the conformance suite (test/conformance) runs the same suites through every
 * launcher path of the platform with `useLauncher`.
 */
let launcher: Launcher = plainLinuxLauncher();
export function useLauncher(l: Launcher): void {
  launcher = l;
}
export function currentLauncher(): Launcher {
  return launcher;
}

export function stage(file: string, ...args: string[]): ExecStage {
  return launcher.prepare({ file, args });
}

export function sh(script: string): ExecStage {
  return stage('sh', '-c', script);
}

export interface Tagged {
  readonly tag: string;
  readonly spec: ExecSpec;
}

/** A spec with a fresh tag in its environment; `extra` overrides the defaults. */
export function tagged(stages: ExecStage[], extra: Partial<ExecSpec> = {}): Tagged {
  const tag = randomUUID();
  const spec: ExecSpec = {
    stages,
    launcher,
    cwd: os.tmpdir(),
    env: { PATH: DEFAULT_SAFE_PATH, [TAG_NAME]: tag },
    timeoutMs: 20_000,
    outputLimitBytes: 1024 * 1024,
    ...extra,
  };
  return { tag, spec };
}

/** Live (non-zombie) processes still carrying the tag: must be 0 once a call has returned. */
export function survivors(tag: string): number[] {
  return findPidsWithEnv(TAG_NAME, tag);
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'gs-exec-'));
}

export function rssKb(): number {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!m) throw new Error('no VmRSS in /proc/self/status');
  return Number(m[1]);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
