import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BackupStore, defaultBackupDir } from '../../../src/core/files/backupStore';
import { applyPatchTool, editFileTool, replaceInFileTool } from '../../../src/core/files/editTools';
import { copyFileTool, deleteFileTool, moveRenameFileTool } from '../../../src/core/files/manage';
import { undoChange, UNDO_TOOL } from '../../../src/core/files/undo';
import { writeFileTool } from '../../../src/core/files/write';
import type { FileResult } from '../../../src/core/files/types';
import { deps, recordingApprover, snapshot, tempWorkspace } from './helpers';

/**
 * `editBackup: storage` and Undo on the real file tools, real temp folders: the previous bytes of every kind of
 * change go to the store outside the workspace (nothing appears in it), and Undo — itself a guarded change —
 * restores them exactly.
 */

let ws: ReturnType<typeof tempWorkspace>;
let store: BackupStore;
beforeEach(() => {
  ws = tempWorkspace();
  store = new BackupStore(path.join(ws.outside, 'store'));
});
afterEach(() => ws.cleanup());

const file = (rel: string) => path.join(ws.root, rel);
// Not UTF-8 (0xff 0xfe 0x80), CRLF, no final newline: every byte must come back.
const AWKWARD = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' \xff\r\nline two\r\n\tlast', 'latin1')]);
const TEXT = Buffer.from('alpha\r\nbeta\r\ngamma', 'utf8');

function storageDeps(mode: 'auto' | 'confirmChanges' | 'readOnly' = 'auto', approver = recordingApprover({ approved: true, by: 'user' })) {
  return { ...deps(ws.root, { mode, editBackup: 'storage' }, approver), backups: () => store, approver: () => approver, approverLog: approver };
}

let n = 0;
const callOf = (tool: string) => ({ tool, requestId: `t:${tool}:${++n}` });

const kinds: [string, (d: ReturnType<typeof storageDeps>, c: { tool: string; requestId: string }) => Promise<FileResult>, () => void][] = [
  ['writeFile over a non-UTF-8 file', (d, c) => writeFileTool(d, c, { file: 'a.txt', text: 'replaced' }), () => fs.writeFileSync(file('a.txt'), AWKWARD)],
  ['writeFile creating a file', (d, c) => writeFileTool(d, c, { file: 'new.txt', text: 'fresh' }), () => {}],
  ['editFile', (d, c) => editFileTool(d, c, { file: 'a.txt', script: 's/beta/BETA/' }), () => fs.writeFileSync(file('a.txt'), TEXT)],
  ['replaceInFile', (d, c) => replaceInFileTool(d, c, { file: 'a.txt', oldText: 'gamma', newText: 'G' }), () => fs.writeFileSync(file('a.txt'), TEXT)],
  ['applyPatch', (d, c) => applyPatchTool(d, c, { file: 'a.txt', diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n beta\n' }), () => fs.writeFileSync(file('a.txt'), TEXT)],
  ['deleteFile', (d, c) => deleteFileTool(d, c, { file: 'a.txt' }), () => fs.writeFileSync(file('a.txt'), AWKWARD)],
  ['copyFile over a file', (d, c) => copyFileTool(d, c, { source: 'a.txt', destination: 'b.txt', overwrite: true }), () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    fs.writeFileSync(file('b.txt'), AWKWARD);
  }],
  ['moveRenameFile over a file', (d, c) => moveRenameFileTool(d, c, { source: 'a.txt', destination: 'b.txt', overwrite: true }), () => {
    fs.writeFileSync(file('a.txt'), AWKWARD);
    fs.writeFileSync(file('b.txt'), TEXT);
  }],
];

describe('editBackup: storage', () => {
  it.each(kinds)('%s: no new file in the workspace; Undo restores every byte', async (_name, run, setup) => {
    setup();
    fs.chmodSync(ws.root, 0o755);
    const before = snapshot(ws.root);
    const d = storageDeps();
    const change = callOf('change');
    const r = await run(d, change);
    expect(r.outcome, r.message).toBe('ok');
    expect(r.undoable).toBe(true);
    expect(r.backup).toBeUndefined();
    const after = snapshot(ws.root);
    // Only the files the change names: no .bkN, no temp file, nothing else.
    expect(Object.keys(after).every((k) => r.files.includes(k))).toBe(true);
    expect(d.sink.records.find((x) => x.event === 'file_audit' && x.result_type === 'success')).toMatchObject({ undoable: true });

    const u = await undoChange(d, callOf(UNDO_TOOL), { requestId: change.requestId });
    expect(u.outcome, u.message).toBe('ok');
    expect(snapshot(ws.root)).toEqual(before);
    expect(d.sink.records.at(-1)).toMatchObject({ event: 'file_audit', tool: UNDO_TOOL, undoes: change.requestId, result_type: 'success', undoable: true });
  });

  it('says a change cannot be undone when its previous content is larger than the store holds (and still makes it)', async () => {
    fs.writeFileSync(file('a.txt'), 'x'.repeat(2_000));
    const tiny = new BackupStore(path.join(ws.outside, 'tiny'), { maxEntries: 10, maxBytes: 500 });
    const d = { ...storageDeps(), backups: () => tiny };
    const r = await writeFileTool(d, callOf('writeFile'), { file: 'a.txt', text: 'short' });
    expect(r.outcome, r.message).toBe('ok');
    expect(r.undoable).toBeUndefined();
    expect(r.message).toMatch(/No backup was kept: .*cannot be undone/);
    expect(fs.readFileSync(file('a.txt'), 'utf8')).toBe('short\n');
  });

  it('keeps no numbered backup and says where the previous content went', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    const r = await editFileTool(storageDeps(), callOf('editFile'), { file: 'a.txt', script: 's/beta/B/' });
    expect(r.message).toMatch(/kept outside the workspace/);
    expect(r.message).not.toMatch(/no backup/);
    expect(fs.readdirSync(ws.root)).toEqual(['a.txt']);
  });

  it('restores the permission bits of a deleted file', async () => {
    fs.writeFileSync(file('run.sh'), '#!/bin/sh\n');
    fs.chmodSync(file('run.sh'), 0o750);
    const d = storageDeps();
    const c = callOf('deleteFile');
    await deleteFileTool(d, c, { file: 'run.sh' });
    expect(fs.existsSync(file('run.sh'))).toBe(false);
    expect((await undoChange(d, callOf(UNDO_TOOL), { requestId: c.requestId })).outcome).toBe('ok');
    expect(fs.statSync(file('run.sh')).mode & 0o777).toBe(0o750);
  });
});

describe('Undo is a change on the guarded pipeline', () => {
  it('shows current → previous as its diff, asks in confirmChanges, and a denial restores nothing', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    const auto = storageDeps();
    const c = callOf('editFile');
    await editFileTool(auto, c, { file: 'a.txt', script: 's/beta/BETA/' });
    const edited = fs.readFileSync(file('a.txt'));

    const no = recordingApprover({ approved: false, by: 'user', reason: 'keep it' });
    const denied = await undoChange(storageDeps('confirmChanges', no), callOf(UNDO_TOOL), { requestId: c.requestId });
    expect(denied.outcome).toBe('denied');
    expect(fs.readFileSync(file('a.txt'))).toEqual(edited);
    const card = no.requests[0]!.change!;
    expect(card.kind).toBe('undo');
    expect(card.diff).toContain('-BETA');
    expect(card.diff).toContain('+beta');
    expect(card.diff).not.toMatch(/changed after/);
    expect(card).toMatchObject({ original: edited.toString(), proposed: TEXT.toString() });

    const yes = recordingApprover({ approved: true, by: 'user' });
    expect((await undoChange(storageDeps('confirmChanges', yes), callOf(UNDO_TOOL), { requestId: c.requestId })).outcome).toBe('ok');
    expect(fs.readFileSync(file('a.txt'))).toEqual(TEXT);
  });

  it('says so in the diff when the file changed since the change, and restores only what the person saw', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    const c = callOf('writeFile');
    await writeFileTool(storageDeps(), c, { file: 'a.txt', text: 'by the agent' });
    fs.writeFileSync(file('a.txt'), 'later work by a person\n');
    const asked = recordingApprover({ approved: true, by: 'user' });
    const r = await undoChange(storageDeps('confirmChanges', asked), callOf(UNDO_TOOL), { requestId: c.requestId });
    expect(asked.requests[0]!.change!.diff).toMatch(/^Warning: "a\.txt" changed after that change was made/m);
    expect(asked.requests[0]!.change!.diff).toContain('-later work by a person');
    expect(r.outcome).toBe('ok');
    expect(fs.readFileSync(file('a.txt'))).toEqual(TEXT);
  });

  it('asks even in auto when later changes touched the same files, and without anyone to ask it refuses (restores nothing)', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    const c = callOf('writeFile');
    await writeFileTool(storageDeps(), c, { file: 'a.txt', text: 'by the agent' });
    fs.writeFileSync(file('a.txt'), 'later work by a person\n');
    const asked = recordingApprover({ approved: true, by: 'user' });
    const r = await undoChange(storageDeps('auto', asked), callOf(UNDO_TOOL), { requestId: c.requestId });
    expect(asked.requests).toHaveLength(1);
    expect(asked.requests[0]!.rule).toBe('undo.changed-since');
    expect(asked.requests[0]!.reason).toContain('"a.txt"');
    expect(r.outcome).toBe('ok');
    expect(fs.readFileSync(file('a.txt'))).toEqual(TEXT);

    const again = callOf('writeFile');
    await writeFileTool(storageDeps(), again, { file: 'a.txt', text: 'by the agent again' });
    fs.writeFileSync(file('a.txt'), 'more later work\n');
    const nobody = recordingApprover({ approved: false, by: 'unavailable' });
    const refused = await undoChange(storageDeps('auto', nobody), callOf(UNDO_TOOL), { requestId: again.requestId });
    expect(refused.outcome).toBe('denied');
    expect(fs.readFileSync(file('a.txt'), 'utf8')).toBe('more later work\n');
  });

  it('does not ask in auto when nothing touched the files since (the Undo of an untouched change just runs)', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    const c = callOf('writeFile');
    await writeFileTool(storageDeps(), c, { file: 'a.txt', text: 'by the agent' });
    const asked = recordingApprover({ approved: true, by: 'user' });
    const r = await undoChange(storageDeps('auto', asked), callOf(UNDO_TOOL), { requestId: c.requestId });
    expect(asked.requests).toHaveLength(0);
    expect(r.outcome).toBe('ok');
  });

  it('is refused in readOnly, and for a change the store does not hold', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    const c = callOf('editFile');
    await editFileTool(storageDeps(), c, { file: 'a.txt', script: 's/a/A/' });
    const ro = await undoChange(storageDeps('readOnly'), callOf(UNDO_TOOL), { requestId: c.requestId });
    expect(ro).toMatchObject({ outcome: 'denied', denial: { code: 'MODE_READ_ONLY' } });
    const missing = await undoChange(storageDeps(), callOf(UNDO_TOOL), { requestId: 'never-made' });
    expect(missing).toMatchObject({ outcome: 'failed', error: { code: 'PATH_NOT_FOUND' } });
  });

  it('an Undo can be undone', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    const d = storageDeps();
    const c = callOf('writeFile');
    await writeFileTool(d, c, { file: 'a.txt', text: 'v2' });
    const v2 = fs.readFileSync(file('a.txt'));
    const u = callOf(UNDO_TOOL);
    await undoChange(d, u, { requestId: c.requestId });
    expect((await undoChange(d, callOf(UNDO_TOOL), { requestId: u.requestId })).outcome).toBe('ok');
    expect(fs.readFileSync(file('a.txt'))).toEqual(v2);
  });

  it('a store inside the workspace (e.g. the home folder opened) is not used: the change is refused, nothing written', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    store = new BackupStore(path.join(ws.root, '.local', 'state', 'backups'));
    const r = await writeFileTool(storageDeps(), callOf('writeFile'), { file: 'a.txt', text: 'x' });
    expect(r).toMatchObject({ outcome: 'failed', error: { code: 'IO_ERROR', rule: 'backup.store-inside' } });
    expect(fs.readFileSync(file('a.txt'))).toEqual(TEXT);
    expect(fs.readdirSync(ws.root)).toEqual(['a.txt']);
  });

  it('a store that cannot be written fails the change: nothing is written without its backup', async () => {
    fs.writeFileSync(file('a.txt'), TEXT);
    fs.writeFileSync(path.join(ws.outside, 'blocked'), 'a file where the store folder should be');
    store = new BackupStore(path.join(ws.outside, 'blocked', 'store'));
    const r = await writeFileTool(storageDeps(), callOf('writeFile'), { file: 'a.txt', text: 'x' });
    expect(r.outcome).toBe('failed');
    expect(fs.readFileSync(file('a.txt'))).toEqual(TEXT);
  });
});

describe('BackupStore', () => {
  it('drops the oldest entries beyond its count and byte bounds, atomically (no temp files left)', () => {
    const small = new BackupStore(path.join(ws.outside, 's'), { maxEntries: 3, maxBytes: 10_000 });
    for (let i = 0; i < 5; i++) expect(small.save(`id${i}`, 'writeFile', [{ file: 'f', before: Buffer.from(`v${i}`), after: Buffer.from('x') }])).toBe(true);
    expect(small.get('id0')).toBeUndefined();
    expect(small.get('id1')).toBeUndefined();
    expect(small.get('id4')!.files[0]!.before).toEqual(Buffer.from('v4'));
    expect(fs.readdirSync(small.dir)).toHaveLength(3);
    // Bytes: each entry holds ~3 KB of base64; 10 KB keeps at most three of them, the newest always.
    for (let i = 0; i < 4; i++) small.save(`big${i}`, 'writeFile', [{ file: 'f', before: Buffer.alloc(2_000, i), after: null }]);
    const left = fs.readdirSync(small.dir);
    expect(left.length).toBeLessThanOrEqual(3);
    expect(left.reduce((s, n) => s + fs.statSync(path.join(small.dir, n)).size, 0)).toBeLessThanOrEqual(10_000);
    expect(small.get('big3')).toBeDefined();
    expect(left.some((n) => n.includes('gs-tmp'))).toBe(false);
  });

  it('refuses an entry larger than the whole store, and keeps the folder private', () => {
    const s = new BackupStore(path.join(ws.outside, 'p'), { maxEntries: 10, maxBytes: 400 });
    expect(s.save('huge', 'writeFile', [{ file: 'f', before: Buffer.alloc(1000), after: null }])).toBe(false);
    expect(s.save('ok', 'writeFile', [{ file: 'f', before: Buffer.from('x'), after: null }])).toBe(true);
    expect(fs.statSync(s.dir).mode & 0o777).toBe(0o700);
  });

  it('names entries by a hash of the request id, so a client-chosen id cannot name a path', () => {
    const s = new BackupStore(path.join(ws.outside, 'h'));
    s.save('../../escape', 'writeFile', [{ file: 'f', before: Buffer.from('x'), after: null }]);
    expect(fs.readdirSync(s.dir)).toHaveLength(1);
    expect(fs.readdirSync(s.dir)[0]).toMatch(/^\d{15}-\d{6}-[0-9a-f]{32}\.gsb$/);
    expect(s.get('../../escape')!.files[0]!.before).toEqual(Buffer.from('x'));
  });

  it('standalone: one folder per workspace below XDG_STATE_HOME', () => {
    expect(defaultBackupDir('/w/a', { XDG_STATE_HOME: '/state' })).toMatch(/^\/state\/guarded-shell\/backups\/[0-9a-f]{16}$/);
    expect(defaultBackupDir('/w/a', { XDG_STATE_HOME: '/state' })).not.toBe(defaultBackupDir('/w/b', { XDG_STATE_HOME: '/state' }));
  });
});
