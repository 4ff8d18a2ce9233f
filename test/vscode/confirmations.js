// Which calls reach VS Code's own confirmation, per action kind, in mode confirmChanges (issue 15: "one decision
// per action"). Runs inside the extension host as part of suite.js; VS Code's confirmations are counted from its
// log by the driver (lib/dialogFence.js). Each call goes through VS Code's MCP client (vscode.lm.invokeTool), so
// the annotations VS Code acts on are the ones our server sent.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');
const { assert, within, until } = require('./lib/util.js');
const { dialogsSoFar } = require('./lib/dialogFence.js');

/** One call per action kind. `card`: Guarded Shell asks in confirmChanges (its panel), closed here to deny. */
const KINDS = [
  { kind: 'read a file (readFile)', tool: 'readFile', input: { file: 'confirm-probe.txt' } },
  { kind: 'read-only command through shell_readonly (ls)', tool: 'shell_readonly', input: { command: ['ls'] }, noPrompt: true },
  { kind: 'read-only command through shell_execute (ls)', tool: 'shell_execute', input: { command: ['ls'] } },
  { kind: 'other command (touch)', tool: 'shell_execute', input: { command: ['touch', 'confirm-touched'] }, card: 'confirm-touched' },
  { kind: 'file change (writeFile)', tool: 'writeFile', input: { file: 'confirm-written.txt', text: 'x' }, card: 'confirm-written.txt' },
  // A loopback URL: the fetch tool refuses it before any traffic; VS Code's confirmation comes before that.
  { kind: 'fetch', tool: 'fetch', input: { url: 'http://127.0.0.1:9/' } },
];

/**
 * The minimum the design allows: nothing for read-only tools (readOnlyHint), exactly one question for the rest —
 * VS Code's own, which only its "Always allow" (docs/approvals.md) removes, and Guarded Shell's card only where
 * the mode asks (never both from Guarded Shell, never a second one from VS Code).
 */
const EXPECTED = {
  'read a file (readFile)': 0,
  'read-only command through shell_readonly (ls)': 0,
  'read-only command through shell_execute (ls)': 1,
  'other command (touch)': 1,
  'file change (writeFile)': 1,
  fetch: 0, // readOnlyHint (it changes nothing here); its results are reviewed in a chat (openWorldHint)
};

/** The approval panel's tab once it shows exactly one pending card. */
function pendingTab(what) {
  return until(`the approval panel for ${what}`, () =>
    vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => /Guarded Shell: 1 pending/.test(t.label)), 30000, 250);
}

function lmText(res) {
  return res.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
}

async function countConfirmations({ scenario, say, api, folder, config, settingsLanded, startViaVscode, connect, current }) {
  const ws = folder.uri.fsPath;
  const OUT = process.env.E2E_OUT;
  await scenario('VS Code\'s own confirmation per action kind in confirmChanges: none for read-only tools, one for the rest; the panel explains the double prompt', async () => {
    fs.writeFileSync(path.join(ws, 'confirm-probe.txt'), 'probe\n');
    const gen = (await api.status(folder.uri)).settingsGeneration;
    await config().update('mode', 'confirmChanges', vscode.ConfigurationTarget.Global);
    const counts = {};
    try {
      assert((await settingsLanded(gen)).mode === 'confirmChanges', 'mode confirmChanges did not apply');
      const shell = await startViaVscode();
      assert(shell, 'VS Code\'s client did not list shell_execute');
      const prefix = shell.name.slice(0, -'shell_execute'.length);
      // What VS Code was told: the annotations of this policy, read with an SDK client.
      const client = await connect(current());
      const listed = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.annotations || {}]));
      await client.close();
      say(`annotations in confirmChanges, isolation none: ${JSON.stringify(listed)}`);
      for (const k of KINDS) {
        const lmName = prefix + k.tool;
        const tool = await until(`VS Code to list ${k.tool}`, () => vscode.lm.tools.find((t) => t.name === lmName), 10000).catch(() => undefined);
        if (!tool) {
          counts[k.kind] = 'not offered';
          continue;
        }
        const before = await dialogsSoFar(OUT);
        const pending = within(60000, `lm.invokeTool ${k.tool}`, Promise.resolve(vscode.lm.invokeTool(lmName, { input: k.input, toolInvocationToken: undefined }, new vscode.CancellationTokenSource().token)))
          .then(lmText, (e) => `error: ${e && e.message}`);
        if (k.card) {
          // Guarded Shell's own question: its panel shows the card; closing the panel denies (nothing runs).
          const tab = await pendingTab(k.tool);
          // VS Code asked first for this call (its own client, a tool not annotated read-only): the panel explains,
          // once, how to make it the only gate.
          const notice = api.approvalNotice();
          assert(notice && notice.app === vscode.env.appName && notice.servers.join() === `Guarded Shell: ${folder.name}`, `no double-prompt note for ${k.tool}: ${JSON.stringify(notice)}`);
          await vscode.window.tabGroups.close(tab);
        }
        const text = await pending;
        counts[k.kind] = (await dialogsSoFar(OUT)) - before;
        say(`${k.kind}: VS Code confirmations ${counts[k.kind]}; result ${text.slice(0, 160)}`);
        if (k.card) assert(!fs.existsSync(path.join(ws, k.card)), `${k.tool} ran although its card was closed`);
        if (k.noPrompt) {
          // No Guarded Shell card either: it ran at once, approved by nobody.
          assert(/"outcome":"ok"/.test(text) && /"approvalMs":0/.test(text) && !/approvedBy/.test(text), `${k.tool} did not run at once: ${text.slice(0, 300)}`);
        }
      }
      // A card for another client's call (VS Code did not ask for it): no note.
      const sdk = await connect(current());
      const fromSdk = sdk.callTool({ name: 'shell_execute', arguments: { command: ['touch', 'confirm-sdk'] } }).catch((e) => e);
      const tab = await pendingTab('the SDK client\'s touch');
      assert(api.approvalNotice() === undefined, `a note for another client's call: ${JSON.stringify(api.approvalNotice())}`);
      await vscode.window.tabGroups.close(tab);
      await fromSdk;
      await sdk.close();
      fs.writeFileSync(path.join(OUT, 'confirmations.json'), JSON.stringify({ mode: 'confirmChanges', isolation: 'none', counts, annotations: listed }, null, 2));
      say(`VS Code confirmations per kind: ${JSON.stringify(counts)}`);
      const wrong = Object.entries(EXPECTED).filter(([kind, n]) => counts[kind] !== n);
      assert(wrong.length === 0, `confirmations per kind ${JSON.stringify(counts)}, expected ${JSON.stringify(EXPECTED)}`);
      // The hints behind the numbers: read-only tools say so; with no sandbox a command can reach the network.
      assert(listed.shell_readonly.readOnlyHint === true && listed.shell_readonly.openWorldHint === false, `shell_readonly hints ${JSON.stringify(listed.shell_readonly)}`);
      assert(listed.shell_execute.readOnlyHint === false && listed.shell_execute.openWorldHint === true, `shell_execute hints without a sandbox ${JSON.stringify(listed.shell_execute)}`);
    } finally {
      const gen2 = (await api.status(folder.uri)).settingsGeneration;
      await config().update('mode', 'auto', vscode.ConfigurationTarget.Global);
      assert((await settingsLanded(gen2)).mode === 'auto', 'mode auto did not come back');
    }
  });
}

module.exports = { countConfirmations };
