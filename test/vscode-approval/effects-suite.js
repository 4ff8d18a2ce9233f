// extensionTestsPath module for effects.sh: runs INSIDE a real VS Code extension host (mode confirm, the sandbox
// required, commandPreview at its VS Code default "asked") in a workspace that is a git repository. It plays the
// agent: an MCP SDK client runs commands that create and rewrite files. effects-ui.js (played by test/vscode/driver.js
// in Playwright) is the person at the approval panel: it approves each command, checks its effect card and applies or
// discards it, undoes one from the history, and applies one after editing the file meanwhile. Each scenario is
// recorded in $E2E_OUT/results.json; run() throws when one failed.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { CallToolResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const { EFFECTS: E } = require('./shared.js');
const { assert, assertEqual, until, recorder } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;
const { say, scenario, finish } = recorder({ logName: 'suite.log', resultsName: 'results.json' });

/** Every entry of the folder (the .git folder too) with its type, mode and bytes: "byte-identical" is this equal. */
function tree(root) {
  const out = {};
  const visit = (rel) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(path.join(root, p));
      if (st.isDirectory()) {
        out[p] = `dir ${(st.mode & 0o7777).toString(8)}`;
        visit(p);
      } else if (st.isSymbolicLink()) out[p] = `link ${fs.readlinkSync(path.join(root, p))}`;
      else out[p] = `file ${(st.mode & 0o7777).toString(8)} ${fs.readFileSync(path.join(root, p)).toString('base64')}`;
    }
  };
  visit('');
  return out;
}

exports.run = async function run() {
  const ext = vscode.extensions.getExtension(process.env.EXT_ID);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const ws = folder && folder.uri.fsPath;
  const file = (rel) => path.join(ws, rel);
  let client;
  // Long enough for the person (the driver) to click both cards of a command.
  const call = (command) => client.callTool({ name: 'shell_execute', arguments: { command } }, CallToolResultSchema, { timeout: 180000 });
  const git = (...args) => execFileSync('git', ['-C', ws, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  const ran = (r, what) => {
    const s = r.structuredContent;
    assert(s && s.outcome === 'ok', `${what}: outcome ${s && s.outcome}: ${JSON.stringify(r.content)}`);
    assert(s.isolation === 'bwrap', `${what} ran with isolation ${s.isolation}, not in the sandbox`);
    assert(s.approvedBy === 'user', `${what} was not approved on its card (approvedBy ${s.approvedBy})`);
    assert(s.effect && s.effect.via === 'preview', `${what} was not previewed: ${JSON.stringify(s.effect)}`);
    return s;
  };

  await scenario('mode confirm, the sandbox, command preview on by default; an SDK client connects', async () => {
    assert(ext, `extension ${process.env.EXT_ID} is not loaded`);
    const config = vscode.workspace.getConfiguration('guardedShell');
    assertEqual([config.get('mode'), config.get('commandPreview'), config.get('editBackup')], ['confirm', 'asked', 'storage'], 'the defaults this suite relies on');
    const api = await ext.activate();
    const s = await until('the server to report ready', () => api.servers().find((x) => x.folder === ws && x.state === 'running' && x.url), 60000);
    const status = await api.status(folder.uri);
    assert(status && status.isolation === 'bwrap', `the server's isolation is ${status && status.isolation} (${status && status.warning})`);
    client = new Client({ name: 'guarded-shell-effects-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
  });

  await scenario('touch new.txt: its effect card (checked by the person while the folder is untouched), Apply creates exactly that file', async () => {
    const before = tree(ws);
    const s = ran(await call(E.TOUCH), 'touch');
    assertEqual(s.effect.outcome, 'applied', 'the effect');
    assertEqual(s.effect.files, [{ path: 'new.txt', change: 'created' }], 'the files of the effect');
    const after = tree(ws);
    assertEqual(Object.keys(after).filter((k) => !(k in before) && !k.startsWith('.git/')), ['new.txt'], 'what appeared');
    assertEqual(fs.readFileSync(file('new.txt')).length, 0, 'the new file\'s size');
    assertEqual(after[E.FILE], before[E.FILE], 'the tracked file');
  });

  await scenario('a command that rewrites the tracked file: its card shows the diff before anything is written; Apply lands exactly those bytes', async () => {
    const s = ran(await call(E.REWRITE), 'the rewrite');
    assertEqual(s.effect.outcome, 'applied', 'the effect');
    assertEqual(s.effect.files, [{ path: E.FILE, change: 'modified' }], 'the files of the effect');
    assert(Buffer.compare(fs.readFileSync(file(E.FILE)), Buffer.from(E.AFTER)) === 0, `${E.FILE} is ${JSON.stringify(fs.readFileSync(file(E.FILE), 'utf8'))}`);
    assert(!fs.existsSync(file('tracked.tmp')), 'the command\'s temporary file landed');
    assertEqual(git('status', '--porcelain').split('\n').filter(Boolean).sort(), [` M ${E.FILE}`, '?? new.txt'], 'git status');
  });

  await scenario('Undo of the rewrite from the history (its own card, approved) restores the previous bytes', async () => {
    fs.writeFileSync(path.join(OUT, 'undo-now'), '');
    await until('Undo to restore the previous bytes', () => Buffer.compare(fs.readFileSync(file(E.FILE)), Buffer.from(E.BEFORE)) === 0, 120000);
    assertEqual(git('status', '--porcelain').split('\n').filter(Boolean), ['?? new.txt'], 'git status after the Undo');
  });

  await scenario('Discard leaves the folder byte-identical, and the agent hears the reason', async () => {
    const before = tree(ws);
    const s = ran(await call(E.DISCARD), 'the discarded command');
    assertEqual(s.effect.outcome, 'discarded', 'the effect');
    assert(s.effect.message.includes(E.DISCARD_REASON), `the message: ${s.effect.message}`);
    assertEqual(tree(ws), before, 'the folder after Discard');
  });

  await scenario('an edit made in the folder while the effect card is open is a conflict: shown, and not overwritten', async () => {
    const r = await call(E.CONFLICT);
    const s = r.structuredContent;
    assert(s && s.effect, `no effect: ${JSON.stringify(r.content)}`);
    assertEqual(s.effect.outcome, 'conflict', 'the effect');
    assertEqual(s.effect.conflicts.map((c) => c.path), [E.FILE], 'the conflicts');
    assertEqual(fs.readFileSync(file(E.FILE), 'utf8'), E.PERSON_EDIT, 'the person\'s edit');
    assert(r.content[0].text.includes('Nothing was written'), `the agent is not told: ${r.content[0].text}`);
    say(`conflict: ${s.effect.message}`);
  });

  fs.writeFileSync(path.join(OUT, 'suite-done'), '');
  await until('the driver to finish the history checks', () => fs.existsSync(path.join(OUT, 'ui-done')), 90000).catch(() => {});
  await client?.close().catch(() => {});
  finish();
};
