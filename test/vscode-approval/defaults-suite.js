// extensionTestsPath module for defaults.sh: runs INSIDE a real VS Code extension host with NO guardedShell setting
// (VS Code's defaults), in a workspace that is a git repository. It plays the agent: an MCP SDK client edits the
// committed file, stages and commits it, then stages more after the person saved an "Always allow" rule.
// defaults-ui.js (played by test/vscode/driver.js in Playwright) is the person at the approval panel, clicking the
// cards in the same order. Each scenario is recorded in $E2E_OUT/results.json; run() throws when one failed.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { CallToolResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const { DEFAULTS: D } = require('./shared.js');
const { assert, assertEqual, until, recorder } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;
const { say, scenario, finish } = recorder({ logName: 'suite.log', resultsName: 'results.json' });
/** The settings a new user has not touched: none may have a value at any scope. */
const UNTOUCHED = ['mode', 'isolation', 'allowCommands', 'allowReadOnlyCommands', 'autoApprove', 'network', 'approvalTimeout'];

exports.run = async function run() {
  const ext = vscode.extensions.getExtension(process.env.EXT_ID);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const ws = folder && folder.uri.fsPath;
  const sandbox = process.env.E2E_EXPECT_SANDBOX === '1';
  let client;
  // Long enough for the person (the driver) to click; a card nobody expects is denied by the driver at once.
  const call = (name, args) => client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 120000 });
  /** The repository as git itself reads it (the real program, outside the sandbox; no configuration of its own). */
  const git = (...args) => execFileSync('git', ['-C', ws, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  const staged = () => git('diff', '--cached', '--name-only').split('\n').filter(Boolean).sort();
  /** A command the person approved on its card ran, inside the sandbox the defaults give. */
  const assertRan = (r, what) => {
    const s = r.structuredContent;
    assert(s && s.outcome === 'ok', `${what}: outcome ${s && s.outcome}: ${JSON.stringify(r.content)}`);
    if (sandbox) assert(s.isolation === 'bwrap', `${what} ran with isolation ${s.isolation}, not in the sandbox`);
    return s;
  };
  const assertAsked = (s, what) => assert(s.approvedBy === 'user' && s.approvalMs > 0, `${what} was not decided on a card (approvedBy ${s.approvedBy}, approvalMs ${s.approvalMs})`);
  const assertChanged = (r, what) => assert(!r.isError && r.structuredContent && r.structuredContent.outcome === 'ok', `${what}: ${JSON.stringify(r.content)}`);

  await scenario('VS Code defaults: no guardedShell setting, mode confirm, read-only git allowlisted, commands in the sandbox', async () => {
    assert(ext, `extension ${process.env.EXT_ID} is not loaded`);
    const config = vscode.workspace.getConfiguration('guardedShell');
    for (const key of UNTOUCHED) {
      const v = config.inspect(key);
      assert(v && v.globalValue === undefined && v.workspaceValue === undefined && v.workspaceFolderValue === undefined, `guardedShell.${key} is set: ${JSON.stringify(v)}`);
    }
    assert(config.get('mode') === 'confirm', `default mode ${config.get('mode')}`);
    assertEqual(config.get('allowReadOnlyCommands'), ['git'], 'default allowReadOnlyCommands');
    // The server's HOME is the test's: its ~/.gitconfig is the identity the commits must carry.
    assert(process.env.HOME === process.env.E2E_SERVER_HOME, `the extension host's HOME is ${process.env.HOME}`);
    const api = await ext.activate();
    assert(api && typeof api.servers === 'function', 'activate() returned no test API');
    const s = await until('the server to report ready', () => api.servers().find((x) => x.folder === ws && x.state === 'running' && x.url), 60000);
    const status = await api.status(folder.uri);
    assert(status && status.mode === 'confirm', `the server's mode: ${status && status.mode}`);
    if (sandbox) assert(status.isolation === 'bwrap', `bubblewrap runs here, but the server's isolation is ${status.isolation} (${status.warning || 'no warning'})`);
    say(`server: mode ${status.mode}, isolation ${status.isolation}`);
    client = new Client({ name: 'guarded-shell-defaults-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
  });

  await scenario('the agent edits the committed file: its change card, approved, writes it', async () => {
    const r = await call('editFile', { file: D.FILE, script: D.EDIT_SCRIPT });
    assertChanged(r, 'editFile');
    assert(fs.readFileSync(path.join(ws, D.FILE), 'utf8') === D.AFTER, 'the file was not edited');
  });

  await scenario('git status (read-only, on the default allowlist) asks in confirm, with no allowlist notice; approved, it runs', async () => {
    const r = await call('shell_execute', { command: ['git', 'status', '--short'] });
    const s = assertRan(r, 'git status');
    assertAsked(s, 'git status');
    assert(s.stdout === ` M ${D.FILE}\n`, `git status said ${JSON.stringify(s.stdout)}`);
  });

  await scenario('git add is an allowlist miss: a card (notice checked by the UI); Approve stages the file', async () => {
    const r = await call('shell_execute', { command: ['git', 'add', D.FILE] });
    assertAsked(assertRan(r, 'git add'), 'git add');
    assertEqual(staged(), [D.FILE], 'staged files');
  });

  await scenario('git commit of the edited file works after approval, with the identity of the person\'s ~/.gitconfig', async () => {
    const r = await call('shell_execute', { command: ['git', 'commit', '-m', D.FIRST_COMMIT] });
    assertAsked(assertRan(r, 'git commit'), 'git commit');
    const [an, ae, cn, ce, subject] = git('log', '-1', '--format=%an%n%ae%n%cn%n%ce%n%s').split('\n');
    assert(an === D.NAME && ae === D.EMAIL, `author ${an} <${ae}>`);
    assert(cn === D.NAME && ce === D.EMAIL, `committer ${cn} <${ce}>`);
    assert(subject === D.FIRST_COMMIT, `subject ${subject}`);
    assert(git('log', '--format=%s').split('\n').filter(Boolean).length === 2, 'not 2 commits');
    assert(git('show', 'HEAD:' + D.FILE) === D.AFTER, 'the commit does not hold the edited file');
    assert(git('status', '--porcelain') === '', `the working tree is not clean: ${git('status', '--porcelain')}`);
  });

  await scenario('"Always allow" with an edited prefix rule: a rule that does not cover the command is refused on the card; the edited one reaches the user settings file', async () => {
    const w = await call('writeFile', { file: D.NOTES, text: D.NOTES_TEXT });
    assertChanged(w, 'writeFile');
    // The person first types a rule that does not cover this command (refused on the card), then `git add *`.
    const r = await call('shell_execute', { command: ['git', 'add', D.NOTES] });
    const s = assertRan(r, 'git add (always allowed)');
    assertAsked(s, 'git add (always allowed)');
    assertEqual(staged(), [D.NOTES], 'staged files');
    await until('the rule to reach the user settings file', () => {
      const file = JSON.parse(fs.readFileSync(process.env.E2E_USER_SETTINGS, 'utf8'));
      return JSON.stringify(file['guardedShell.autoApprove']) === JSON.stringify([D.RULE]);
    }, 15000);
    const v = vscode.workspace.getConfiguration('guardedShell').inspect('autoApprove');
    assert(v.workspaceValue === undefined && v.workspaceFolderValue === undefined, `the rule went to a workspace scope: ${JSON.stringify(v)}`);
  });

  await scenario('the next command the rule matches (git add of another file) runs without a card', async () => {
    const e = await call('editFile', { file: D.FILE, script: D.SECOND_EDIT_SCRIPT });
    assertChanged(e, 'second editFile');
    // Nobody clicks for this one: a card would be denied by the driver as unexpected (it waits for the commit's).
    const r = await call('shell_execute', { command: ['git', 'add', D.FILE] });
    const s = assertRan(r, 'git add under the rule');
    assert(s.approvalMs === 0 && s.approvedBy === undefined, `git add waited for a decision (approvedBy ${s.approvedBy}, approvalMs ${s.approvalMs})`);
    assertEqual(staged(), [D.NOTES, D.FILE].sort(), 'staged files');
  });

  await scenario('a command the rule does not match (git commit) still asks; approved, it commits both files', async () => {
    const r = await call('shell_execute', { command: ['git', 'commit', '-m', D.SECOND_COMMIT] });
    assertAsked(assertRan(r, 'second git commit'), 'second git commit');
    const [an, ae, subject] = git('log', '-1', '--format=%an%n%ae%n%s').split('\n');
    assert(an === D.NAME && ae === D.EMAIL && subject === D.SECOND_COMMIT, `HEAD: ${an} <${ae}> ${subject}`);
    const files = git('show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).sort();
    assertEqual(files, [D.NOTES, D.FILE].sort(), 'the files the second commit changed');
    assert(git('status', '--porcelain') === '', `the working tree is not clean: ${git('status', '--porcelain')}`);
  });

  // Tells the driver the calls are over (it then checks that no card is left and the history's remembered rule).
  fs.writeFileSync(path.join(OUT, 'suite-done'), '');
  await until('the driver to finish its checks', () => fs.existsSync(path.join(OUT, 'ui-done')), 60000).catch(() => {});
  await client?.close().catch(() => {});
  finish();
};
