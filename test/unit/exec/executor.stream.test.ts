import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { sh, stage, survivors, tagged } from './helpers';

/**
 * What a background run needs of the executor (src/core/background): output handed over chunk by chunk while the
 * command runs, and input that arrives while it runs. Real processes; every launcher path (test/conformance).
 */
const executor = createExecutor({ concurrency: 4 });
afterAll(() => executor.shutdown());

describe('executor: output as it comes, input as it comes', () => {
  it('hands over every chunk of stdout and stderr while the command still runs, in order, each once', async () => {
    const chunks: string[] = [];
    let sawBeforeEnd = false;
    let ended = false;
    const { tag, spec } = tagged([sh('for i in 1 2 3; do echo out$i; echo err$i >&2; sleep 0.2; done')], {
      onOutput: (stream, chunk) => {
        chunks.push(`${stream}:${chunk.toString()}`);
        if (!ended) sawBeforeEnd = true;
      },
      outputLimitBytes: 0,
      outputLimitAction: 'keep',
    });
    const r = await executor.run(spec);
    ended = true;
    expect(r.outcome).toBe('ok');
    expect(sawBeforeEnd).toBe(true);
    // Kept nothing itself (limit 0): the caller's log is where the bytes are; the totals are still counted.
    expect(r.stdout).toBe('');
    expect(r.stdoutBytes).toBe(15);
    expect(r.stderrBytes).toBe(15);
    const out = chunks.filter((c) => c.startsWith('stdout:')).map((c) => c.slice(7)).join('');
    const err = chunks.filter((c) => c.startsWith('stderr:')).map((c) => c.slice(7)).join('');
    expect(out).toBe('out1\nout2\nout3\n');
    expect(err).toBe('err1\nerr2\nerr3\n');
    expect(survivors(tag)).toEqual([]);
  });

  it('feeds input written while the command runs, and its end closes the stdin', async () => {
    const input = new PassThrough();
    const seen: string[] = [];
    const { spec } = tagged([stage('cat')], { input, onOutput: (_s, c) => seen.push(c.toString()) });
    const done = executor.run(spec);
    input.write('first\n');
    await waitUntil(() => seen.join('') === 'first\n');
    input.write('second\n');
    await waitUntil(() => seen.join('') === 'first\nsecond\n');
    input.end();
    const r = await done;
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('first\nsecond\n');
  });

  it('refuses input together with stdin text', async () => {
    const r = await executor.run(tagged([stage('cat')], { input: new PassThrough(), stdin: 'x' }).spec);
    expect(r.outcome).toBe('error');
    expect(r.error).toMatch(/mutually exclusive/);
  });
});

async function waitUntil(f: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
