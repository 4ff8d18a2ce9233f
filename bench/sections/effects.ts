import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Row, SectionResult } from '../report';
import { httpClient, shell, TOKEN } from '../server';
import { ms, ratio, round, summarize, timeSequential } from '../stats';
import { startServer, type RunningServer } from '../../test/helpers/serverProcess';

/**
 * What command preview and checkpoints cost (issue 31), on the workspace the issue names: 50,000 files, 200 MB of
 * them in node_modules. One command that changes one file (`sh -c 'date … > src/stamp.txt'`), sandboxed, sequential
 * calls, each configuration in a server of its own against the same workspace; the baseline is the same server with
 * neither (same run). The preview's card is answered at once by the client's elicitation (its round trip counts).
 */

/** The workspace: `node_modules` of 40,000 files (200 MB) and 10,000 source files (1 KB each), 50,000 in all. */
function bigWorkspace(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const put = (p: string, size: number, seed: number) => {
    const body = Buffer.alloc(size, 97 + (seed % 26));
    body.write(`${p}\n`);
    fs.writeFileSync(p, body);
    files++;
    bytes += size;
  };
  for (let pkg = 0; pkg < 2000; pkg++) {
    const d = path.join(dir, 'node_modules', `pkg-${pkg}`, 'lib');
    fs.mkdirSync(d, { recursive: true });
    for (let f = 0; f < 20; f++) put(path.join(d, `m${f}.js`), 5 * 1024, pkg + f);
  }
  for (let mod = 0; mod < 500; mod++) {
    const d = path.join(dir, 'src', `mod-${mod}`);
    fs.mkdirSync(d, { recursive: true });
    for (let f = 0; f < 20; f++) put(path.join(d, `f${f}.ts`), 1024, mod + f);
  }
  return { files, bytes };
}

/** Bytes below a folder (regular files only; the content-addressed store's size). */
function bytesIn(dir: string): number {
  let total = 0;
  const visit = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
      if (e.isDirectory()) visit(path.join(p, e.name));
      else if (e.isFile()) total += fs.statSync(path.join(p, e.name)).size;
    }
  };
  if (fs.existsSync(dir)) visit(dir);
  return total;
}

const CHANGE = ['sh', '-c', 'date +%s%N > src/stamp.txt'];

interface Measured {
  /** The first call (a checkpoint's first walk hashes the whole recorded tree). */
  readonly first: number;
  readonly p50: number;
  readonly p95: number;
  readonly effect: string;
}

async function measure(root: string, state: string, flags: readonly string[], calls: number): Promise<Measured> {
  let server: RunningServer | undefined;
  let client: Client | undefined;
  try {
    server = await startServer(
      ['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--mode', 'auto', '--allow', 'sh', '--edit-backup', 'storage', '--approver', 'elicitation', ...flags],
      { XDG_STATE_HOME: state },
    );
    client = await httpClient(server.url, TOKEN, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
    const one = async () => {
      const s = await shell(client!, CHANGE);
      if (s.outcome !== 'ok') throw new Error(`${flags.join(' ')}: ${JSON.stringify(s).slice(0, 300)}`);
      return s;
    };
    const t0 = performance.now();
    const firstResult = await one();
    const first = performance.now() - t0;
    for (let i = 0; i < Math.min(5, calls); i++) await one();
    let effect = '';
    const times = summarize(await timeSequential(calls, async () => void (effect = String((await one()).effect?.outcome ?? 'none'))));
    return { first, p50: times.p50, p95: times.p95, effect: `${firstResult.effect?.outcome ?? 'none'} / ${effect}` };
  } finally {
    await client?.close().catch(() => {});
    await server?.stop();
  }
}

export async function effects(calls: number): Promise<SectionResult> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-bench-effects-')));
  try {
    const big = path.join(base, 'big');
    const small = path.join(base, 'small');
    fs.mkdirSync(path.join(small, 'src'), { recursive: true });
    fs.mkdirSync(big);
    const t0 = performance.now();
    const made = bigWorkspace(big);
    const madeSeconds = (performance.now() - t0) / 1000;
    const state = (name: string) => path.join(base, `state-${name}`);
    const store = (name: string) => path.join(state(name), 'guarded-shell', 'backups');

    const plain = await measure(big, state('plain'), ['--command-preview', 'off', '--no-checkpoints'], calls);
    const preview = await measure(big, state('preview'), ['--command-preview', 'all', '--no-checkpoints'], calls);
    const previewSmall = await measure(small, state('preview-small'), ['--command-preview', 'all', '--no-checkpoints'], calls);
    const plainSmall = await measure(small, state('plain-small'), ['--command-preview', 'off', '--no-checkpoints'], calls);
    const checkpoint = await measure(big, state('checkpoint'), ['--command-preview', 'off'], calls);
    const checkpointBytes = bytesIn(store('checkpoint'));
    // Everything recorded, node_modules too (a glob that matches nothing replaces the default ignore list).
    const all = await measure(big, state('checkpoint-all'), ['--command-preview', 'off', '--checkpoint-ignore', '.nothing-ignored'], Math.min(calls, 20));
    const allBytes = bytesIn(store('checkpoint-all'));
    const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

    const rows: Row[] = [
      { measurement: 'change one file, sandboxed, neither (baseline) p50', result: ms(plain.p50), baseline: '', ratio: '' },
      { measurement: 'preview (copy-on-write view, card answered at once, Apply) p50', result: ms(preview.p50), baseline: `neither ${ms(plain.p50)}`, ratio: ratio(preview.p50, plain.p50) },
      { measurement: 'preview: added latency per command (p50)', result: ms(preview.p50 - plain.p50), baseline: '', ratio: '' },
      {
        measurement: 'preview: added latency, 50,000-file workspace vs an empty one (nothing is copied up front)',
        result: ms(preview.p50 - plain.p50), baseline: `empty ${ms(previewSmall.p50 - plainSmall.p50)}`, ratio: ratio(preview.p50 - plain.p50, previewSmall.p50 - plainSmall.p50),
      },
      { measurement: 'checkpoint (node_modules ignored): first command', result: ms(checkpoint.first), baseline: `neither ${ms(plain.first)}`, ratio: ratio(checkpoint.first, plain.first) },
      { measurement: 'checkpoint (node_modules ignored) p50', result: ms(checkpoint.p50), baseline: `neither ${ms(plain.p50)}`, ratio: ratio(checkpoint.p50, plain.p50) },
      { measurement: 'checkpoint: added latency per command (p50)', result: ms(checkpoint.p50 - plain.p50), baseline: '', ratio: '' },
      { measurement: 'checkpoint store (node_modules ignored)', result: mib(checkpointBytes), baseline: `workspace ${mib(made.bytes)}`, ratio: ratio(checkpointBytes, made.bytes) },
      { measurement: 'checkpoint recording node_modules too: first command', result: ms(all.first), baseline: `neither ${ms(plain.first)}`, ratio: ratio(all.first, plain.first) },
      { measurement: 'checkpoint recording node_modules too: p50', result: ms(all.p50), baseline: `neither ${ms(plain.p50)}`, ratio: ratio(all.p50, plain.p50) },
      { measurement: 'checkpoint store recording node_modules too', result: mib(allBytes), baseline: `workspace ${mib(made.bytes)}`, ratio: ratio(allBytes, made.bytes) },
    ];
    return {
      id: 'effects',
      title: 'Command preview and checkpoints (50,000 files, 200 MB node_modules)',
      rows,
      data: { calls, workspace: { ...made, seconds: round(madeSeconds) }, plain, preview, previewSmall, plainSmall, checkpoint, checkpointBytes, checkpointAll: all, checkpointAllBytes: allBytes },
      notes: [
        `The workspace: ${made.files} files, ${mib(made.bytes)} (node_modules: 40,000 files of 5 KiB; src: 10,000 of 1 KiB). Each configuration is a server of its own (--isolation required --mode auto), ${calls} sequential calls after warm-up; "first" is the first call of the server.`,
        'The baseline itself is slower on the big workspace than on an empty one (the sandbox looks for nested .git folders and protected paths below the root on every call, bounded at 50,000 entries; a stat per folder once their listings are kept, src/core/isolation/protectedScan.ts): compare each configuration with the baseline on the same workspace.',
        'Preview: the mount step (unshare, mount --bind, mount -t overlay) in front of bubblewrap, reading the upper layer, one lgetxattr helper (perl) for the folders over workspace folders, the elicitation round trip of the card, and Apply through the file writer (with the Undo backup).',
        'Checkpoint: before and after the command a walk that stats every recorded file (node_modules is in the default checkpointIgnore), reading only what changed; the store holds one copy of each recorded file\'s content. The effect outcomes (first / later) are ' +
          `${preview.effect} for the preview, ${checkpoint.effect} for checkpoints.`,
      ],
    };
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}
