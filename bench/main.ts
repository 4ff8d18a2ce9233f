import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO } from '../test/helpers/serverProcess';
import { findings } from './findings';
import { describeMachine, machine } from './machine';
import { handWrittenTail, markdownTables, textTable, type SectionResult } from './report';
import { cleanupWorkspaces } from './server';
import { agentResults } from './sections/agentResults';
import { bundles } from './sections/bundles';
import { coldStart } from './sections/coldStart';
import { effects } from './sections/effects';
import { isolation } from './sections/isolation';
import { ports } from './sections/ports';
import { kill } from './sections/kill';
import { largeOutput } from './sections/largeOutput';
import { launchers } from './sections/launchers';
import { latency, type LatencyData } from './sections/latency';
import { minimal } from './sections/minimal';
import { profile } from './sections/profile';
import { throughput } from './sections/throughput';
import { toolPath } from './sections/toolPath';
import { validation } from './sections/validation';

/**
 * `npm run bench` — every figure next to a baseline measured in the same run. Writes the table to stdout,
 * .bench/latest.json, and regenerates BENCHMARKS.md. `--quick` (or BENCH_QUICK=1) runs smaller loops and does
 * NOT touch BENCHMARKS.md (for trying the harness out).
 */
export async function main(argv: readonly string[]): Promise<number> {
  const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const n = quick ? 60 : 300;
  // --only=kill,profile runs just those sections (for working on the harness; BENCHMARKS.md is then left alone).
  const only = argv.find((a) => a.startsWith('--only='))?.slice(7).split(',');
  const partial = quick || only !== undefined;
  if (!fs.existsSync(path.join(REPO, 'dist', 'cli.js'))) {
    console.error('dist/cli.js is missing: run `node esbuild.mjs` first (npm run bench does).');
    return 1;
  }
  const m = machine();
  const started = new Date();
  const t0 = performance.now();
  console.log(`Guarded Shell benchmarks${partial ? ' (PARTIAL: --quick or --only; BENCHMARKS.md not written)' : ''} — ${describeMachine(m)}`);
  const sections: SectionResult[] = [];
  let failed = 0;
  const run = async (name: string, fn: () => Promise<SectionResult> | SectionResult): Promise<SectionResult | undefined> => {
    if (only && !only.includes(name.replace(' ', ''))) return undefined;
    process.stdout.write(`  ${name} …`);
    const t = performance.now();
    try {
      const s = { ...(await fn()), seconds: (performance.now() - t) / 1000 };
      sections.push(s);
      process.stdout.write(` ${s.seconds.toFixed(1)} s\n`);
      return s;
    } catch (e) {
      failed++;
      const msg = (e as Error).stack ?? String(e);
      process.stdout.write(` FAILED\n${msg}\n`);
      sections.push({ id: name, title: `${name} (FAILED)`, rows: [{ measurement: name, result: 'FAILED' }], data: { error: String(e) }, notes: [String(e).slice(0, 300)] });
      return undefined;
    }
  };
  try {
    await run('minimal', () => minimal(quick ? 40 : 300, quick ? 3 : 15, quick ? 8 : 25, quick ? 240 : 1200));
    const lat = await run('latency', () => latency(n));
    await run('launchers', () => launchers(quick ? 40 : 200));
    await run('throughput', () => throughput(quick ? 80 : 200));
    await run('large output', () => largeOutput());
    await run('agent results', () => agentResults());
    await run('kill', () => kill());
    await run('validation', () => validation());
    await run('cold start', () => coldStart(quick ? 2 : 5));
    await run('bundles', () => bundles(REPO));
    const noneP50 = (lat?.data as LatencyData | undefined)?.http.call.p50 ?? NaN;
    await run('isolation', () => isolation(n, noneP50));
    await run('effects', () => effects(quick ? 10 : 40));
    await run('profile', () => profile(REPO, n));
    // Opt-in (--only=toolpath): the in-process tool path, for working on the server's own per-call work.
    if (only?.includes('toolpath')) await run('toolpath', () => toolPath(quick ? 500 : 3000));
    // Opt-in (--only=ports): the port bridge of background commands (bubblewrap and python3).
    if (only?.includes('ports')) await run('ports', () => ports(quick ? 2 : 5, quick ? 50 : 200));
  } finally {
    cleanupWorkspaces();
  }
  const seconds = (performance.now() - t0) / 1000;
  const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
  const facts = findings(sections);
  console.log(textTable(sections));
  console.log('');
  for (const f of facts) console.log(`* ${f}`);
  console.log(`\nTotal ${seconds.toFixed(0)} s.`);

  const outDir = path.join(REPO, '.bench');
  fs.mkdirSync(outDir, { recursive: true });
  const json = { date: started.toISOString(), command, quick, seconds, machine: m, findings: facts, sections: sections.map(({ id, title, data, rows, notes, seconds: s }) => ({ id, title, seconds: s, data, rows, notes })) };
  fs.writeFileSync(path.join(outDir, 'latest.json'), JSON.stringify(json, null, 2));
  console.log(`JSON: ${path.relative(REPO, path.join(outDir, 'latest.json'))}`);
  if (!partial) {
    const file = path.join(REPO, 'BENCHMARKS.md');
    fs.writeFileSync(file, benchmarksMd(sections, facts, describeMachine(m), command, started, seconds) + handWrittenTail(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''));
    console.log('BENCHMARKS.md regenerated.');
  }
  return failed === 0 ? 0 : 1;
}

function benchmarksMd(sections: readonly SectionResult[], facts: readonly string[], machineText: string, command: string, date: Date, seconds: number): string {
  return [
    '# Benchmarks',
    '',
    'Generated by `npm run bench` (bench/main.ts); do not edit by hand — rerun it. Every Guarded Shell figure stands',
    'next to a baseline measured in the same run on the same machine (bare `child_process.spawn` of the same',
    'command, `node -e 0`, a naive `spawn(…, { timeout })`, and a minimal MCP SDK server with no policy —',
    'bench/minimalServer.ts), so the ratios hold even where absolute numbers move. Nothing in the security path is',
    'skipped for speed: the server measured is the one users run, with its whole pipeline.',
    '',
    `- Command: \`${command}\` (builds the shipped, minified dist/ with \`node esbuild.mjs --production --sourcemap --metafile\`, then runs \`node bench/run.mjs\`)`,
    `- Machine: ${machineText}`,
    `- Date: ${date.toISOString()}; the whole run took ${seconds.toFixed(0)} s; load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')}`,
    '- The machine is shared (other work runs beside the bench): absolute times move with its load, so read the ratios, which compare things measured side by side.',
    '- Server: `node dist/cli.js --cwd <temp dir> --port 0 --auth … --quiet --isolation none --allow …` (a real process), client: the MCP SDK\'s `Client` over Streamable HTTP and stdio.',
    '',
    '## Findings',
    '',
    ...facts.map((f) => `- ${f}`),
    '',
    '## Results',
    '',
    markdownTables(sections),
    'Raw figures of the latest run: `.bench/latest.json` (gitignored). The reliability suite is `npm run test:stress`.',
  ].join('\n');
}
