import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit';
import { settingsFromVscode } from '../../src/core/config/vscodeSettings';
import { UNDO, type UndoResult } from '../../src/shared/protocol';
import { startIpcHost, type IpcHost } from '../helpers/ipcHost';

/**
 * Backups out of the workspace and Undo, across the real process boundary as VS Code runs it: the extension's
 * settings (VS Code's defaults: `editBackup: storage`), the store folder handed over in initializationOptions, a
 * real server process (dist/server.js) over Node IPC, the agent's change over real MCP HTTP, and Undo as the
 * panel sends it (the UNDO request), answered through the same approval channel as any change.
 */

// Not valid UTF-8 (0xe9, 0xff), CRLF line ends, no final newline: Undo must give back every byte.
const AWKWARD = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9, 0x20, 0xff]), Buffer.from('\r\nsecond line\r\n\tlast, no newline')]);

type Result = { structuredContent?: Record<string, any> };
let ws: string;
let host: IpcHost | undefined;

beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ipc-undo-')));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  fs.rmSync(ws, { recursive: true, force: true });
});

async function start(mode: 'confirmChanges' | 'auto'): Promise<IpcHost> {
  // Only the user's mode: editBackup is left at VS Code's default.
  const { layer } = settingsFromVscode({ mode: { globalValue: mode }, isolation: { globalValue: 'none' } });
  expect(layer.editBackup).toBe('storage');
  return startIpcHost(ws, layer);
}

const tool = async (h: IpcHost, name: string, args: Record<string, unknown>) => ((await h.client.callTool({ name, arguments: args })) as Result).structuredContent!;

/** The audit record of a tool's successful change (the history's source), once its notification has arrived. */
async function changeRecord(h: IpcHost, name: string): Promise<AuditRecord> {
  for (let i = 0; i < 200; i++) {
    const r = h.audits.find((a) => a.event === 'file_audit' && a.tool === name && a.result_type === 'success');
    if (r) return r;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no audit record of a successful ${name}`);
}

describe('VS Code: backups outside the workspace, Undo through the server pipeline (real server process over IPC)', () => {
  it('an approved change leaves no new file in the workspace, and an approved Undo restores the previous bytes exactly', async () => {
    fs.writeFileSync(path.join(ws, 'notes.txt'), AWKWARD);
    host = await start('confirmChanges');
    host.answer = () => ({ approved: true, by: 'user', option: 'once' });

    const r = await tool(host, 'writeFile', { file: 'notes.txt', text: 'replaced by the agent' });
    expect(r.outcome, r.message).toBe('ok');
    expect(r.backup).toBeUndefined();
    expect(fs.readdirSync(ws)).toEqual(['notes.txt']);
    expect(fs.readdirSync(host.backupDir)).toHaveLength(1); // the previous bytes went to the host's store
    const record = await changeRecord(host, 'writeFile');
    expect(record.undoable).toBe(true);

    const undone = await host.rpc.sendRequest<UndoResult>(UNDO, { folderId: 'ws', requestId: record.request_id });
    expect(undone.outcome, undone.message).toBe('ok');
    expect(fs.readFileSync(path.join(ws, 'notes.txt')).equals(AWKWARD)).toBe(true);
    expect(fs.readdirSync(ws)).toEqual(['notes.txt']);

    // The Undo was asked like any change in confirmChanges, as a change of kind "undo" with its own diff.
    expect(host.approvals).toHaveLength(2);
    const card = host.approvals[1]!;
    expect(card.tool).toBe('undo');
    expect(card.change).toMatchObject({ kind: 'undo', files: ['notes.txt'] });
    expect(card.change!.diff).toMatch(/Binary file notes\.txt: 22 bytes now, 38 bytes restored/);
    // And audited: the history learns which change it reverted.
    const audit = await changeRecord(host, 'undo');
    expect(audit).toMatchObject({ undoes: record.request_id, files: ['notes.txt'], approved_by: 'user' });
  });

  it('a text edit undone shows current → previous; a file changed since says so; a denied Undo changes nothing', async () => {
    const text = 'alpha\r\nbeta\r\ngamma';
    fs.writeFileSync(path.join(ws, 'a.txt'), text);
    host = await start('auto');
    expect((await tool(host, 'replaceInFile', { file: 'a.txt', oldText: 'beta', newText: 'BETA' })).outcome).toBe('ok');
    const record = await changeRecord(host, 'replaceInFile');
    fs.appendFileSync(path.join(ws, 'a.txt'), '\r\nwritten by a person later');
    const later = fs.readFileSync(path.join(ws, 'a.txt'));

    // auto asks nothing, so switch to confirmChanges (a settings push, as the extension does) to see the card.
    await host.push(settingsFromVscode({ mode: { globalValue: 'confirmChanges' }, isolation: { globalValue: 'none' } }).layer);
    host.answer = () => ({ approved: false, by: 'user', reason: 'keep my later work' });
    const denied = await host.rpc.sendRequest<UndoResult>(UNDO, { folderId: 'ws', requestId: record.request_id });
    expect(denied).toMatchObject({ outcome: 'denied', message: 'keep my later work' });
    expect(fs.readFileSync(path.join(ws, 'a.txt')).equals(later)).toBe(true);
    const diff = host.approvals[0]!.change!.diff!;
    expect(diff).toMatch(/^Warning: "a\.txt" changed after that change was made/m);
    expect(diff).toContain('-BETA');
    expect(diff).toContain('+beta');
    expect(diff).toContain('-written by a person later');

    host.answer = () => ({ approved: true, by: 'user', option: 'once' });
    expect((await host.rpc.sendRequest<UndoResult>(UNDO, { folderId: 'ws', requestId: record.request_id })).outcome).toBe('ok');
    expect(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe(text);
  });

  it('an Undo of a change the store does not hold fails and changes nothing', async () => {
    host = await start('auto');
    const r = await host.rpc.sendRequest<UndoResult>(UNDO, { folderId: 'ws', requestId: 'no-such-change' });
    expect(r.outcome).toBe('failed');
    expect(r.message).toMatch(/No backup of that change is kept/);
    expect(r.rule).toBe('undo.no-backup'); // what lets the panel try a namesake folder next (src/extension/sameName.ts)
    expect(fs.readdirSync(ws)).toEqual([]);
  });
});
