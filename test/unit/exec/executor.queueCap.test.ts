import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { MAX_QUEUED_COMMANDS } from '../../../src/core/limits';
import { stage, tagged } from './helpers';

describe('executor: the command queue is capped', () => {
  it('refuses one command more than the queue holds with a clear error, and runs every accepted one', async () => {
    const ex = createExecutor({ concurrency: 1, maxQueued: 2 });
    const running = ex.run(tagged([stage('sleep', '0.6')]).spec);
    const queued = [ex.run(tagged([stage('echo', 'q1')]).spec), ex.run(tagged([stage('echo', 'q2')]).spec)];
    expect(ex.queued).toBe(2);
    const refused = await ex.run(tagged([stage('echo', 'too many')]).spec);
    expect(refused.outcome).toBe('error');
    expect(refused.error).toMatch(/command queue is full \(2 commands are waiting/);
    expect(refused.stdout).toBe('');
    expect((await running).outcome).toBe('ok');
    expect((await Promise.all(queued)).map((r) => r.stdout)).toEqual(['q1\n', 'q2\n']);
    // Once the queue drained there is room again.
    expect((await ex.run(tagged([stage('echo', 'again')]).spec)).stdout).toBe('again\n');
  });

  it('has a documented default', () => {
    expect(MAX_QUEUED_COMMANDS).toBeGreaterThanOrEqual(16);
  });
});
