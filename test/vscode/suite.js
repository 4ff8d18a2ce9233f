// extensionTestsPath module: runs INSIDE a real VS Code extension host (route B of vscode-e2e.md), against the
// packaged extension. One VS Code for every scenario; each scenario is recorded as passed/failed in
// $E2E_OUT/results.json, and run() throws when any failed (codeAutomationExit 1).
// Env (inherited from the VS Code server): EXT_ID, MCP_SERVER_ID, E2E_OUT, E2E_SLEEP_SECONDS.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { sleep, assert, within, until, recorder } = require('./lib/util.js');
const { countConfirmations } = require('./confirmations.js');

const OUT = process.env.E2E_OUT;
const { say, scenario, finish } = recorder({ logName: 'suite.log', resultsName: 'results.json' });

function textOf(result) {
  return (result.content || []).map((p) => (p.type === 'text' ? p.text : JSON.stringify(p))).join('');
}

exports.run = async function run() {
  const ext = vscode.extensions.getExtension(process.env.EXT_ID);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const ws = folder && folder.uri.fsPath;
  let api;
  let server; // the test API's snapshot of the folder's server
  const current = () => api.servers().find((s) => s.folder === ws);
  const config = () => vscode.workspace.getConfiguration('guardedShell', folder.uri);
  const connect = async (snap) => {
    const client = new Client({ name: 'guarded-shell-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(snap.url), { requestInit: { headers: { Authorization: `Bearer ${snap.token}` } } }));
    return client;
  };
  const call = (client, args) => within(30000, `shell_execute ${JSON.stringify(args)}`, client.callTool({ name: 'shell_execute', arguments: args }));
  /** Waits until the server applied one more settings push than `before` (a real round trip to the server). */
  const settingsLanded = async (before) => until('the settings push to land', async () => {
    const st = await api.status(folder.uri);
    return st && st.settingsGeneration > before ? st : undefined;
  }, 20000);
  const lmTool = () => vscode.lm.tools.find((t) => /_shell_execute$/.test(t.name));
  async function startViaVscode() {
    // The provider's definitions reach the workbench asynchronously; startServer with an unknown id is a silent
    // no-op, so retry until the tool is live.
    let tool;
    for (let i = 0; i < 30 && !tool; i++) {
      await within(30000, 'workbench.mcp.startServer', Promise.resolve(vscode.commands.executeCommand('workbench.mcp.startServer', process.env.MCP_SERVER_ID, { waitForLiveTools: true, autoTrustChanges: true })));
      tool = lmTool();
      if (!tool) await sleep(1000);
    }
    return tool;
  }
  async function invokeEcho(word) {
    const tool = await startViaVscode();
    assert(tool, `no tool matching /_shell_execute$/ in vscode.lm.tools: ${vscode.lm.tools.map((t) => t.name).join(', ')}`);
    const res = await within(45000, 'lm.invokeTool', vscode.lm.invokeTool(tool.name, { input: { command: ['echo', word] }, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token));
    const text = res.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
    assert(text.includes(word), `unexpected tool result: ${text}`);
    return { tool, text };
  }

  await scenario('the extension activates in a trusted folder and starts the folder\'s server', async () => {
    assert(ext, `extension ${process.env.EXT_ID} is not loaded`);
    assert(ws, 'no workspace folder is open');
    assert(vscode.workspace.isTrusted, 'the workspace is not trusted');
    api = await within(60000, 'activate()', ext.activate());
    assert(api && typeof api.servers === 'function', 'activate() returned no test API (extension mode should be Test)');
    server = await until('the server to report ready', () => { const s = current(); return s && s.state === 'running' && s.url ? s : undefined; }, 60000);
    assert(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(server.url), `unexpected URL ${server.url}`);
    say(`server pid ${server.pid} at ${server.url}`);
    // isolation none in the test's user settings: the status bar shows the mode and warns that nothing is sandboxed.
    const bar = await until('the status bar to show the server', () => { const b = api.statusBar(); return /Guarded Shell: auto/.test(b.text) ? b : undefined; }, 10000);
    assert(bar.warning && /\$\(warning\)/.test(bar.text), `no unsandboxed warning in the status bar: ${bar.text}`);
  });

  await scenario('the provider returns a definition for the folder (label, URI, bearer header)', async () => {
    assert(server, 'no server');
    assert(server.label === `Guarded Shell: ${folder.name}`, `label ${server.label}`);
    assert(server.token && server.token.length >= 40, 'no token');
    assert(process.env.MCP_SERVER_ID.endsWith(`/${server.label}`), `MCP_SERVER_ID ${process.env.MCP_SERVER_ID} does not name ${server.label}`);
  });

  await scenario('VS Code\'s own MCP client starts our server, lists shell_execute in vscode.lm.tools and runs echo hello', async () => {
    const { tool, text } = await invokeEcho('hello');
    say(`lm tool ${tool.name} -> ${text.slice(0, 200)}`);
  });

  let client;
  await scenario('an MCP SDK client connects with the definition\'s URI and Authorization header (and not without it)', async () => {
    const s = current();
    const bad = await fetch(s.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: 'Bearer wrong' }, body: '{}' });
    assert(bad.status === 401, `a wrong token got HTTP ${bad.status}, expected 401`);
    client = await connect(s);
    const { tools } = await client.listTools();
    assert(tools.some((t) => t.name === 'shell_execute'), `tools: ${tools.map((t) => t.name).join(', ')}`);
    const r = await call(client, { command: ['echo', 'from-sdk'] });
    assert(!r.isError && textOf(r).includes('from-sdk'), `echo through the SDK client: ${textOf(r)}`);
  });

  await scenario('a settings change to readOnly denies writeFile and changing commands without a restart', async () => {
    assert(client, 'no SDK client');
    const before = current();
    const r1 = await call(client, { command: ['touch', 'made-in-auto'] });
    assert(!r1.isError && fs.existsSync(path.join(ws, 'made-in-auto')), `touch in mode auto should run: ${textOf(r1)}`);
    const gen = (await api.status(folder.uri)).settingsGeneration;
    await config().update('mode', 'readOnly', vscode.ConfigurationTarget.Global);
    const st = await settingsLanded(gen);
    assert(st.mode === 'readOnly', `mode after the change: ${st.mode}`);
    assert(current().pid === before.pid && current().url === before.url, 'the server restarted; the change should apply live');
    await until('the status bar to show readOnly', () => /Guarded Shell: readOnly/.test(api.statusBar().text), 10000);
    const r2 = await call(client, { command: ['touch', 'made-in-readonly'] }); // same session: no reconnect
    assert(r2.isError, `touch in readOnly should be denied: ${textOf(r2)}`);
    assert(!fs.existsSync(path.join(ws, 'made-in-readonly')), 'the file was created in readOnly mode');
    const r3 = await call(client, { command: ['echo', 'redirected', '>', 'redirect-in-readonly'] });
    assert(r3.isError && !fs.existsSync(path.join(ws, 'redirect-in-readonly')), `an output redirect in readOnly should be denied: ${textOf(r3)}`);
    // readOnly can never allow a file change, so writeFile is no longer offered (the client heard list_changed).
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert(!tools.includes('writeFile') && tools.includes('shell_execute'), `readOnly should not offer writeFile: ${tools.join(', ')}`);
    const r4 = await client.callTool({ name: 'writeFile', arguments: { file: 'written-in-readonly.txt', text: 'x' } }).catch((e) => ({ isError: true, error: String(e) }));
    assert(r4.isError, `writeFile in readOnly should be refused: ${JSON.stringify(r4).slice(0, 300)}`);
    assert(!fs.existsSync(path.join(ws, 'written-in-readonly.txt')), 'writeFile wrote in readOnly mode');
    say(`readOnly denial: ${textOf(r2).slice(0, 300)}`);
  });

  await scenario('a workspace setting that tries mode auto has no effect', async () => {
    const gen = (await api.status(folder.uri)).settingsGeneration;
    await config().update('mode', 'auto', vscode.ConfigurationTarget.Workspace);
    assert(config().inspect('mode').workspaceValue === 'auto', 'the workspace value was not written');
    const st = await settingsLanded(gen);
    assert(st.mode === 'readOnly', `a workspace value changed the mode to ${st.mode}`);
    const r = await call(client, { command: ['touch', 'made-by-workspace-auto'] });
    assert(r.isError && !fs.existsSync(path.join(ws, 'made-by-workspace-auto')), `touch ran after a workspace "auto": ${textOf(r)}`);
    const gen2 = st.settingsGeneration;
    await config().update('mode', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('mode', 'auto', vscode.ConfigurationTarget.Global);
    const back = await until('mode auto from user settings', async () => { const s = await settingsLanded(gen2); return s.mode === 'auto' ? s : undefined; }, 20000);
    assert(back.mode === 'auto', 'user mode auto did not apply');
  });

  await scenario('in confirm mode a command waits for the approval panel, and closing the panel denies it', async () => {
    // The approval panel (a webview) shows the request as a card; its buttons are clicked in the approval e2e
    // (test/vscode-approval). What is proven here: the call does not run while it waits, the panel shows it as
    // pending, and closing the panel fails closed.
    const gen = (await api.status(folder.uri)).settingsGeneration;
    await config().update('mode', 'confirm', vscode.ConfigurationTarget.Global);
    try {
      assert((await settingsLanded(gen)).mode === 'confirm', 'mode confirm did not apply');
      const pending = call(client, { command: ['touch', 'asked-in-confirm'] });
      const tab = await until('the approval panel with 1 pending request', () =>
        vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => /Guarded Shell: 1 pending/.test(t.label)), 30000, 250);
      assert(!fs.existsSync(path.join(ws, 'asked-in-confirm')), 'the command ran before it was approved');
      await vscode.window.tabGroups.close(tab);
      const r = await pending;
      assert(r.isError && !fs.existsSync(path.join(ws, 'asked-in-confirm')), `the command ran without approval: ${textOf(r)}`);
      assert(textOf(r).includes('The approval panel was closed.'), `unexpected denial: ${textOf(r)}`);
      say(`confirm, panel closed: ${textOf(r).slice(0, 300)}`);
    } finally {
      const gen2 = (await api.status(folder.uri)).settingsGeneration;
      await config().update('mode', 'auto', vscode.ConfigurationTarget.Global);
      assert((await settingsLanded(gen2)).mode === 'auto', 'mode auto did not come back');
    }
  });

  await countConfirmations({ scenario, say, api, folder, config, settingsLanded, startViaVscode, connect, current });

  await scenario('after the server process is killed it comes back with a new definition, and VS Code\'s client uses it', async () => {
    const before = current();
    process.kill(before.pid, 'SIGKILL');
    const after = await until('a restarted server', () => { const s = current(); return s && s.state === 'running' && s.pid && s.pid !== before.pid ? s : undefined; }, 60000);
    assert(after.url !== before.url || after.token !== before.token, 'the endpoint did not change');
    assert(after.token !== before.token, 'the token did not change');
    assert(Number(after.version) > Number(before.version), `definition version ${before.version} -> ${after.version}`);
    // VS Code drops the old server's tools and connects to the new definition asynchronously: a call can land in
    // between ("Tool … was not contributed"), so retry until a call goes through the new server.
    await until('VS Code\'s client to run echo through the restarted server', () => invokeEcho('again').then(() => true), 45000, 1000);
    try { await client.close(); } catch { /* the old session died with the old process */ }
    client = await connect(after);
  });

  await scenario('a command is running when VS Code closes (started by a client outside VS Code; the runner checks it dies)', async () => {
    const secs = process.env.E2E_SLEEP_SECONDS;
    assert(secs, 'E2E_SLEEP_SECONDS not set');
    // holdCommand.js (started by the runner) waits for this file, connects, and starts `sleep <secs>`. Its
    // connection stays open while VS Code closes, so only the server's own shutdown can end the command.
    const s = current();
    fs.writeFileSync(path.join(OUT, 'endpoint.json'), JSON.stringify({ url: s.url, token: s.token }), { mode: 0o600 });
    await until(`sleep ${secs} to be running`, () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).some((pid) => {
      // The server spawns the program it judged (/usr/bin/sleep): compare the program by its last path component.
      try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().replace(/^\S*\//, '') === `sleep ${secs}`; } catch { return false; }
    }), 30000);
  });

  finish();
};
