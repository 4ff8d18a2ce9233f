import { spawnCount } from '../baseline';
import type { Row, SectionResult } from '../report';
import { echoHello, httpClient, shell, startHttp } from '../server';
import { rssKb, sleep } from '../../test/helpers/procs';
import { mb, ms, round } from '../stats';

const BYTES = 50 * 1024 * 1024;
/** 63 characters + newline: text, so the returned prefix is plain JSON, not \u0000 escapes. */
const LINE = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
/**
 * The default keeps head and tail, so all 50 MB cross into the server (drained, not cut): the target bounds the
 * growth (stream chunks awaiting GC), and the second call shows it does not add up.
 */
export const PEAK_GROWTH_TARGET_KB = 64 * 1024;

/**
 * A 50 MB command (`yes LINE | head -c 50MiB`) through the server with its default 1 MiB output limit (outcome ok:
 * the first and last 512 KiB are kept). The
 * server's resident memory is sampled from /proc every 5 ms before, during and after the call.
 */
export async function largeOutput(): Promise<SectionResult> {
  const t0 = performance.now();
  const baseBytes = await spawnCount('sh', ['-c', `yes ${LINE} | head -c ${BYTES}`]);
  const baseMs = performance.now() - t0;

  const server = await startHttp();
  try {
    const pid = server.proc.pid!;
    const client = await httpClient(server.url);
    for (let i = 0; i < 20; i++) await echoHello(client);
    await sleep(500);
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) {
      idle.push(rssKb(pid));
      await sleep(10);
    }
    const before = Math.max(...idle);
    const during: number[] = [];
    let running = true;
    const sampler = (async () => {
      while (running) {
        during.push(rssKb(pid));
        await sleep(5);
      }
    })();
    const t = performance.now();
    const s = await shell(client, ['yes', LINE, '|', 'head', '-c', String(BYTES)]);
    const elapsed = performance.now() - t;
    running = false;
    await sampler;
    await sleep(1000);
    const after = rssKb(pid);
    // A second one, to see whether the growth is a one-time warm-up (buffers, JIT) or per call.
    const s2 = await shell(client, ['yes', LINE, '|', 'head', '-c', String(BYTES)]);
    await sleep(500);
    const after2 = rssKb(pid);
    await client.close();
    const peak = Math.max(before, ...during);
    const growth = peak - before;
    const returned = Buffer.byteLength(String(s.stdout ?? ''), 'utf8');
    const rows: Row[] = [
      { measurement: '50 MB output: time to response', result: ms(elapsed), baseline: `spawn, read all: ${ms(baseMs)}`, ratio: '' },
      { measurement: '50 MB output: bytes returned / produced', result: `${returned} / ${s.stdoutBytes} (outcome ${s.outcome}, truncated ${s.stdoutTruncated})`, baseline: `${baseBytes} read`, ratio: '' },
      { measurement: '50 MB output: server RSS before / peak / after', result: `${mb(before)} / ${mb(peak)} / ${mb(after)}`, baseline: '', ratio: '' },
      { measurement: '50 MB output: peak RSS growth over idle', result: mb(growth), baseline: '', ratio: growth <= PEAK_GROWTH_TARGET_KB ? '<= 64 MB MET' : '> 64 MB MISSED' },
      { measurement: '50 MB output: RSS after a 2nd call', result: `${mb(after2)} (outcome ${s2.outcome})`, baseline: '', ratio: '' },
    ];
    return {
      id: 'largeOutput',
      title: 'Large output: 50 MB, default 1 MiB capture limit (keep head and tail)',
      rows,
      notes: [`RSS from /proc/<pid>/status VmRSS, ${during.length} samples during the call; "before" is the highest of 20 idle samples after 20 warm-up calls.`],
      data: { bytesProduced: BYTES, elapsedMs: round(elapsed), baselineMs: round(baseMs), baselineBytes: baseBytes, returnedBytes: returned, result: { outcome: s.outcome, stdoutBytes: s.stdoutBytes, stdoutTruncated: s.stdoutTruncated }, rssKb: { before, peak, after, after2, growth, samples: during.length } },
    };
  } finally {
    await server.stop();
  }
}
