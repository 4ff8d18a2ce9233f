// The one Playwright driver of the real-VS-Code end-to-end suites: opens the workbench with the extension-test
// payload ($VSCODE_URL) in headless Chromium and waits for the extension tests' exit code (codeAutomationExit).
// Usage: node test/vscode/driver.js [player.js]
// A player module plays the person at the workbench while the tests run (test/vscode-approval/ui.js clicks the
// approval cards): it exports play(page, { scenario, say }) and, optionally, limitMs and viewport. Its checks are
// written to $E2E_OUT/ui-results.json and count for the exit code.
// Prints "driver: codeAutomationExit=N"; the runner (scripts/e2e-lib.sh) prints the scenarios.
'use strict';
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');
const fs = require('fs'), os = require('os'), path = require('path');
const { recorder } = require('./lib/util.js');
const { dialogCounter } = require('./lib/dialogFence.js');

const OUT = process.env.E2E_OUT;
const player = process.argv[2] ? require(path.resolve(process.argv[2])) : null;
const LIMIT_MS = Number(process.env.E2E_DRIVER_TIMEOUT_MS || (player && player.limitMs) || 240000);

// The browser: $CHROMIUM, else the first of the names distributions give it on PATH (no fixed path: it differs).
function findBrowser() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'chrome']) {
    for (const dir of (process.env.PATH || '').split(path.delimiter).filter((d) => path.isAbsolute(d))) {
      try { fs.accessSync(path.join(dir, name), fs.constants.X_OK); return path.join(dir, name); } catch { /* next */ }
    }
  }
  throw new Error('driver: no Chromium found (install chromium, or set CHROMIUM=/path/to/browser)');
}

(async () => {
  const udd = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(udd, {
    executablePath: findBrowser(), headless: true,
    ...(player && player.viewport ? { viewport: player.viewport } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  let code = null;
  const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (c) => { code = c; resolve(); }));
  const dialogs = dialogCounter(OUT); // VS Code's own tool confirmations, counted for the suite (lib/dialogFence.js)
  await page.exposeFunction('codeAutomationLog', (type, args) => {
    dialogs.onLog(type, args);
    fs.appendFileSync(path.join(OUT, 'exthost.log'), `${type} ${JSON.stringify(args)}\n`);
  });
  await page.goto(process.env.VSCODE_URL);

  const ui = player ? recorder({ logName: 'driver.log', resultsName: 'ui-results.json', prefix: '[ui] ' }) : null;
  const played = ui ? player.play(page, ui) : Promise.resolve();
  const fence = dialogs.serve(page);
  await Promise.race([Promise.all([played, exited]), new Promise((r) => setTimeout(r, LIMIT_MS))]);
  dialogs.stop();
  await fence;
  const uiFailed = ui ? ui.write() : [];
  if (code !== 0) await page.screenshot({ path: path.join(OUT, 'fail.png') }).catch(() => {});
  // Closing the page is "closing VS Code": the extension host goes away, and with it our servers.
  await ctx.close();
  fs.rmSync(udd, { recursive: true, force: true });
  console.log(`driver: codeAutomationExit=${code}`);
  process.exit(code === 0 && uiFailed.length === 0 ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(2); });
