import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_SAFE_PATH } from '../../../src/core/exec/env';
import { findPidsWithEnv } from '../../../src/core/exec/processes';
import type { ExecSpec, ExecStage } from '../../../src/core/exec/types';

/** Name of a test-only variable: each test tags its children so it can count ITS survivors in /proc. */
export const TAG_NAME = 'GS_EXEC_TEST_TAG';

/**
 * How stages start: spawned by Node (the executor's own tests), or through the containment zygote (the
 * `*.zygote.test.ts` files run the same suites that way, so both launch paths meet the same expectations).
 */
let zygotePerl: string | undefined;
export function startThroughZygote(perl: string): void {
  zygotePerl = perl;
}

export function stage(file: string, ...args: string[]): ExecStage {
  return zygotePerl ? { file, args, zygote: zygotePerl } : { file, args };
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
