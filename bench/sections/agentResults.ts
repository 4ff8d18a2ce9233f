import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Row, SectionResult } from '../report';
import { httpClient, startHttp, structured } from '../server';
import { round } from '../stats';

/**
 * What an agent pays and waits for (issue 14): the size of tools/list (sent with every model request), and a
 * 20,000-line file rewritten completely with writeFile while a second client keeps calling listFiles.
 */
export async function agentResults(): Promise<SectionResult> {
  const server = await startHttp(['--mode', 'auto']);
  try {
    const a = await httpClient(server.url);
    const b = await httpClient(server.url);
    const list = await a.listTools();
    const listBytes = JSON.stringify(list).length;

    const lines = (tag: string) => Array.from({ length: 20_000 }, (_, i) => `${tag} line ${i} of twenty thousand`).join('\n') + '\n';
    const ws = /--cwd (\S+)/.exec(server.proc.spawnargs.join(' '))?.[1];
    if (!ws) throw new Error('no workspace in the server arguments');
    // One warm-up rewrite of another file (JIT, first-use allocations), as the other sections warm up.
    fs.writeFileSync(path.join(ws, 'warm.txt'), lines('cold'));
    const tw = performance.now();
    await a.callTool({ name: 'writeFile', arguments: { file: 'warm.txt', text: lines('warm') } });
    const firstMs = performance.now() - tw;
    fs.writeFileSync(path.join(ws, 'big.txt'), lines('old'));
    const waits: number[] = [];
    let done = false;
    const t = performance.now();
    const write = a.callTool({ name: 'writeFile', arguments: { file: 'big.txt', text: lines('new') } }).finally(() => (done = true));
    while (!done) {
      const s = performance.now();
      await b.callTool({ name: 'listFiles', arguments: {} });
      waits.push(performance.now() - s);
    }
    const r = await write;
    const rewriteMs = performance.now() - t;
    const answer = (r as { content: { text: string }[] }).content[0]!.text.length;
    const sc = structured(r);
    await a.close();
    await b.close();
    const slowest = Math.max(...waits);
    const rows: Row[] = [
      { measurement: 'tools/list JSON, 14 tools', result: `${listBytes} bytes`, baseline: 'before issue 14: 30.7 KB', ratio: listBytes <= 10 * 1024 ? '<= 10 KB MET' : '> 10 KB MISSED' },
      { measurement: 'writeFile: 20,000 lines rewritten completely', result: `${round(rewriteMs)} ms (outcome ${sc.outcome}); first one in the process ${round(firstMs)} ms`, baseline: 'before: did not finish in 290 s', ratio: '' },
      { measurement: 'writeFile: answer to the model', result: `${answer} characters (diff cut: ${sc.diffTruncated === true})`, baseline: 'before: 229 KB', ratio: '' },
      { measurement: "second client's listFiles during the rewrite", result: `${waits.length} calls, slowest ${round(slowest)} ms`, baseline: '', ratio: slowest <= 100 ? '<= 100 ms MET' : '> 100 ms MISSED' },
    ];
    return { id: 'agentResults', title: 'Agent results: tool list size, a 20,000-line rewrite beside a second client', rows, notes: ['Mode auto, no sandbox; the diff searches at most 400 line edits, then shows the change as one replacement hunk; the answer carries a summary and the first 8 KB. Both clients live in the bench process, so a listFiles wait includes that process sending the 1 MB request and reading the answer.'], data: { listBytes, firstMs: round(firstMs), rewriteMs: round(rewriteMs), answer, waits: waits.map(round) } };
  } finally {
    await server.stop();
  }
}
