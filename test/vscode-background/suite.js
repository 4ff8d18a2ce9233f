// extensionTestsPath module: background commands in a real VS Code, mode confirm, the sandbox required. The agent
// (an MCP SDK client here) starts a watcher in the background; ui.js approves it, watches it in the panel and
// presses Stop; this side checks what the agent and the status bar see, before and after.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { CallToolResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const shared = require('./shared.js');
const { assert, until, recorder } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;
const MARKER = process.env.E2E_BG_MARKER;
const { say, scenario, finish } = recorder({ logName: 'suite.log', resultsName: 'results.json' });

/** Live processes whose command line holds the marker (the sandbox, the watcher, the port bridge's relay). */
function markerProcesses() {
  return fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
    try {
      const stat = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
      return fs.readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(MARKER) && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  });
}

exports.run = async function run() {
  const ext = vscode.extensions.getExtension(process.env.EXT_ID);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const ws = folder && folder.uri.fsPath;
  let api, client;
  const tool = (name, args) => client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 150000 });
  const texts = (r) => r.content.map((c) => c.text);

  await scenario('the extension activates (mode confirm, sandbox required)', async () => {
    assert(ext, `extension ${process.env.EXT_ID} is not loaded`);
    api = await ext.activate();
    const s = await until('the server to report ready', () => api.servers().find((x) => x.folder === ws && x.state === 'running' && x.url), 60000);
    client = new Client({ name: 'guarded-shell-background-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    const status = await api.status(folder.uri);
    assert(status && status.isolation === 'bwrap', `the sandbox is not in force: ${JSON.stringify(status)}`);
  });

  await scenario('a watcher started in the background, once approved, answers at once with its id; the status bar counts it', async () => {
    const r = await tool('shell_execute', { command: ['python3', '-u', '-c', shared.script(MARKER)], background: true });
    const s = r.structuredContent;
    assert(s && s.outcome === 'started' && s.background && s.background.id === 'b1', `start: ${JSON.stringify(r.content)}`);
    assert(s.isolation === 'bwrap', `isolation ${s.isolation}`);
    fs.writeFileSync(path.join(OUT, shared.STARTED), s.background.id);
    const bar = await until('the status bar to count one background command', () => / \$\(server-process\) 1$/.test(api.statusBar().text) && api.statusBar().text, 15000);
    say(`status bar: ${bar}`);
    const status = await api.status(folder.uri);
    assert(status.backgroundCommands === 1, `status ${JSON.stringify(status)}`);
    assert(markerProcesses().length > 0, 'no process of the watcher is running');
    // The agent reads its output as it comes.
    const read = await tool('readOutput', { id: 'b1', wait: 10, until: 'tick 2 ' });
    assert(/tick 0 .*\ntick 1 .*\ntick 2 /.test(texts(read)[0]), `read: ${JSON.stringify(texts(read))}`);
  });

  await scenario('Stop in the panel ends it: the agent reads that a person stopped it, nothing of it runs, the status bar clears', async () => {
    await until('the person to press Stop', () => fs.existsSync(path.join(OUT, shared.STOPPED)), 150000, 500);
    const r = await until('the agent to read its end', async () => {
      const x = await tool('readOutput', { id: 'b1', wait: 5 });
      return /b1 was stopped by a person \(the approval panel\)/.test(texts(x).at(-1)) && x;
    }, 30000);
    say(`end: ${texts(r).at(-1)}`);
    await until('every process of it to be gone', () => markerProcesses().length === 0, 15000);
    await until('the status bar to count none', () => !/server-process/.test(api.statusBar().text), 15000);
    const status = await api.status(folder.uri);
    assert(status.backgroundCommands === 0, `status ${JSON.stringify(status)}`);
    fs.writeFileSync(path.join(OUT, 'suite-checked'), '');
  });

  await scenario('a second one is left running when VS Code closes (the runner then finds nothing of it)', async () => {
    const r = await tool('shell_execute', { command: ['python3', '-u', '-c', shared.script(MARKER)], background: true });
    assert(r.structuredContent && r.structuredContent.outcome === 'started', `start: ${JSON.stringify(r.content)}`);
    await until('its processes to run', () => markerProcesses().length > 0, 15000);
  });

  await until('the driver to finish its checks', () => fs.existsSync(path.join(OUT, 'ui-done')), 90000).catch(() => {});
  await client?.close().catch(() => {});
  finish();
};
