import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

// The real CLI (dist/cli.js) and the SDK client, on real files in a temp folder.
let base: string;
let root: string;
let outside: string;
let server: RunningServer;
let client: Client;

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-files-it-')));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  server = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'auto']);
  client = await httpClient(server.url);
});
afterAll(async () => {
  await client?.close();
  await server?.stop();
  fs.rmSync(base, { recursive: true, force: true });
});

beforeEach(() => {
  for (const e of fs.readdirSync(root)) fs.rmSync(path.join(root, e), { recursive: true, force: true });
  for (const e of fs.readdirSync(outside)) fs.rmSync(path.join(outside, e), { recursive: true, force: true });
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside secret\n');
  fs.symlinkSync(outside, path.join(root, 'out')); // a folder link leading outside
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'secret-link')); // a file link leading outside
});

const call = async (name: string, args: Record<string, unknown>) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, text: (r.content as Array<{ text: string }>)[0]!.text, s: structured(r) };
};
const file = (rel: string) => path.join(root, rel);
const read = (rel: string) => fs.readFileSync(file(rel), 'utf8');
const outsideState = () => fs.readdirSync(outside).map((n) => `${n}:${fs.readFileSync(path.join(outside, n), 'utf8')}`);

describe('every tool through the real server', () => {
  it('lists all the file tools under their cmdshellmcp names', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of ['readFile', 'writeFile', 'listFiles', 'copyFile', 'moveRenameFile', 'deleteFile', 'mkdir', 'rmdir', 'editFile', 'applyPatch', 'replaceInFile', 'fetch']) expect(names).toContain(n);
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'readFile')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'editFile')!.annotations).toMatchObject({ destructiveHint: true });
    expect(tools.find((t) => t.name === 'fetch')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
  });

  it('writeFile, readFile (with a window), listFiles', async () => {
    let r = await call('writeFile', { file: 'a.txt', text: 'one\ntwo\nthree' });
    expect(r.isError).toBe(false);
    expect(read('a.txt')).toBe('one\ntwo\nthree\n');
    r = await call('writeFile', { file: 'a.txt', text: 'four', append: true, newline: false });
    expect(read('a.txt')).toBe('one\ntwo\nthree\nfour');
    r = await call('readFile', { file: 'a.txt', offset: 2, limit: 2 });
    expect(r.text).toBe('two\nthree\n');
    expect(r.s.totalLines).toBe(4);
    r = await call('writeFile', { file: 'deep/er/b.txt', text: 'x' });
    expect(r.s.denial ?? r.s.error).toMatchObject({ code: 'PATH_NOT_FOUND' });
    r = await call('writeFile', { file: 'deep/er/b.txt', text: 'x', mkdirs: true });
    expect(read('deep/er/b.txt')).toBe('x\n');
    r = await call('listFiles', {});
    expect(r.text).toBe('a.txt\ndeep/\nout@\nsecret-link@');
  });

  it('readFile refuses a binary file with a clear message', async () => {
    fs.writeFileSync(file('bin.dat'), Buffer.from([1, 0, 2, 3]));
    const r = await call('readFile', { file: 'bin.dat' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/binary file/);
  });

  it('copyFile, moveRenameFile, deleteFile, mkdir, rmdir', async () => {
    fs.writeFileSync(file('a.txt'), 'A\n');
    expect((await call('copyFile', { source: 'a.txt', destination: 'b.txt' })).isError).toBe(false);
    expect(read('b.txt')).toBe('A\n');
    const exists = await call('copyFile', { source: 'a.txt', destination: 'b.txt' });
    expect(exists.text).toMatch(/already exists; pass overwrite: true/);
    fs.writeFileSync(file('a.txt'), 'A2\n');
    expect((await call('copyFile', { source: 'a.txt', destination: 'b.txt', overwrite: true })).isError).toBe(false);
    expect(read('b.txt')).toBe('A2\n');
    expect((await call('moveRenameFile', { source: 'b.txt', destination: 'c.txt' })).isError).toBe(false);
    expect(fs.existsSync(file('b.txt'))).toBe(false);
    expect(read('c.txt')).toBe('A2\n');
    expect((await call('moveRenameFile', { source: 'c.txt', destination: 'a.txt' })).text).toMatch(/already exists/);
    expect((await call('mkdir', { path: 'd/e' })).text).toMatch(/parents: true/);
    expect((await call('mkdir', { path: 'd/e', parents: true })).isError).toBe(false);
    expect(fs.statSync(file('d/e')).isDirectory()).toBe(true);
    expect((await call('rmdir', { path: 'd' })).text).toMatch(/not empty/);
    expect((await call('rmdir', { path: 'd/e' })).isError).toBe(false);
    expect((await call('deleteFile', { file: 'c.txt' })).isError).toBe(false);
    expect(fs.existsSync(file('c.txt'))).toBe(false);
    expect((await call('deleteFile', { file: 'd' })).text).toMatch(/is a folder/);
  });

  it('editFile: sed edit with diff and numbered backups .bk1, .bk2 never overwritten', async () => {
    fs.writeFileSync(file('e.txt'), 'red\ngreen\n');
    let r = await call('editFile', { file: 'e.txt', script: 's/red/blue/' });
    expect(r.isError).toBe(false);
    expect(r.s.backup).toBe('e.txt.bk1');
    expect(r.s.diff).toBe('--- a/e.txt\n+++ b/e.txt\n@@ -1,2 +1,2 @@\n-red\n+blue\n green\n');
    expect(read('e.txt')).toBe('blue\ngreen\n');
    r = await call('editFile', { file: 'e.txt', script: 's/green/GREEN/', args: ['-E'] });
    expect(r.s.backup).toBe('e.txt.bk2');
    expect(read('e.txt.bk1')).toBe('red\ngreen\n');
    expect(read('e.txt.bk2')).toBe('blue\ngreen\n');
    r = await call('editFile', { file: 'e.txt', script: '', args: ['-n'] });
    expect(read('e.txt')).toBe('');
    expect(r.s.diff).toContain('-blue\n-GREEN\n');
  });

  it('a failing sed leaves the file byte-identical and no stray backup', async () => {
    fs.writeFileSync(file('e.txt'), 'keep me\r\n');
    for (const [script, args] of [['s/unterminated', []], ['w /tmp/gs-escape', []], ['s/a/b/', ['-i']], ['s/a/b/', ['--follow-symlinks']]] as const) {
      const r = await call('editFile', { file: 'e.txt', script, args });
      expect(r.isError, script).toBe(true);
    }
    expect(fs.readFileSync(file('e.txt'))).toEqual(Buffer.from('keep me\r\n'));
    expect(fs.readdirSync(root).sort()).toEqual(['e.txt', 'out', 'secret-link']);
    expect(fs.existsSync('/tmp/gs-escape')).toBe(false);
  });

  it('applyPatch applies, and a patch that does not apply leaves the file byte-identical with no backup', async () => {
    fs.writeFileSync(file('p.txt'), 'a\nb\nc\n');
    let r = await call('applyPatch', { file: 'p.txt', diff: '--- a/other/name\n+++ b/other/name\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n' });
    expect(r.isError).toBe(false);
    expect(read('p.txt')).toBe('a\nB\nc\n');
    r = await call('applyPatch', { file: 'p.txt', diff: '--- a/p.txt\n+++ b/p.txt\n@@ -1,3 +1,3 @@\n a\n-nope\n+X\n c\n' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/hunk #1 of 1/);
    r = await call('applyPatch', { file: 'p.txt', diff: '--- a/p.txt\n+++ b/p.txt\n@@ -1 +1 @@\n-a\n+A\n', args: ['-o', '/tmp/x'] });
    expect(r.text).toMatch(/option -o is not allowed/);
    expect(read('p.txt')).toBe('a\nB\nc\n');
    expect(fs.readdirSync(root).filter((n) => n.startsWith('p.txt'))).toEqual(['p.txt', 'p.txt.bk1']);
    r = await call('applyPatch', { file: 'p.txt', diff: '--- a/p.txt\n+++ b/p.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n', args: ['-R'] });
    expect(read('p.txt')).toBe('a\nb\nc\n');
  });

  it('replaceInFile replaces exactly, and a wrong count says how many matches there were', async () => {
    fs.writeFileSync(file('r.txt'), 'x = 1\ny = 1\n');
    let r = await call('replaceInFile', { file: 'r.txt', oldText: '= 1', newText: '= 2' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/occurs 2 times in the file, expected 1/);
    expect(read('r.txt')).toBe('x = 1\ny = 1\n');
    r = await call('replaceInFile', { file: 'r.txt', oldText: '= 1', newText: '= 2', expectedReplacements: 2 });
    expect(read('r.txt')).toBe('x = 2\ny = 2\n');
  });

  it('CRLF files stay CRLF and a missing final newline stays missing after every edit', async () => {
    fs.writeFileSync(file('w.txt'), 'one\r\ntwo\r\nthree');
    await call('editFile', { file: 'w.txt', script: '1a\\\ninserted' });
    await call('replaceInFile', { file: 'w.txt', oldText: 'two\nthree', newText: 'TWO\nTHREE' });
    await call('applyPatch', { file: 'w.txt', diff: '--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n inserted\n' });
    expect(read('w.txt')).toBe('ONE\r\ninserted\r\nTWO\r\nTHREE');
  });
});

describe('symlink escapes are denied and nothing outside is touched', () => {
  const attacks: Array<[string, string, Record<string, unknown>]> = [
    ['reads a file through a link to outside', 'readFile', { file: 'secret-link' }],
    ['reads through a folder link to outside', 'readFile', { file: 'out/secret.txt' }],
    ['lists a folder outside through a link', 'listFiles', { path: 'out' }],
    ['writes through a file link to outside', 'writeFile', { file: 'secret-link', text: 'pwned' }],
    ['creates a file through a folder link to outside', 'writeFile', { file: 'out/new.txt', text: 'pwned' }],
    ['edits through a link to outside with sed', 'editFile', { file: 'secret-link', script: 's/outside/pwned/' }],
    ['patches through a link to outside', 'applyPatch', { file: 'out/secret.txt', diff: '--- a/s\n+++ b/s\n@@ -1 +1 @@\n-outside secret\n+pwned\n' }],
    ['replaces through a link to outside', 'replaceInFile', { file: 'secret-link', oldText: 'outside', newText: 'pwned' }],
    ['copies an outside file in through a link', 'copyFile', { source: 'secret-link', destination: 'stolen.txt' }],
    ['copies a file out through a folder link', 'copyFile', { source: 'in.txt', destination: 'out/copied.txt' }],
    ['moves a file out through a folder link', 'moveRenameFile', { source: 'in.txt', destination: 'out/moved.txt' }],
    ['moves an outside file in through a link', 'moveRenameFile', { source: 'out/secret.txt', destination: 'stolen.txt' }],
    ['deletes an outside file through a link', 'deleteFile', { file: 'out/secret.txt' }],
    ['deletes through a file link to outside', 'deleteFile', { file: 'secret-link' }],
    ['creates a folder outside through a link', 'mkdir', { path: 'out/newdir' }],
    ['escapes with ../', 'writeFile', { file: '../outside/dotdot.txt', text: 'pwned' }],
    ['escapes with an absolute path', 'readFile', { file: '/etc/passwd' }],
  ];
  it.each(attacks)('stops a tool that %s', async (_what, tool, args) => {
    fs.writeFileSync(file('in.txt'), 'inside\n');
    const inside = fs.readdirSync(root).sort();
    const r = await call(tool, args);
    expect(r.isError).toBe(true);
    expect(['PATH_OUTSIDE_ROOT', 'BAD_REQUEST']).toContain((r.s.denial ?? r.s.error).code);
    expect(outsideState()).toEqual(['secret.txt:outside secret\n']);
    expect(fs.readdirSync(root).sort()).toEqual(inside);
    expect(r.text).not.toContain('outside secret');
  });

  it('stops writes into .git through the real server', async () => {
    fs.mkdirSync(file('.git/hooks'), { recursive: true });
    const r = await call('writeFile', { file: '.git/hooks/post-checkout', text: '#!/bin/sh\nid' });
    expect(r.s.denial).toMatchObject({ code: 'PATH_PROTECTED' });
    expect(fs.readdirSync(file('.git/hooks'))).toEqual([]);
  });
});

describe('disableTools and modes through the CLI', () => {
  it('leaves out disabled tools by exact name', async () => {
    const s = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--disableTools', 'editFile,fetch']);
    const c = await httpClient(s.url);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).not.toContain('editFile');
      expect(names).not.toContain('fetch');
      expect(names).toContain('applyPatch');
    } finally {
      await c.close();
      await s.stop();
    }
  });

  it('read-only mode offers no change tool, and a call to one changes nothing', async () => {
    const s = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'readOnly']);
    const c = await httpClient(s.url);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      // readOnly never asks: the change tools and fetch (egress) are refused, so they are not offered.
      for (const change of ['writeFile', 'editFile', 'applyPatch', 'replaceInFile', 'copyFile', 'moveRenameFile', 'deleteFile', 'mkdir', 'rmdir', 'fetch']) expect(names).not.toContain(change);
      expect(names).toEqual(expect.arrayContaining(['shell_execute', 'cmdshell', 'readFile', 'listFiles']));
      const r = await c.callTool({ name: 'writeFile', arguments: { file: 'ro.txt', text: 'x' } }).catch((e: Error) => ({ isError: true, error: e.message }));
      expect(r.isError).toBe(true);
      expect(fs.existsSync(file('ro.txt'))).toBe(false);
    } finally {
      await c.close();
      await s.stop();
    }
  });
});
