import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunInfo } from '../../src/core/background/run';
import { settingsFromVscode } from '../../src/core/config/vscodeSettings';
import { BACKGROUND, STATUS, STOP_BACKGROUND, type BackgroundParams, type StatusResult, type StopBackgroundResult } from '../../src/shared/protocol';
import { startIpcHost, type IpcHost } from '../helpers/ipcHost';
import { waitFor } from '../helpers/waitFor';

/**
 * What the approval panel and the status bar are fed about background commands, across the real process boundary
 * as VS Code runs it: the server process (dist/server.js) over Node IPC tells the extension which run (BACKGROUND,
 * with their last lines as they change), and a person's Stop (STOP_BACKGROUND) ends one that an agent started over
 * real MCP HTTP. The panel and status bar themselves: test/vscode-background.
 */

let ws: string;
let host: IpcHost | undefined;

beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ipc-bg-')));
});
afterEach(async () => {
  await host?.close();
  host = undefined;
  fs.rmSync(ws, { recursive: true, force: true });
});

describe('VS Code: background commands reported to the extension and stopped by a person (real server process over IPC)', () => {
  it('lists a running command with its last lines as they change; Stop ends it, and the agent reads who stopped it', async () => {
    fs.writeFileSync(path.join(ws, 'log.txt'), 'first line\n');
    const { layer } = settingsFromVscode({ mode: { globalValue: 'auto' }, isolation: { globalValue: 'none' } });
    host = await startIpcHost(ws, layer);
    const seen: (readonly RunInfo[])[] = [];
    host.rpc.onNotification(BACKGROUND, (p: BackgroundParams) => {
      if (p.folderId === 'ws') seen.push(p.runs);
    });
    const started = (await host.client.callTool({ name: 'shell_execute', arguments: { command: ['tail', '-n', '+1', '-f', 'log.txt'], background: true } })) as { structuredContent: Record<string, any> };
    expect(started.structuredContent.outcome).toBe('started');

    const listed = await waitFor('the run to be listed with its first line', () => seen.find((r) => r.length === 1 && r[0]!.lastLines.includes('first line')));
    expect(listed[0]).toMatchObject({ id: 'b1', stages: [['tail', '-n', '+1', '-f', 'log.txt']], cwd: '.', isolation: 'none', running: true });
    expect(((await host.rpc.sendRequest(STATUS, { folderId: 'ws' })) as StatusResult).backgroundCommands).toBe(1);
    fs.appendFileSync(path.join(ws, 'log.txt'), 'second line\n');
    await waitFor('its last lines to follow the output', () => seen.some((r) => r[0]?.lastLines.join('\n') === 'first line\nsecond line'));

    const stop = (await host.rpc.sendRequest(STOP_BACKGROUND, { folderId: 'ws', id: 'b1' })) as StopBackgroundResult;
    expect(stop).toMatchObject({ stopped: true });
    expect(stop.message).toMatch(/^b1 was stopped by a person \(the approval panel\)/);
    await waitFor('an empty list after the stop', () => seen.at(-1)?.length === 0);
    expect(((await host.rpc.sendRequest(STATUS, { folderId: 'ws' })) as StatusResult).backgroundCommands).toBe(0);
    // Stopping one that is not running says so; an id not of the form is refused.
    expect(await host.rpc.sendRequest(STOP_BACKGROUND, { folderId: 'ws', id: 'b1' })).toMatchObject({ stopped: false });
    expect(await host.rpc.sendRequest(STOP_BACKGROUND, { folderId: 'ws', id: '../x' })).toMatchObject({ stopped: false, message: 'No background command was named.' });

    // The agent reads what happened; the history's source (the audit) has the end under the start's request id.
    const read = (await host.client.callTool({ name: 'readOutput', arguments: { id: 'b1' } })) as { content: { text: string }[] };
    expect(read.content.at(-1)!.text).toMatch(/b1 was stopped by a person \(the approval panel\)/);
    const end = await waitFor('the end in the audit', () => host!.audits.find((a) => a.background_state === 'ended'));
    const start = host.audits.find((a) => a.background_state === 'started')!;
    expect(end).toMatchObject({ request_id: start.request_id, stopped_by: 'person', result_type: 'canceled' });
  });
});
