// extensionTestsPath module for the approval webview: runs INSIDE a real VS Code extension host, mode `confirm`.
// An MCP SDK client calls the tools; ui.js (played by test/vscode/driver.js in Playwright, outside) clicks the
// cards in the webview in the same order. Each scenario is recorded in $E2E_OUT/results.json; run() throws when one failed.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { CallToolResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const shared = require('./shared.js');
const { sleep, assert, until, recorder } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;
const { say, scenario, finish } = recorder({ logName: 'suite.log', resultsName: 'results.json' });

exports.run = async function run() {
  const ext = vscode.extensions.getExtension(process.env.EXT_ID);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const ws = folder && folder.uri.fsPath;
  let client;
  // Long enough for a person (here: the driver) to click; the server's own approval timeout is 60 s.
  const call = (name, args) => client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 120000 });

  await scenario('the extension activates in mode confirm and an SDK client connects', async () => {
    assert(ext, `extension ${process.env.EXT_ID} is not loaded`);
    const api = await ext.activate();
    assert(api && typeof api.servers === 'function', 'activate() returned no test API');
    const s = await until('the server to report ready', () => api.servers().find((x) => x.folder === ws && x.state === 'running' && x.url), 60000);
    client = new Client({ name: 'guarded-shell-approval-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    fs.writeFileSync(path.join(ws, shared.NOTES), shared.NOTES_BEFORE);
  });

  await scenario('a click on Approve in the webview returns the command\'s output', async () => {
    const r = await call('shell_execute', { command: ['echo', shared.APPROVE_WORD] });
    const s = r.structuredContent;
    assert(s && s.outcome === 'ok', `outcome ${s && s.outcome}: ${JSON.stringify(r.content)}`);
    assert(s.stdout === `${shared.APPROVE_WORD}\n`, `stdout ${JSON.stringify(s.stdout)}`);
    assert(s.approvedBy === 'user' && s.approvalMs > 0, `approvedBy ${s.approvedBy}, approvalMs ${s.approvalMs}`);
  });

  await scenario('a click on Deny with a reason: the client sees outcome denied with that reason', async () => {
    const r = await call('shell_execute', { command: ['echo', shared.DENY_WORD] });
    const s = r.structuredContent;
    assert(r.isError && s && s.outcome === 'denied', `outcome ${s && s.outcome}`);
    assert(s.denial && s.denial.message === shared.DENY_REASON, `denial ${JSON.stringify(s.denial)}`);
    assert(s.stdout === '', 'a denied command produced output');
  });

  await scenario('two requests pending at once; Approve on the editFile card writes exactly the diff shown', async () => {
    // Both wait at the same time: the panel shows two cards (and the driver takes the screenshot then).
    const [edit, cmd] = await Promise.all([
      call('editFile', { file: shared.NOTES, script: shared.EDIT_SCRIPT }),
      (async () => {
        await sleep(300);
        return call('shell_execute', { command: ['printf', '%s\\n', shared.SECOND_CARD_WORD] });
      })(),
    ]);
    assert(!edit.isError, `editFile: ${JSON.stringify(edit.content)}`);
    const after = fs.readFileSync(path.join(ws, shared.NOTES), 'utf8');
    assert(after === shared.NOTES_AFTER, `notes.txt is ${JSON.stringify(after)}, expected ${JSON.stringify(shared.NOTES_AFTER)}`);
    assert(cmd.structuredContent && cmd.structuredContent.outcome === 'ok', `printf outcome ${cmd.structuredContent && cmd.structuredContent.outcome}`);
  });

  await scenario('Deny on an editFile card leaves the file byte-identical', async () => {
    const before = fs.readFileSync(path.join(ws, shared.NOTES));
    const r = await call('editFile', { file: shared.NOTES, script: shared.DENIED_EDIT_SCRIPT });
    const s = r.structuredContent;
    // The reason proves it was the click (a timeout would deny too, with another message).
    assert(r.isError && s && s.outcome === 'denied' && s.denial && s.denial.message === shared.EDIT_DENY_REASON, `result ${JSON.stringify(s)}`);
    const after = fs.readFileSync(path.join(ws, shared.NOTES));
    assert(Buffer.compare(before, after) === 0, 'the file changed although the edit was denied');
  });

  await scenario('batch approval is per kind: "Approve these 2" runs both commands; the file change pending beside them stays pending, then is denied', async () => {
    const file = path.join(ws, shared.NOTES);
    const before = fs.readFileSync(file);
    let editSettled = false;
    // All three wait at the same time: two command cards and one file-change card.
    const edit = call('editFile', { file: shared.NOTES, script: shared.BATCH_EDIT_SCRIPT }).then(
      (r) => { editSettled = true; return r; },
      (e) => { editSettled = true; throw e; },
    );
    edit.catch(() => {}); // awaited below, after the commands; a failure then is reported there
    const cmds = await Promise.all(shared.BATCH_WORDS.map((w) => call('shell_execute', { command: ['echo', w] })));
    cmds.forEach((r, i) => {
      const s = r.structuredContent;
      assert(s && s.outcome === 'ok' && s.stdout === `${shared.BATCH_WORDS[i]}\n`, `command ${i + 1}: ${JSON.stringify(r.content)}`);
      assert(s.approvedBy === 'user', `command ${i + 1} approvedBy ${s.approvedBy}`);
    });
    // The commands' batch did not decide the file change: it still waits (the driver denies it only after this).
    await sleep(200);
    assert(!editSettled, 'the file change was decided together with the commands batch');
    assert(Buffer.compare(before, fs.readFileSync(file)) === 0, 'the file changed while its card was pending');
    fs.writeFileSync(path.join(OUT, 'batch-ran'), '');
    const r = await edit;
    const s = r.structuredContent;
    assert(r.isError && s && s.outcome === 'denied' && s.denial && s.denial.message === shared.BATCH_DENY_REASON, `editFile ${JSON.stringify(s)}`);
    assert(Buffer.compare(before, fs.readFileSync(file)) === 0, 'the file changed although the edit was denied');
  });

  await scenario('"Always allow" writes the user\'s guardedShell.autoApprove and the next identical call runs without a card', async () => {
    const first = await call('shell_execute', { command: ['echo', shared.ALWAYS_WORD] });
    assert(first.structuredContent && first.structuredContent.outcome === 'ok', `first call ${JSON.stringify(first.content)}`);
    const key = `echo ${shared.ALWAYS_WORD}`;
    await until('autoApprove to hold the command in user settings', () => {
      const v = vscode.workspace.getConfiguration('guardedShell').inspect('autoApprove');
      return v && Array.isArray(v.globalValue) && v.globalValue.includes(key) && !(v.workspaceValue || []).includes(key);
    }, 15000);
    const file = JSON.parse(fs.readFileSync(process.env.E2E_USER_SETTINGS, 'utf8'));
    assert((file['guardedShell.autoApprove'] || []).includes(key), 'the user settings.json does not list the command');
    // Nobody clicks now: a card would make this call wait until the approval timeout (60 s) and fail.
    const t0 = Date.now();
    const second = await call('shell_execute', { command: ['echo', shared.ALWAYS_WORD] });
    const s = second.structuredContent;
    assert(s && s.outcome === 'ok' && s.stdout === `${shared.ALWAYS_WORD}\n`, `second call ${JSON.stringify(second.content)}`);
    assert(s.approvalMs === 0 && s.approvedBy === undefined, `the second call waited for approval (approvalMs ${s.approvalMs}, approvedBy ${s.approvedBy})`);
    say(`second identical call took ${Date.now() - t0} ms`);
  });

  await scenario('closing the panel denies what is pending', async () => {
    const pending = call('shell_execute', { command: ['echo', shared.CLOSE_WORD] });
    const tab = await until('the panel to show one pending request', () => vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && t.label === 'Guarded Shell: 1 pending'), 30000);
    assert(await vscode.window.tabGroups.close(tab), 'the panel did not close');
    const r = await pending;
    const s = r.structuredContent;
    assert(s && s.outcome === 'denied' && s.denial && s.denial.message === 'The approval panel was closed.', `after closing: ${JSON.stringify(s)}`);
  });

  await scenario('"Allow for 15 minutes" lets the next identical call run without a card; Revoke in the history makes it ask again', async () => {
    const args = { command: ['echo', shared.TIMED_WORD] };
    const first = await call('shell_execute', args);
    assert(first.structuredContent && first.structuredContent.outcome === 'ok', `first call ${JSON.stringify(first.content)}`);
    const second = await call('shell_execute', args);
    const s2 = second.structuredContent;
    assert(s2 && s2.outcome === 'ok' && s2.approvalMs === 0 && s2.approvedBy === undefined, `the second call was not pre-approved: ${JSON.stringify(s2)}`);
    // The driver revokes it in the history tab, then denies the card the third call must bring up again.
    fs.writeFileSync(path.join(OUT, 'revoke-now'), '');
    await until('the driver to revoke the approval', () => fs.existsSync(path.join(OUT, 'revoked')), 60000);
    const third = await call('shell_execute', args);
    const s3 = third.structuredContent;
    assert(s3 && s3.outcome === 'denied' && s3.denial && s3.denial.message === shared.REVOKED_REASON, `the third call did not ask again: ${JSON.stringify(s3)}`);
  });

  await scenario('backups stay out of the workspace; Undo in the history (its own card, approved) restores the previous bytes exactly', async () => {
    // The approved editFile above kept its previous content in the extension's storage, not as notes.txt.bk1.
    const backups = fs.readdirSync(ws).filter((n) => /\.bk\d+$/.test(n));
    assert(backups.length === 0, `backup files in the workspace: ${backups.join(', ')}`);
    const file = path.join(ws, shared.RAW);
    const raw = Buffer.from(shared.RAW_BYTES);
    fs.writeFileSync(file, raw);
    const listing = fs.readdirSync(ws).sort().join(',');
    const w = await call('writeFile', { file: shared.RAW, text: shared.RAW_NEW }); // the driver approves its card
    assert(w.structuredContent && w.structuredContent.outcome === 'ok', `writeFile ${JSON.stringify(w.content)}`);
    assert(fs.readFileSync(file, 'utf8') === `${shared.RAW_NEW}\n`, 'writeFile did not write');
    assert(fs.readdirSync(ws).sort().join(',') === listing, `the approved change left a new file: ${fs.readdirSync(ws).join(', ')}`);
    // The driver clicks Undo on the history row, checks the Undo card, approves it.
    fs.writeFileSync(path.join(OUT, 'undo-now'), '');
    await until('Undo to restore the previous bytes', () => Buffer.compare(fs.readFileSync(file), raw) === 0, 90000);
    assert(fs.readdirSync(ws).sort().join(',') === listing, `Undo left a new file: ${fs.readdirSync(ws).join(', ')}`);
  });

  // Tells the driver the calls are over (it then checks the history tab).
  fs.writeFileSync(path.join(OUT, 'suite-done'), '');
  await until('the driver to finish the history checks', () => fs.existsSync(path.join(OUT, 'ui-done')), 60000).catch(() => {});
  await client?.close().catch(() => {});
  finish();
};
