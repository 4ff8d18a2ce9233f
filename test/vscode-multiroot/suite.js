// extensionTestsPath module: runs INSIDE a real VS Code extension host, against the packaged extension, with a
// three-folder workspace (alpha: folder setting mode readOnly; beta, gamma: the user's mode auto). Proves that one
// server process serves every folder, each under its own policy and confined to its own root, that folders come
// and go without a restart, and measures what the lead asked for: the total RSS of the processes the extension
// started and the time from activation to the tools being listed. The figures go to $E2E_REPORT (JSON) too.
// Env (inherited from the VS Code server): EXT_ID, MCP_SERVER_PREFIX, E2E_OUT, E2E_REPORT.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { sleep, assert, within, until, recorder } = require('../vscode/lib/util.js');

const { say, scenario, finish } = recorder({ logName: 'suite.log', resultsName: 'results.json' });
const figures = {};

function textOf(result) {
  return (result.content || []).map((p) => (p.type === 'text' ? p.text : JSON.stringify(p))).join('');
}

/**
 * VmRSS in kB of a process and all its descendants (from /proc; a process gone meanwhile counts 0), and `uniqueKb`:
 * the root's RSS plus its descendants' PSS (the containment zygote's two Perl processes share most of their
 * pages with each other; their RSS counts those twice).
 */
function treeRssKb(root) {
  const children = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(d));
    } catch { /* gone */ }
  }
  const pids = [];
  for (const todo = [root]; todo.length;) {
    const p = todo.pop();
    pids.push(p);
    todo.push(...(children.get(p) || []));
  }
  let kb = 0;
  let uniqueKb = 0;
  for (const p of pids) {
    try {
      const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))[1]);
      kb += rss;
      uniqueKb += p === root ? rss : Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))[1]);
    } catch { /* gone */ }
  }
  return { kb, uniqueKb, pids };
}

exports.run = async function run() {
  const ext = vscode.extensions.getExtension(process.env.EXT_ID);
  const folders = vscode.workspace.workspaceFolders || [];
  const byName = (name) => folders.find((f) => f.name === name);
  let api;
  const snap = (name) => api.servers().find((s) => s.folder === byName(name).uri.fsPath);
  const clients = {};
  const connect = async (s) => {
    const client = new Client({ name: 'guarded-shell-multiroot-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { Authorization: `Bearer ${s.token}` } } }));
    return client;
  };
  const call = (client, name, args) => within(30000, `${name} ${JSON.stringify(args)}`, client.callTool({ name, arguments: args }).catch((e) => ({ isError: true, content: [{ type: 'text', text: String(e) }] })));

  await scenario('one server process serves the three folders, each on its own endpoint with its own token', async () => {
    assert(ext, `extension ${process.env.EXT_ID} is not loaded`);
    assert(folders.length === 3, `expected three workspace folders, got ${folders.map((f) => f.name).join(', ')}`);
    api = await within(60000, 'activate()', ext.activate());
    assert(api && typeof api.servers === 'function' && typeof api.activatedAt === 'number', 'activate() returned no test API');
    const running = await until('all three folders to be served', () => {
      const all = api.servers();
      return all.length === 3 && all.every((s) => s.state === 'running' && s.url) ? all : undefined;
    }, 60000, 20);
    figures.activationToReadyMs = Date.now() - api.activatedAt;
    // Tools listed over each folder's definition (its URL and bearer token), as an MCP client does.
    const lists = await Promise.all(['alpha', 'beta', 'gamma'].map(async (name) => {
      clients[name] = await connect(snap(name));
      return (await clients[name].listTools()).tools.map((t) => t.name);
    }));
    figures.activationToToolsListedMs = Date.now() - api.activatedAt;
    for (const l of lists) assert(l.includes('shell_execute'), `tools: ${l.join(', ')}`);
    const pids = new Set(running.map((s) => s.pid));
    assert(pids.size === 1, `one process expected, pids ${[...pids].join(', ')}`);
    assert(new Set(running.map((s) => s.url)).size === 3, 'the folders share an endpoint');
    assert(new Set(running.map((s) => s.token)).size === 3, 'the folders share a token');
    // One folder's token opens no other folder's endpoint.
    const res = await fetch(snap('beta').url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${snap('alpha').token}` }, body: '{}' });
    assert(res.status === 401, `alpha's token on beta's endpoint: HTTP ${res.status}`);
    const rss = treeRssKb(running[0].pid);
    figures.serverProcesses = rss.pids.length;
    figures.totalRssMbAfterToolsListed = Math.round(rss.kb / 102.4) / 10;
    figures.serverRssPlusHelpersPssMbAfterToolsListed = Math.round(rss.uniqueKb / 102.4) / 10;
    say(`pid ${running[0].pid}; ready ${figures.activationToReadyMs} ms, tools listed ${figures.activationToToolsListedMs} ms after activation; RSS ${figures.totalRssMbAfterToolsListed} MB (${rss.pids.length} process(es))`);
  });

  await scenario('each folder\'s tools run under that folder\'s own policy (alpha readOnly, beta auto)', async () => {
    const alpha = byName('alpha').uri.fsPath;
    const beta = byName('beta').uri.fsPath;
    const stA = await api.status(byName('alpha').uri);
    const stB = await api.status(byName('beta').uri);
    assert(stA.mode === 'readOnly' && stB.mode === 'auto', `modes: alpha ${stA.mode}, beta ${stB.mode}`);
    const toolsA = (await clients.alpha.listTools()).tools.map((t) => t.name);
    assert(!toolsA.includes('writeFile'), `readOnly alpha offers writeFile: ${toolsA.join(', ')}`);
    const wA = await call(clients.alpha, 'writeFile', { file: 'a.txt', text: 'x' });
    assert(wA.isError && !fs.existsSync(path.join(alpha, 'a.txt')), `writeFile in readOnly alpha: ${textOf(wA)}`);
    const tA = await call(clients.alpha, 'shell_execute', { command: ['touch', 'a-touched'] });
    assert(tA.isError && !fs.existsSync(path.join(alpha, 'a-touched')), `touch in readOnly alpha: ${textOf(tA)}`);
    const wB = await call(clients.beta, 'writeFile', { file: 'b.txt', text: 'from beta' });
    assert(!wB.isError && fs.readFileSync(path.join(beta, 'b.txt'), 'utf8').startsWith('from beta'), `writeFile in auto beta: ${textOf(wB)}`);
  });

  await scenario('each folder is confined to its own root: a path into a sibling folder is refused', async () => {
    const alpha = byName('alpha').uri.fsPath;
    const beta = byName('beta').uri.fsPath;
    for (const file of ['../alpha/from-gamma.txt', path.join(alpha, 'from-gamma.txt'), path.join(beta, 'from-gamma.txt')]) {
      const r = await call(clients.gamma, 'writeFile', { file, text: 'x' });
      assert(r.isError, `gamma wrote ${file}: ${textOf(r)}`);
    }
    assert(!fs.existsSync(path.join(alpha, 'from-gamma.txt')) && !fs.existsSync(path.join(beta, 'from-gamma.txt')), 'a file appeared in a sibling folder');
    const read = await call(clients.gamma, 'readFile', { file: path.join(beta, 'b.txt') });
    assert(read.isError && !textOf(read).includes('from beta'), `gamma's readFile read beta's file: ${textOf(read)}`);
    // A command's working directory in a sibling folder is refused too. (Its arguments are the sandbox's business:
    // unsandboxed commands run with the user's permissions, docs/isolation.md.)
    const cwd = await call(clients.gamma, 'shell_execute', { command: ['touch', 'x'], directory: beta });
    assert(cwd.isError && !fs.existsSync(path.join(beta, 'x')), `gamma ran a command in beta: ${textOf(cwd)}`);
    const own = await call(clients.gamma, 'writeFile', { file: 'mine.txt', text: 'x' });
    assert(!own.isError, `gamma could not write in its own root: ${textOf(own)}`);
  });

  await scenario('VS Code\'s own MCP client lists the tools of all three definitions', async () => {
    const t0 = Date.now();
    const ids = ['alpha', 'beta', 'gamma'].map((n) => `${process.env.MCP_SERVER_PREFIX}${n}`);
    const shellTools = () => vscode.lm.tools.filter((t) => /_shell_execute$/.test(t.name));
    await until('three shell_execute tools in vscode.lm.tools', async () => {
      for (const id of ids) await within(30000, `workbench.mcp.startServer ${id}`, Promise.resolve(vscode.commands.executeCommand('workbench.mcp.startServer', id, { waitForLiveTools: true, autoTrustChanges: true })));
      return shellTools().length >= 3;
    }, 60000, 500);
    figures.vscodeClientListsAllThreeMs = Date.now() - t0;
    say(`vscode.lm.tools: ${shellTools().map((t) => t.name).join(', ')}`);
  });

  await scenario('removing a folder stops serving it without restarting the process; adding it back serves it again', async () => {
    const before = snap('gamma');
    const pid = snap('alpha').pid;
    const gamma = byName('gamma');
    const alphaUrl = snap('alpha').url;
    assert(vscode.workspace.updateWorkspaceFolders(2, 1), 'updateWorkspaceFolders refused the removal');
    await until('gamma to be gone', () => api.servers().length === 2 && !api.servers().some((s) => s.folder === gamma.uri.fsPath), 30000, 50);
    // The folder leaves the list at once; its endpoint closes once the process has killed its commands.
    await until('gamma\'s endpoint to close', () => fetch(before.url, { method: 'POST', headers: { Authorization: `Bearer ${before.token}` }, body: '{}' }).then(() => false, () => true), 15000, 50);
    assert(snap('alpha').pid === pid && snap('alpha').url === alphaUrl, 'removing gamma restarted the others');
    const r = await call(clients.beta, 'shell_execute', { command: ['echo', 'still-here'] });
    assert(!r.isError && textOf(r).includes('still-here'), `beta after gamma left: ${textOf(r)}`);
    assert(vscode.workspace.updateWorkspaceFolders(2, 0, { uri: gamma.uri, name: gamma.name }), 'updateWorkspaceFolders refused the addition');
    const back = await until('gamma to be served again', () => { const s = api.servers().find((x) => x.folder === gamma.uri.fsPath); return s && s.state === 'running' && s.url ? s : undefined; }, 30000, 50);
    assert(back.pid === pid, `gamma came back in another process (${back.pid}, window process ${pid})`);
    assert(back.token !== before.token, 'gamma came back with its old token');
    const c = await connect(back);
    const e = await call(c, 'shell_execute', { command: ['echo', 'gamma-again'] });
    assert(!e.isError && textOf(e).includes('gamma-again'), `gamma after re-adding: ${textOf(e)}`);
    await c.close().catch(() => {});
  });

  await scenario('the figures: total RSS of the processes the extension started, activation to tools listed', async () => {
    const all = api.servers();
    const pids = [...new Set(all.map((s) => s.pid))];
    await sleep(500);
    const rss = pids.map(treeRssKb).reduce((a, r) => ({ kb: a.kb + r.kb, n: a.n + r.pids.length }), { kb: 0, n: 0 });
    figures.totalRssMbAtEnd = Math.round(rss.kb / 102.4) / 10;
    figures.folders = all.length;
    figures.vscodeVersion = vscode.version;
    figures.measuredAt = new Date().toISOString();
    say(`figures: ${JSON.stringify(figures)}`);
    if (process.env.E2E_REPORT) fs.writeFileSync(process.env.E2E_REPORT, JSON.stringify(figures, null, 2) + '\n');
    assert(figures.activationToToolsListedMs > 0 && figures.totalRssMbAfterToolsListed > 0, `incomplete figures: ${JSON.stringify(figures)}`);
  });

  await scenario('after the window\'s process is killed, one new process serves all three folders again', async () => {
    const before = api.servers();
    const pid = before[0].pid;
    process.kill(pid, 'SIGKILL');
    const after = await until('all three folders served by a new process', () => {
      const all = api.servers();
      return all.length === 3 && all.every((s) => s.state === 'running' && s.pid && s.pid !== pid) ? all : undefined;
    }, 60000, 50);
    assert(new Set(after.map((s) => s.pid)).size === 1, `the folders came back in several processes: ${after.map((s) => s.pid).join(', ')}`);
    for (const s of after) {
      const old = before.find((b) => b.folder === s.folder);
      assert(old && s.token !== old.token && Number(s.version) > Number(old.version), `${s.label}: no new token or definition version`);
    }
    const alpha = after.find((s) => s.folder === byName('alpha').uri.fsPath);
    const c = await connect(alpha);
    const r = await call(c, 'shell_execute', { command: ['touch', 'after-crash'] });
    assert(r.isError && !fs.existsSync(path.join(alpha.folder, 'after-crash')), `alpha lost its readOnly policy in the restart: ${textOf(r)}`);
    await c.close().catch(() => {});
  });

  for (const c of Object.values(clients)) await c.close().catch(() => {});
  finish();
};
