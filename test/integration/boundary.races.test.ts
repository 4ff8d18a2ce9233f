import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { startSwapper, type Swapper } from '../helpers/swapper';
import { strict } from '../helpers/capabilities';
import { has, requires } from '../helpers/needs';

/**
 * Issue 12, "check-then-use" and "races in the file tools": the real server (with bubblewrap and without), and a
 * concurrent python3 process that swaps a folder or a file for a symbolic link to outside (renameat2
 * RENAME_EXCHANGE) as fast as it can while the calls run. A bounded number of calls per attack; the attack wins
 * if anything outside changes or any call returns the outside secret. It must never win.
 */
const ROUNDS = 30;
const SECRET = 'OUTSIDE-SECRET';


requires('python3');
// The sandboxed variant runs where bubblewrap works, and always under GUARDED_SHELL_STRICT (where its absence must fail).
const isolations = ['none', ...(has('bubblewrap') || strict() ? ['required'] : [])] as const;

let base: string;
let root: string;
let outside: string;

function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      out.push(`${path.relative(dir, p)}:${st.mode.toString(8)}:${e.isFile() ? fs.readFileSync(p, 'utf8') : e.isSymbolicLink() ? fs.readlinkSync(p) : ''}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.join('\n');
}

function layout(): void {
  for (const d of [root, outside]) for (const e of fs.readdirSync(d)) fs.rmSync(path.join(d, e), { recursive: true, force: true });
  fs.writeFileSync(path.join(outside, 'data.txt'), `${SECRET}\n`);
  fs.writeFileSync(path.join(outside, 'victim.txt'), `${SECRET} victim\n`);
  fs.writeFileSync(path.join(outside, 'f.txt'), `${SECRET} f\n`);
  fs.mkdirSync(path.join(root, 'sub'));
  fs.writeFileSync(path.join(root, 'sub', 'data.txt'), 'inside data\n');
  fs.writeFileSync(path.join(root, 'sub', 'f.txt'), 'inside f\n');
  fs.symlinkSync(outside, path.join(root, 'sublink')); // what the attacker swaps in for sub/
  fs.writeFileSync(path.join(root, 'file.txt'), 'inside file\n');
  fs.symlinkSync(path.join(outside, 'data.txt'), path.join(root, 'file-link')); // swapped in for file.txt
}

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-races-')));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe.each(isolations)('races against a concurrent swapper (isolation %s)', (isolation) => {
  let server: RunningServer;
  let client: Client;
  let swapper: Swapper | undefined;
  let before: string;

  beforeAll(async () => {
    server = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', isolation, '--mode', 'auto', '--allow', 'echo', 'cat', 'touch']);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });
  beforeEach(() => {
    layout();
    before = snapshot(outside);
  });
  afterEach(async () => {
    const exchanges = await swapper?.stop();
    swapper = undefined;
    // The attacker really ran during the calls (where a test started one), and nothing outside changed.
    if (exchanges !== undefined) expect(exchanges).toBeGreaterThan(ROUNDS);
    expect(snapshot(outside)).toBe(before);
  });

  const tool = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 });
    return { text: JSON.stringify(r.content ?? ''), s: structured(r) };
  };
  const folderSwap = async () => (swapper = await startSwapper(path.join(root, 'sub'), path.join(root, 'sublink')));
  const fileSwap = async () => (swapper = await startSwapper(path.join(root, 'file.txt'), path.join(root, 'file-link')));
  const rounds = async (fn: (i: number) => Promise<void>) => {
    for (let i = 0; i < ROUNDS; i++) await fn(i);
  };

  it('output redirect (>, >>) into a folder swapped for a link never lands outside', async () => {
    await folderSwap();
    await rounds(async (i) => {
      await tool('shell_execute', { command: ['echo', 'pwned', i % 2 ? '>>' : '>', 'sub/f.txt'] });
      await tool('shell_execute', { command: ['echo', 'pwned', '>', 'sub/new.txt'] });
    });
  });

  it('a working directory swapped for a link never runs a command outside', async () => {
    await folderSwap();
    await rounds(async (i) => {
      await tool('shell_execute', { command: ['touch', `pwned${i}`], directory: 'sub' });
      await tool('shell_execute', { command: ['echo', 'x', '>', `out${i}`], directory: 'sub' });
    });
  });

  it('input redirect (<) from a folder or file swapped for a link never reads outside', async () => {
    await folderSwap();
    await rounds(async () => {
      const r = await tool('shell_execute', { command: ['cat', '<', 'sub/data.txt'] });
      expect(r.text).not.toContain(SECRET);
    });
    await swapper!.stop();
    await fileSwap();
    await rounds(async () => {
      const r = await tool('shell_execute', { command: ['cat', '<', 'file.txt'] });
      expect(r.text).not.toContain(SECRET);
    });
  });

  it('readFile and copyFile never return or copy an outside file', async () => {
    await fileSwap();
    await rounds(async (i) => {
      expect((await tool('readFile', { file: 'file.txt' })).text).not.toContain(SECRET);
      await tool('copyFile', { source: 'file.txt', destination: `copy${i}.txt` });
      if (fs.existsSync(path.join(root, `copy${i}.txt`))) expect(fs.readFileSync(path.join(root, `copy${i}.txt`), 'utf8')).not.toContain(SECRET);
    });
    await swapper!.stop();
    await folderSwap();
    await rounds(async (i) => {
      expect((await tool('readFile', { file: 'sub/data.txt' })).text).not.toContain(SECRET);
      await tool('copyFile', { source: 'sub/data.txt', destination: `dcopy${i}.txt` });
      if (fs.existsSync(path.join(root, `dcopy${i}.txt`))) expect(fs.readFileSync(path.join(root, `dcopy${i}.txt`), 'utf8')).not.toContain(SECRET);
    });
  });

  it('writeFile, editFile, replaceInFile and applyPatch never change an outside file', async () => {
    await folderSwap();
    await rounds(async (i) => {
      await tool('writeFile', { file: 'sub/f.txt', text: `written ${i}` });
      await tool('writeFile', { file: `sub/new${i}.txt`, text: 'new' });
      await tool('replaceInFile', { file: 'sub/f.txt', oldText: 'written', newText: 'replaced' });
      await tool('editFile', { file: 'sub/data.txt', script: 's/inside/edited/' });
    });
    await swapper!.stop();
    await fileSwap();
    await rounds(async (i) => {
      await tool('writeFile', { file: 'file.txt', text: `written ${i}` });
      await tool('editFile', { file: 'file.txt', script: 's/written/edited/' });
    });
  });

  it('mkdir, deleteFile, moveRenameFile and rmdir never act outside', async () => {
    // The real folder, held by descriptor: the test refills it whatever name it has at the moment.
    const real = fs.openSync(path.join(root, 'sub'), 'r');
    await folderSwap();
    await rounds(async (i) => {
      await tool('mkdir', { path: `sub/dir${i}/deeper`, parents: true });
      fs.writeFileSync(`/proc/self/fd/${real}/victim.txt`, 'inside victim\n');
      fs.writeFileSync(`/proc/self/fd/${real}/f.txt`, 'inside f\n');
      await tool('deleteFile', { file: 'sub/victim.txt' });
      await tool('moveRenameFile', { source: 'sub/f.txt', destination: `moved${i}.txt` });
      await tool('rmdir', { path: `sub/dir${i}/deeper` });
    });
    fs.closeSync(real);
  });

  it('what was approved is what is written: a change made during the approval wait is refused', async () => {
    const confirm = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', isolation, '--mode', 'confirm', '--allow', 'echo']);
    const c = await httpClient(confirm.url, TOKEN, { elicitation: {} });
    let during: () => void = () => undefined;
    c.setRequestHandler(ElicitRequestSchema, async () => {
      during();
      return { action: 'accept', content: { approve: true } };
    });
    try {
      // The file changes while the person reads the diff.
      during = () => fs.writeFileSync(path.join(root, 'sub', 'f.txt'), 'changed by someone else\n');
      let r = structured(await c.callTool({ name: 'writeFile', arguments: { file: 'sub/f.txt', text: 'approved text' } }));
      expect(r.error?.message ?? r.message).toMatch(/changed after the diff was made/);
      expect(fs.readFileSync(path.join(root, 'sub', 'f.txt'), 'utf8')).toBe('changed by someone else\n');
      // The folder becomes a link to outside while the person decides on a redirect into it.
      during = () => {
        fs.renameSync(path.join(root, 'sub'), path.join(root, 'sub-real'));
        fs.symlinkSync(outside, path.join(root, 'sub'));
      };
      r = structured(await c.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'pwned', '>', 'sub/.bashrc'] } }));
      expect(r.outcome).toBe('error');
      expect(r.error).toMatch(/symbolic link/);
      expect(fs.existsSync(path.join(outside, '.bashrc'))).toBe(false);
      fs.rmSync(path.join(root, 'sub'));
      fs.renameSync(path.join(root, 'sub-real'), path.join(root, 'sub'));
      // Same for a file tool: mkdir and writeFile into the folder swapped during the wait.
      r = structured(await c.callTool({ name: 'mkdir', arguments: { path: 'sub/made', parents: true } }));
      expect(r.outcome).not.toBe('ok');
      expect(fs.existsSync(path.join(outside, 'made'))).toBe(false);
    } finally {
      if (fs.lstatSync(path.join(root, 'sub')).isSymbolicLink()) {
        fs.rmSync(path.join(root, 'sub'));
        fs.renameSync(path.join(root, 'sub-real'), path.join(root, 'sub'));
      }
      await c.close();
      await confirm.stop();
    }
  });
});
