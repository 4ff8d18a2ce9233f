// Counts VS Code's own tool confirmations, for the real-VS-Code suites.
//
// VS Code 1.139 asks before a tool call (languageModelToolsService.invokeTool) whenever the tool's
// prepareToolInvocation returns a confirmation title; for an MCP tool that is every tool not annotated readOnlyHint
// (McpToolImplementation.prepareToolInvocation). Outside a chat (vscode.lm.invokeTool without a token) the question
// is a modal dialog (dialogService.confirm), which under the smoke-test driver the workbench logs as
// "DialogService: Dialog requested during smoke test." and, in extension tests, answers "yes" itself. That log line
// reaches the driver through window.codeAutomationLog (the workbench's automation logger), so counting it counts the
// confirmations VS Code requested.
//
// The suite runs in the extension host, the driver in Playwright: they meet in files. The suite asks for the count
// with fence/req-N; the driver makes one round trip to the page first (every log line the page sent before it has
// been delivered by then, CDP keeps the order), then writes the count to fence/ack-N.
'use strict';
const fs = require('fs');
const path = require('path');
const { sleep, until } = require('./util.js');

const DIALOG_LINE = 'DialogService: Dialog requested';

/** Driver side: call onLog for every codeAutomationLog line; serve() answers the suite's requests until stop(). */
function dialogCounter(out) {
  const dir = path.join(out, 'fence');
  fs.mkdirSync(dir, { recursive: true });
  let count = 0;
  let stopped = false;
  return {
    onLog(_type, args) {
      if (JSON.stringify(args).includes(DIALOG_LINE)) count++;
    },
    async serve(page) {
      const answered = new Set();
      while (!stopped) {
        for (const f of fs.readdirSync(dir)) {
          if (!f.startsWith('req-') || answered.has(f)) continue;
          answered.add(f);
          await page.evaluate(() => 0).catch(() => {});
          fs.writeFileSync(path.join(dir, `ack-${f.slice(4)}.tmp`), String(count));
          fs.renameSync(path.join(dir, `ack-${f.slice(4)}.tmp`), path.join(dir, `ack-${f.slice(4)}`));
        }
        await sleep(50);
      }
    },
    stop() {
      stopped = true;
    },
  };
}

/** Suite side: the number of confirmations VS Code has requested so far in this window. */
function dialogsSoFar(out) {
  const dir = path.join(out, 'fence');
  fs.mkdirSync(dir, { recursive: true });
  const n = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(path.join(dir, `req-${n}`), '');
  return until('the driver to count VS Code\'s confirmations', () => {
    try {
      return { n: Number(fs.readFileSync(path.join(dir, `ack-${n}`), 'utf8')) };
    } catch {
      return undefined;
    }
  }, 30000, 50).then((r) => r.n);
}

module.exports = { dialogCounter, dialogsSoFar, DIALOG_LINE };
