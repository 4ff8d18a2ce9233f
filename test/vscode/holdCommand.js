// Runs OUTSIDE VS Code (started by e2e-vscode.sh): an MCP client that starts a long command on the folder's server
// and keeps its connection open while VS Code closes. The command then dies only if the server kills it on its way
// out (a client in the extension host would cancel it by disconnecting, which proves nothing about the server).
// Usage: node holdCommand.js <endpoint.json written by suite.js> <sleep seconds>
'use strict';
const fs = require('fs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const [file, seconds] = process.argv.slice(2);
(async () => {
  const end = Date.now() + 240000;
  while (!fs.existsSync(file)) {
    if (Date.now() > end) throw new Error(`no ${file}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await new Promise((r) => setTimeout(r, 100)); // the writer finished
  const { url, token } = JSON.parse(fs.readFileSync(file, 'utf8'));
  const client = new Client({ name: 'guarded-shell-e2e-holder', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', seconds], timeout: 280 } }, undefined, { timeout: 290000 });
  console.log(`holder: the command ended: ${JSON.stringify(r.content).slice(0, 200)}`);
})().catch((e) => console.log(`holder: ${e.message}`));
