// extensionTestsPath module: network: domains in a real VS Code, mode confirm, bubblewrap required. A local HTTP
// server in this extension host is the host (reached under this machine's own name, which the proxy resolves);
// curl runs in the sandbox through the egress proxy. ui.js clicks "Always allow <host>" on the host's card.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { CallToolResultSchema } = require('@modelcontextprotocol/sdk/types.js');
const shared = require('./shared.js');
const { assert, until, recorder } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;
const { say, scenario, finish } = recorder({ logName: 'suite.log', resultsName: 'results.json' });

exports.run = async function run() {
  const ext = vscode.extensions.getExtension(process.env.EXT_ID);
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const ws = folder && folder.uri.fsPath;
  const config = () => vscode.workspace.getConfiguration('guardedShell');
  let api, client, server, url, setupGeneration;
  const call = (args) => client.callTool({ name: 'shell_execute', arguments: args }, CallToolResultSchema, { timeout: 120000 });
  const generation = async () => ((await api.status(folder.uri)) || {}).settingsGeneration;
  /** Changes a user setting and waits until the folder's server has applied it (a real round trip). */
  const setUser = async (key, value) => {
    const before = await generation();
    await config().update(key, value, vscode.ConfigurationTarget.Global);
    await until(`the server to apply ${key}`, async () => (await generation()) > before, 20000);
  };

  await scenario('the extension activates (mode confirm, sandbox required, network domains) and a local host is up', async () => {
    assert(ext, `extension ${process.env.EXT_ID} is not loaded`);
    api = await ext.activate();
    const s = await until('the server to report ready', () => api.servers().find((x) => x.folder === ws && x.state === 'running' && x.url), 60000);
    client = new Client({ name: 'guarded-shell-network-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    const status = await api.status(folder.uri);
    assert(status && status.isolation === 'bwrap', `the sandbox is not in force: ${JSON.stringify(status)}`);
    server = http.createServer((req, res) => res.end(`${shared.BODY} ${req.url}\n`));
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    // The machine's own name (not "localhost": NO_PROXY keeps that one inside the sandbox).
    url = `http://${os.hostname()}:${server.address().port}`;
    // The commands themselves are allowed by their exact lines: the host is what is asked about.
    await setUser('autoApprove', [`curl -sS ${url}/first`, `curl -sS ${url}/second`]);
    setupGeneration = await generation();
    const domains = config().inspect('domains.allowed');
    assert(!(domains && domains.globalValue && domains.globalValue.length), `allowed domains set before the test: ${JSON.stringify(domains)}`);
    fs.writeFileSync(path.join(OUT, shared.HOST_FILE), os.hostname().toLowerCase());
  });

  await scenario('a host not on the list becomes a card in confirm; "Always allow" lets the command reach it and writes the user settings', async () => {
    const r = await call({ command: ['curl', '-sS', `${url}/first`] });
    const s = r.structuredContent;
    assert(s && s.outcome === 'ok', `outcome ${s && s.outcome}: ${JSON.stringify(r.content)}`);
    assert(s.stdout === `${shared.BODY} /first\n`, `stdout ${JSON.stringify(s.stdout)}`);
    const host = os.hostname().toLowerCase();
    const attempts = (s.network && s.network.attempts) || [];
    assert(attempts.length === 1 && attempts[0].host === host && attempts[0].allowed && attempts[0].rule === 'approval.always', `record ${JSON.stringify(s.network)}`);
    await until('allowedDomains to hold the host in the user settings', () => {
      const v = config().inspect('domains.allowed');
      return v && Array.isArray(v.globalValue) && v.globalValue.includes(host) && !(v.workspaceValue || []).includes(host);
    }, 15000);
    const file = JSON.parse(fs.readFileSync(process.env.E2E_USER_SETTINGS, 'utf8'));
    assert((file['guardedShell.domains.allowed'] || []).includes(host), 'the user settings.json does not list the host');
  });

  await scenario('the next command reaches the host without a card: the host is on the list now', async () => {
    const host = os.hostname().toLowerCase();
    // The settings push reached the server (its generation moved past the setup's), so the list, not a memory, decides.
    await until('the server to apply the new allowed domains', async () => (await generation()) > setupGeneration, 20000);
    const t0 = Date.now();
    // Nobody clicks now: a card would hold this call until the approval timeout (60 s) and fail it.
    const r = await call({ command: ['curl', '-sS', `${url}/second`] });
    const s = r.structuredContent;
    assert(s && s.outcome === 'ok' && s.stdout === `${shared.BODY} /second\n`, `second call ${JSON.stringify(r.content)}`);
    assert(s.approvalMs === 0, `the second call waited for an approval (${s.approvalMs} ms)`);
    const attempts = (s.network && s.network.attempts) || [];
    assert(attempts.length === 1 && attempts[0].host === host && attempts[0].rule === 'network.domain.listed', `record ${JSON.stringify(s.network)}`);
    say(`second call took ${Date.now() - t0} ms`);
    fs.writeFileSync(path.join(OUT, shared.SECOND_DONE), '');
  });

  await until('the driver to finish its checks', () => fs.existsSync(path.join(OUT, 'ui-done')), 60000).catch(() => {});
  await client?.close().catch(() => {});
  server?.close();
  finish();
};
