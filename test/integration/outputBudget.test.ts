import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commandOutputShape } from '../../src/server/tools/commandResult';
import { fileOutputShape } from '../../src/server/tools/files/result';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * Answers sized for a model (issue 29), through the real CLI and the real SDK client over HTTP: a command printing
 * 5 MB answers in at most 64 KB of JSON, the bytes travel once (structuredContent; the text names where they are),
 * and readOutput's pages give back every kept byte in order. readFile of a 20 MB file returns one page and the size.
 */
const MiB = 1024 * 1024;
let root: string;
let s: RunningServer;
let c: Client;

type Answer = { content: { type: string; text: string }[]; structuredContent?: Record<string, any>; isError?: boolean };
const call = async (name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })) as unknown as Answer;
const answerBytes = (r: Answer) => Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: r }));

/** Every page of an output, from offset 0 along "next", as the agent would read it. */
async function readAll(id: string, length?: number): Promise<{ text: string; pages: number; largest: number }> {
  let offset = 0;
  let text = '';
  let largest = 0;
  for (let pages = 1; ; pages++) {
    const r = await call('readOutput', { id, offset, ...(length !== undefined && { length }) });
    expect(r.isError ?? false).toBe(false);
    expect(r.structuredContent).toBeUndefined();
    largest = Math.max(largest, answerBytes(r));
    text += r.content[0]!.text;
    const next = /"offset":(\d+)\}\]$/.exec(r.content[1]!.text);
    if (!next) {
      expect(r.content[1]!.text).toMatch(/the end of it\]$/);
      return { text, pages, largest };
    }
    offset = Number(next[1]);
  }
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-budget-'));
  s = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--isolation', 'none', '--allow', 'cat', 'echo', 'seq', 'head']);
  c = await httpClient(s.url);
});
afterAll(async () => {
  await c?.close();
  await s?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('an output budget for models', () => {
  it('a command printing 5 MB answers in at most 64 KB of JSON; readOutput gives back every kept byte in order', async () => {
    const line = (i: number) => `${String(i).padStart(9, '0')} the quick brown fox, "quoted", tab\there\n`;
    let big = '';
    for (let i = 0; big.length < 5 * MiB; i++) big += line(i);
    big = big.slice(0, 5 * MiB);
    fs.writeFileSync(path.join(root, 'big.txt'), big);
    const r = await call('shell_execute', { command: ['cat', 'big.txt'] });
    const sc = structured(r);
    console.log(`5 MB command: answer ${answerBytes(r)} bytes of JSON, text ${r.content[0]!.text.length} chars`);
    expect(answerBytes(r)).toBeLessThanOrEqual(64 * 1024);
    expect(() => z.object(commandOutputShape).strict().parse(sc)).not.toThrow();
    expect(sc).toMatchObject({ outcome: 'ok', stdoutBytes: 5 * MiB, stdoutTruncated: true });
    // Head and tail in structuredContent, the gap named with readOutput's id and offset.
    expect(sc.stdout.startsWith(line(0))).toBe(true);
    expect(sc.stdout.endsWith(big.slice(-200))).toBe(true);
    expect(sc.stdout).toMatch(new RegExp(`\\[… [\\d,]+ bytes not shown; readOutput \\{"id":"${sc.stdoutId}","offset":\\d+\\} reads on …\\]`));
    // The text does not carry the bytes again: it says where they are.
    const text = r.content[0]!.text;
    expect(text.length).toBeLessThan(1000);
    expect(text).toContain(`readOutput {"id":"${sc.stdoutId}"}`);
    expect(text).not.toContain(line(0));
    // Every kept byte (the executor keeps the first and last half of 1 MiB, the gap marked), in pages.
    const kept = big.slice(0, MiB / 2) + `\n[… ${5 * MiB - MiB} bytes left out …]\n` + big.slice(-MiB / 2);
    const all = await readAll(sc.stdoutId);
    expect(all.text === kept).toBe(true);
    expect(all.largest).toBeLessThanOrEqual(40 * 1024);
    console.log(`readOutput: ${all.pages} pages, the largest answer ${all.largest} bytes of JSON`);
  });

  it('an output under the executor limit comes back byte for byte, in pages of any length, multi-byte characters whole', async () => {
    const text = Array.from({ length: 2_000 }, (_, i) => `${i}: grüße, 😀, €\n`).join('');
    fs.writeFileSync(path.join(root, 'utf8.txt'), text);
    const r = await call('shell_execute', { command: ['cat', 'utf8.txt'] });
    const id = structured(r).stdoutId;
    expect((await readAll(id, 1000)).text === text).toBe(true);
    expect((await readAll(id)).text === text).toBe(true);
  });

  it('a short output reads the same in the text and in structuredContent, with no id', async () => {
    const r = await call('shell_execute', { command: ['echo', 'hello'] });
    expect(r.content[0]!.text).toBe('hello\n');
    expect(structured(r).stdout).toBe('hello\n');
    expect(structured(r).stdoutId).toBeUndefined();
  });

  it('readOutput refuses an id this session was not given, and another session cannot read this one\'s outputs', async () => {
    const r = await call('shell_execute', { command: ['seq', '1', '20000'] });
    const id = structured(r).stdoutId as string;
    expect(id).toMatch(/^o\d+$/);
    const other = await httpClient(s.url);
    try {
      const theirs = (await other.callTool({ name: 'readOutput', arguments: { id } })) as unknown as Answer;
      expect(theirs.isError).toBe(true);
      expect(theirs.content[0]!.text).toMatch(/is not an output of this session/);
    } finally {
      await other.close();
    }
    const unknown = await call('readOutput', { id: 'o999' });
    expect(unknown.isError).toBe(true);
  });

  it('readFile of a 20 MB file returns one page within the budget, the size and where to continue', async () => {
    const lines = Array.from({ length: 400_000 }, (_, i) => `line ${i} of a twenty megabyte file, padded ......`);
    const file = lines.join('\n') + '\n';
    fs.writeFileSync(path.join(root, 'huge.txt'), file);
    const size = Buffer.byteLength(file);
    expect(size).toBeGreaterThan(20 * 1000 * 1000);
    const r = await call('readFile', { file: 'huge.txt' });
    const sc = structured(r);
    console.log(`readFile of ${size} bytes: answer ${answerBytes(r)} bytes of JSON`);
    expect(answerBytes(r)).toBeLessThanOrEqual(64 * 1024);
    expect(() => z.object(fileOutputShape).strict().parse(sc)).not.toThrow();
    expect(sc).toMatchObject({ outcome: 'ok', size, totalLines: 400_000, truncated: true, byteOffset: 0 });
    expect(sc.content.startsWith('line 0 of')).toBe(true);
    expect(sc.content.endsWith('\n')).toBe(true);
    expect(sc.nextOffset).toBe(sc.content.split('\n').length);
    const next = structured(await call('readFile', { file: 'huge.txt', offset: sc.nextOffset, limit: 2 }));
    expect(next.content).toBe(`${lines[sc.nextOffset - 1]}\n${lines[sc.nextOffset]}\n`);
    const last = structured(await call('readFile', { file: 'huge.txt', offset: 400_000 }));
    expect(last).toMatchObject({ content: `${lines[399_999]}\n`, truncated: false });
  });

  it('a line longer than a page is read in byte pages that join into the line', async () => {
    const long = 'x'.repeat(100_000) + '€'.repeat(20_000);
    fs.writeFileSync(path.join(root, 'one-line.json'), long);
    let sc = structured(await call('readFile', { file: 'one-line.json' }));
    let got = sc.content as string;
    expect(sc.message).toMatch(/is longer than one page/);
    for (let i = 0; sc.nextByteOffset !== undefined && i < 100; i++) {
      sc = structured(await call('readFile', { file: 'one-line.json', byteOffset: sc.nextByteOffset }));
      got += sc.content;
    }
    expect(got === long).toBe(true);
  });
});
