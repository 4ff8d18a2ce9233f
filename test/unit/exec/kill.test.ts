import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { killProcessTrees } from '../../../src/core/exec/kill';
import { isProcessAlive, RUN_MARKER_NAME } from '../../../src/core/exec/processes';
import { killAll } from '../../helpers/procs';

// killProcessTrees on real processes (src/core/exec/kill.ts); the executor's suites stop whole calls with it.
const started: number[] = [];
afterEach(() => killAll(started.splice(0)));

describe('killProcessTrees', () => {
  // A namespaced call's stages can be gone before it is stopped (an output limit passed after the end): no group
  // of the call is left to signal, but a process outside its namespace may still hold its pipes.
  it('kills a process that carries the run marker when no group of the run is left', async () => {
    const runId = randomUUID().replace(/-/g, '');
    const holder = spawn('sleep', ['300'], { env: { PATH: process.env.PATH, [RUN_MARKER_NAME]: runId }, stdio: 'ignore', detached: true });
    started.push(holder.pid!);
    const gone = new Promise((resolve) => holder.once('exit', resolve));
    await killProcessTrees({ pgids: [], runId }, 0);
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 2000))]);
    expect(isProcessAlive(holder.pid!)).toBe(false);
  });
});
