import { describe, expect, it } from 'vitest';
import { createExecutor } from '../../../src/core/exec/executor';
import { rssKb, sh, stage, survivors, tagged } from './helpers';

// The default per-stream limit (MCP_SHELL_OUTPUT_LIMIT_BYTES); the kept text is held ~3 times (chunks, joined, string).
const LIMIT = 1024 * 1024;
const TOTAL = 50_000_000;

/** Runs `fn` while sampling this process's VmRSS every 5 ms; returns the peak growth over the start, in kB. */
async function peakRssGrowth(fn: () => Promise<void>): Promise<number> {
  const before = rssKb();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb())), 5);
  try {
    await fn();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, rssKb()) - before;
}

describe('executor: output bigger than the limit', () => {
  it('keeps the first bytes of a 50 MB output without growing the server memory', async () => {
    const ex = createExecutor({ concurrency: 1 });
    // Warm up so the measured run does not pay for first-use allocations (module code, pools).
    await ex.run(tagged([stage('head', '-c', '2000000', '/dev/zero')]).spec);
    const { tag, spec } = tagged([stage('head', '-c', String(TOTAL), '/dev/zero')], { outputLimitBytes: LIMIT });
    let result: Awaited<ReturnType<typeof ex.run>> | undefined;
    const growthKb = await peakRssGrowth(async () => {
      result = await ex.run(spec);
    });
    console.log(`50 MB output: RSS growth ${growthKb} kB, read ${result!.stdoutBytes} bytes before stopping`);
    expect(result!.outcome).toBe('output_limit');
    expect(result!.stdoutTruncated).toBe(true);
    expect(result!.stdout.length).toBe(LIMIT);
    expect(result!.stdout).toBe('\0'.repeat(LIMIT));
    expect(growthKb).toBeLessThan(8 * 1024);
    expect(survivors(tag)).toEqual([]);
  });

  it('stops reading at the limit, so a writer that ignores SIGTERM and SIGPIPE cannot push 50 MB into the server', async () => {
    const ex = createExecutor({ concurrency: 1, killGraceMs: 1000 });
    const { tag, spec } = tagged([sh(`trap "" TERM PIPE; head -c ${TOTAL} /dev/zero; sleep 300`)], { outputLimitBytes: LIMIT });
    let result: Awaited<ReturnType<typeof ex.run>> | undefined;
    const growthKb = await peakRssGrowth(async () => {
      result = await ex.run(spec);
    });
    console.log(`50 MB writer ignoring TERM+PIPE: RSS growth ${growthKb} kB, read ${result!.stdoutBytes} bytes`);
    expect(result!.outcome).toBe('output_limit');
    expect(result!.stdout.length).toBe(LIMIT);
    expect(result!.stdoutBytes).toBeLessThan(LIMIT + 512 * 1024);
    expect(result!.signal).toBe('SIGKILL');
    expect(growthKb).toBeLessThan(8 * 1024);
    expect(survivors(tag)).toEqual([]);
  });
});
