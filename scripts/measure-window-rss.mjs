// Measures what the process model costs in memory, by hand (not part of `npm run bench`): N workspace folders served
// by N server processes (one per folder, the model before issue 17) against ONE process serving all N (the
// window's process). Each folder gets an MCP client that lists the tools and runs `echo`, then the idle RSS of the
// server processes is summed (VmRSS from /proc). Rounds alternate the two models: the machine drifts.
// Usage: node esbuild.mjs --quiet && node scripts/measure-window-rss.mjs [rounds=3] [folders=1,3,5]
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-languageserver/node';

const SERVER = path.resolve('dist/server.js');
const rounds = Number(process.argv[2] ?? 3);
const counts = (process.argv[3] ?? '1,3,5').split(',').map(Number);
const settings = { mode: 'auto', isolation: 'none', allowCommands: ['echo'] };

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One server process serving `folders`; resolves once every folder listed its tools and ran echo. */
async function serve(folders) {
  const child = fork(SERVER, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  const rpc = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  const readies = new Map();
  const all = new Promise((resolve, reject) => {
    rpc.onNotification('guardedShell/ready', (p) => (readies.set(p.folderId, p), readies.size === folders.length && resolve()));
    rpc.onNotification('guardedShell/startFailed', (p) => reject(new Error(p.message)));
  });
  rpc.onNotification(() => {});
  rpc.listen();
  const init = folders.map((folder, i) => ({ folderId: String(i), folder, folderName: path.basename(folder), settings }));
  await rpc.sendRequest('initialize', { processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: { folders: init } });
  await rpc.sendNotification('initialized', {});
  await all;
  const clients = [];
  for (const r of readies.values()) {
    const c = new Client({ name: 'rss', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(r.url), { requestInit: { headers: { Authorization: `Bearer ${r.token}` } } }));
    await c.listTools();
    await c.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'x'] } });
    clients.push(c);
  }
  return { child, rpc, clients };
}

async function measure(dirs, oneProcess) {
  const servers = oneProcess ? [await serve(dirs)] : await Promise.all(dirs.map((d) => serve([d])));
  await new Promise((r) => setTimeout(r, 1500)); // idle: let start-up garbage settle
  const kb = servers.reduce((sum, s) => sum + rssKb(s.child.pid), 0);
  for (const s of servers) {
    for (const c of s.clients) await c.close().catch(() => {});
    s.child.kill('SIGKILL');
    s.rpc.dispose();
  }
  return kb / 1024;
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-rss-'));
const dirs = Array.from({ length: Math.max(...counts) }, (_, i) => fs.mkdirSync(path.join(base, `f${i}`), { recursive: true }) ?? path.join(base, `f${i}`));
const results = {};
for (let round = 0; round < rounds; round++) {
  for (const n of counts) {
    const order = round % 2 ? [true, false] : [false, true];
    for (const one of order) ((results[`${n}|${one}`] ??= []).push(await measure(dirs.slice(0, n), one)));
  }
}
fs.rmSync(base, { recursive: true, force: true });
console.log('| folders | one process per folder (total RSS) | one process for the window | saved |');
console.log('| --- | --- | --- | --- |');
for (const n of counts) {
  const per = median(results[`${n}|false`]);
  const one = median(results[`${n}|true`]);
  console.log(`| ${n} | ${per.toFixed(1)} MB | ${one.toFixed(1)} MB | ${(per - one).toFixed(1)} MB |`);
}
