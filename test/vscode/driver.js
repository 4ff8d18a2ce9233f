// Opens the VS Code workbench with the extension-test payload in headless Chromium and waits for the extension
// tests' exit code (codeAutomationExit). Prints nothing on success but "driver: exit N"; the runner counts scenarios.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs'), os = require('os'), path = require('path');
const OUT = process.env.E2E_OUT;
const LIMIT_MS = Number(process.env.E2E_DRIVER_TIMEOUT_MS || 240000);
(async () => {
  const udd = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(udd, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  let code = null;
  const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (c) => { code = c; resolve(); }));
  await page.exposeFunction('codeAutomationLog', (type, args) => fs.appendFileSync(path.join(OUT, 'exthost.log'), `${type} ${JSON.stringify(args)}\n`));
  await page.goto(process.env.VSCODE_URL);
  await Promise.race([exited, new Promise((r) => setTimeout(r, LIMIT_MS))]);
  if (code !== 0) await page.screenshot({ path: path.join(OUT, 'fail.png') }).catch(() => {});
  // Closing the page is "closing VS Code": the extension host goes away, and with it our servers.
  await ctx.close();
  fs.rmSync(udd, { recursive: true, force: true });
  console.log(`driver: codeAutomationExit=${code}`);
  process.exit(code === 0 ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(2); });
