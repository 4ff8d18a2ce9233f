import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyPatch } from 'diff';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegular, writeAt } from '../../../src/core/files/fdops';
import { bareGuard } from '../../../src/core/paths/guard';
import { unifiedDiff } from '../../../src/core/files/diffText';
import { applyPatchTool, editFileTool, replaceInFileTool } from '../../../src/core/files/editTools';
import { listFilesTool } from '../../../src/core/files/list';
import { copyFileTool, deleteFileTool, mkdirTool, moveRenameFileTool, rmdirTool } from '../../../src/core/files/manage';
import { readFileTool } from '../../../src/core/files/read';
import { writeFileTool } from '../../../src/core/files/write';
import { call, deps, recordingApprover, snapshot, tempWorkspace } from './helpers';

let ws: ReturnType<typeof tempWorkspace>;
beforeEach(() => (ws = tempWorkspace()));
afterEach(() => ws.cleanup());

const put = (rel: string, content: string | Buffer) => fs.writeFileSync(path.join(ws.root, rel), content);
const get = (rel: string) => fs.readFileSync(path.join(ws.root, rel), 'utf8');

describe('the diff the approver sees is the diff of what is written', () => {
  const original = 'alpha\r\nbeta\r\ngamma';
  const cases = [
    ['editFile', (d: ReturnType<typeof deps>) => editFileTool(d, call('editFile'), { file: 'f.txt', script: 's/beta/BETA/' })],
    ['replaceInFile', (d: ReturnType<typeof deps>) => replaceInFileTool(d, call('replaceInFile'), { file: 'f.txt', oldText: 'beta\ngamma', newText: 'b\ng\nextra' })],
    ['applyPatch', (d: ReturnType<typeof deps>) => applyPatchTool(d, call('applyPatch'), { file: 'f.txt', diff: '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n beta\n' })],
    ['writeFile', (d: ReturnType<typeof deps>) => writeFileTool(d, call('writeFile'), { file: 'f.txt', text: 'more', append: true })],
  ] as const;
  it.each(cases)('%s: approver diff == diff(original, written) and applies to give exactly the written bytes', async (_name, run) => {
    put('f.txt', original);
    const approver = recordingApprover({ approved: true, by: 'user' });
    const d = deps(ws.root, { mode: 'confirmChanges' }, approver);
    const r = await run(d);
    expect(r.outcome, r.message).toBe('ok');
    const written = get('f.txt');
    const change = approver.requests[0]!.change!;
    expect(change.diff).toBe(unifiedDiff('f.txt', original, written));
    expect(applyPatch(original, change.diff!)).toBe(written);
    expect(change.proposed).toBe(written);
    expect(change.original).toBe(original);
    expect(r.diff).toBe(change.diff);
    expect(r.approvedBy).toBe('user');
    expect(written.includes('\r\n') && !/[^\r]\n/.test(written)).toBe(true); // still CRLF everywhere
  });

  it.each(cases)('%s: a denial leaves the file byte-identical and makes no backup', async (_name, run) => {
    put('f.txt', original);
    const before = snapshot(ws.root);
    const approver = recordingApprover({ approved: false, by: 'user', reason: 'not this' });
    const d = deps(ws.root, { mode: 'confirm' }, approver);
    const r = await run(d);
    expect(r.outcome).toBe('denied');
    expect(r.denial).toMatchObject({ code: 'APPROVAL_DENIED', message: 'not this' });
    expect(approver.requests).toHaveLength(1);
    expect(snapshot(ws.root)).toEqual(before);
    expect(d.sink.records.at(-1)).toMatchObject({ event: 'file_audit', result_type: 'approval_denied' });
  });

  it('does not write when the file changed while the person was deciding', async () => {
    put('f.txt', original);
    const approver = recordingApprover({ approved: true, by: 'user' });
    const slow = { ...approver, approve: async (req: Parameters<typeof approver.approve>[0]) => (put('f.txt', 'someone else\n'), approver.approve(req)) };
    const r = await editFileTool(deps(ws.root, { mode: 'confirm' }, slow), call('editFile'), { file: 'f.txt', script: 's/a/A/' });
    expect(r.outcome).toBe('failed');
    expect(r.message).toMatch(/changed after the diff was made/);
    expect(get('f.txt')).toBe('someone else\n');
    expect(fs.existsSync(path.join(ws.root, 'f.txt.bk1'))).toBe(false);
  });

  it('without an approver, a change that needs approval is denied as APPROVAL_UNAVAILABLE', async () => {
    put('f.txt', 'x\n');
    const r = await writeFileTool(deps(ws.root, { mode: 'confirmChanges' }), call('writeFile'), { file: 'f.txt', text: 'y' });
    expect(r.denial?.code).toBe('APPROVAL_UNAVAILABLE');
    expect(get('f.txt')).toBe('x\n');
  });
});

describe('modes and protected paths', () => {
  it('read-only mode denies every change and still allows reads', async () => {
    put('f.txt', 'x\n');
    fs.mkdirSync(path.join(ws.root, 'empty'));
    const d = deps(ws.root, { mode: 'readOnly' });
    const before = snapshot(ws.root);
    const results = [
      await writeFileTool(d, call('writeFile'), { file: 'g.txt', text: 'y' }),
      await editFileTool(d, call('editFile'), { file: 'f.txt', script: 's/x/y/' }),
      await replaceInFileTool(d, call('replaceInFile'), { file: 'f.txt', oldText: 'x', newText: 'y' }),
      await applyPatchTool(d, call('applyPatch'), { file: 'f.txt', diff: '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n' }),
      await copyFileTool(d, call('copyFile'), { source: 'f.txt', destination: 'c.txt' }),
      await moveRenameFileTool(d, call('moveRenameFile'), { source: 'f.txt', destination: 'm.txt' }),
      await deleteFileTool(d, call('deleteFile'), { file: 'f.txt' }),
      await mkdirTool(d, call('mkdir'), { path: 'new' }),
      await rmdirTool(d, call('rmdir'), { path: 'empty' }),
    ];
    for (const r of results) expect(r.denial?.code, r.message).toBe('MODE_READ_ONLY');
    expect(snapshot(ws.root)).toEqual(before);
    expect((await readFileTool(d, call('readFile'), { file: 'f.txt' })).content).toBe('x\n');
    expect((await listFilesTool(d, call('listFiles'), {})).entries).toEqual(['empty/', 'f.txt']);
  });

  it('stops writes into .git (hooks there would run code on the next commit)', async () => {
    fs.mkdirSync(path.join(ws.root, '.git', 'hooks'), { recursive: true });
    const r = await writeFileTool(deps(ws.root), call('writeFile'), { file: '.git/hooks/pre-commit', text: '#!/bin/sh\nid' });
    expect(r.denial).toMatchObject({ code: 'PATH_PROTECTED', rule: 'protected.git' });
    expect(fs.existsSync(path.join(ws.root, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('stops changes to user-protected globs and to the server\'s own files', async () => {
    put('.env', 'SECRET=1\n');
    put('audit.log', '');
    const d = deps(ws.root, { protectedPaths: ['.env'], ownFiles: [path.join(ws.root, 'audit.log')] });
    expect((await replaceInFileTool(d, call('replaceInFile'), { file: '.env', oldText: '1', newText: '2' })).denial?.rule).toBe('protected.user-glob');
    expect((await deleteFileTool(d, call('deleteFile'), { file: 'audit.log' })).denial?.rule).toBe('protected.own-file');
    expect((await moveRenameFileTool(d, call('moveRenameFile'), { source: '.env', destination: 'env.txt' })).denial?.rule).toBe('protected.user-glob');
    expect((await copyFileTool(d, call('copyFile'), { source: 'audit.log', destination: '.env', overwrite: true })).denial?.rule).toBe('protected.user-glob');
    expect(get('.env')).toBe('SECRET=1\n');
  });

  it('audits paths and sizes, never contents', async () => {
    put('f.txt', 'top secret content\n');
    const d = deps(ws.root);
    await replaceInFileTool(d, call('replaceInFile'), { file: 'f.txt', oldText: 'top secret', newText: 'public' });
    await readFileTool(d, call('readFile'), { file: 'f.txt' });
    const [edit, read] = d.sink.records;
    expect(edit).toMatchObject({ event: 'file_audit', tool: 'replaceInFile', request_id: 'test:replaceInFile', result_type: 'success', files: ['f.txt'], backup: 'f.txt.bk1', rule: 'mode.auto.fileChange' });
    expect(read).toMatchObject({ event: 'file_audit', tool: 'readFile', result_type: 'success', files: ['f.txt'], bytes: 15 });
    expect(JSON.stringify(d.sink.records)).not.toMatch(/secret|public content/);
  });
});

describe('backups and atomic writes', () => {
  it('never overwrites a backup, nor writes one through a planted symlink', async () => {
    put('f.txt', 'v0\n');
    put('f.txt.bk1', 'older backup\n');
    fs.writeFileSync(path.join(ws.outside, 'target'), 'outside\n');
    fs.symlinkSync(path.join(ws.outside, 'target'), path.join(ws.root, 'f.txt.bk2'));
    const r = await editFileTool(deps(ws.root), call('editFile'), { file: 'f.txt', script: 's/v0/v1/' });
    expect(r.backup).toBe('f.txt.bk3');
    expect(get('f.txt.bk1')).toBe('older backup\n');
    expect(get('f.txt.bk3')).toBe('v0\n');
    expect(fs.readFileSync(path.join(ws.outside, 'target'), 'utf8')).toBe('outside\n');
  });

  it('keeps the file mode on edit and gives the backup the same mode', async () => {
    put('run.sh', 'echo a\n');
    fs.chmodSync(path.join(ws.root, 'run.sh'), 0o750);
    await replaceInFileTool(deps(ws.root), call('replaceInFile'), { file: 'run.sh', oldText: 'a', newText: 'b' });
    expect(fs.statSync(path.join(ws.root, 'run.sh')).mode & 0o777).toBe(0o750);
    expect(fs.statSync(path.join(ws.root, 'run.sh.bk1')).mode & 0o777).toBe(0o750);
  });

  it('deletes the backup after success with editDeleteBackup', async () => {
    put('f.txt', 'a\n');
    const r = await editFileTool(deps(ws.root, { editDeleteBackup: true }), call('editFile'), { file: 'f.txt', script: 's/a/b/' });
    expect(r).toMatchObject({ backup: 'f.txt.bk1', backupDeleted: true });
    expect(fs.existsSync(path.join(ws.root, 'f.txt.bk1'))).toBe(false);
    expect(r.diff).toContain('-a\n+b');
  });

  it('writes no backup at all with editBackup none (nothing but the file changes in the folder)', async () => {
    put('f.txt', 'a\n');
    const r = await editFileTool(deps(ws.root, { editBackup: 'none' }), call('editFile'), { file: 'f.txt', script: 's/a/b/' });
    expect(r).toMatchObject({ outcome: 'ok', changed: true });
    expect(r.backup).toBeUndefined();
    expect(r.message).toContain('no backup (editBackup: none)');
    expect(fs.readdirSync(ws.root)).toEqual(['f.txt']);
    expect(get('f.txt')).toBe('b\n');
    // The default keeps cmdshellmcp's numbered backup.
    await replaceInFileTool(deps(ws.root), call('replaceInFile'), { file: 'f.txt', oldText: 'b', newText: 'c' });
    expect(fs.readdirSync(ws.root).sort()).toEqual(['f.txt', 'f.txt.bk1']);
    expect(get('f.txt.bk1')).toBe('b\n');
  });

  it('reports an edit that changes nothing without writing or backing up', async () => {
    put('f.txt', 'a\n');
    const approver = recordingApprover({ approved: true });
    const r = await editFileTool(deps(ws.root, { mode: 'confirm' }, approver), call('editFile'), { file: 'f.txt', script: 's/zzz/y/' });
    expect(r).toMatchObject({ outcome: 'ok', changed: false });
    expect(approver.requests).toHaveLength(0);
    expect(fs.readdirSync(ws.root)).toEqual(['f.txt']);
  });

  it('stops a write whose folder was swapped for a symlink to outside after it was checked', () => {
    fs.mkdirSync(path.join(ws.root, 'sub'));
    const target = path.join(ws.root, 'sub', 'f.txt');
    fs.renameSync(path.join(ws.root, 'sub'), path.join(ws.root, 'sub-old'));
    fs.symlinkSync(ws.outside, path.join(ws.root, 'sub'));
    expect(() => writeAt(bareGuard(ws.root), target, Buffer.from('x'), { expect: { kind: 'absent' } })).toThrow(/symbolic link now/);
    expect(fs.readdirSync(ws.outside)).toEqual([]);
  });

  it('stops an exclusive write when the file appeared meanwhile, and leaves no temp file', () => {
    put('f.txt', 'first\n');
    expect(() => writeAt(bareGuard(ws.root), path.join(ws.root, 'f.txt'), Buffer.from('x'), { expect: { kind: 'absent' } })).toThrow(/already exists/);
    expect(get('f.txt')).toBe('first\n');
    expect(fs.readdirSync(ws.root)).toEqual(['f.txt']);
  });

  it('refuses a replacement when the file is no longer the one the preview saw (same bytes, other inode)', () => {
    put('f.txt', 'same\n');
    const { seen } = readRegular(bareGuard(ws.root), path.join(ws.root, 'f.txt'), { decided: true });
    fs.renameSync(path.join(ws.root, 'f.txt'), path.join(ws.root, 'f-old.txt')); // keeps the inode in use
    put('f.txt', 'same\n');
    expect(() => writeAt(bareGuard(ws.root), path.join(ws.root, 'f.txt'), Buffer.from('new'), { expect: { kind: 'same', seen } })).toThrow(/changed after the diff was made/);
    expect(get('f.txt')).toBe('same\n');
  });

  it('numbers backups 1, 2, 3 in order', () => {
    put('f.txt', 'x');
    const g = bareGuard(ws.root);
    const names = [1, 2, 3].map(() => {
      const { seen } = readRegular(g, path.join(ws.root, 'f.txt'), { decided: true });
      return writeAt(g, path.join(ws.root, 'f.txt'), Buffer.from('x'), { expect: { kind: 'same', seen }, backup: true }).backup;
    });
    expect(names).toEqual(['f.txt.bk1', 'f.txt.bk2', 'f.txt.bk3']);
  });
});
