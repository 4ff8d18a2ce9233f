// Opens the VS Code workbench (extension-test payload) in headless Chromium and plays the person at the approval
// panel: waits for each card the suite's calls produce, checks what it shows, clicks. Writes its checks to
// $E2E_OUT/ui-results.json and waits for the extension tests' exit code (codeAutomationExit).
'use strict';
const { chromium } = require(process.env.PLAYWRIGHT_CORE || 'playwright-core');
const fs = require('fs'), os = require('os'), path = require('path');
const shared = require('./shared.js');

const OUT = process.env.E2E_OUT;
const EXT_ID = process.env.EXT_ID;
const LIMIT_MS = Number(process.env.E2E_DRIVER_TIMEOUT_MS || 360000);
const results = [];
const say = (m) => fs.appendFileSync(path.join(OUT, 'driver.log'), `${new Date().toISOString()} ${m}\n`);

async function check(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name: `[ui] ${name}`, ok: true, ms: Date.now() - t0 });
    say(`ok - ${name}`);
  } catch (e) {
    results.push({ name: `[ui] ${name}`, ok: false, ms: Date.now() - t0, error: String((e && e.stack) || e) });
    say(`not ok - ${name}: ${(e && e.stack) || e}`);
  }
}
function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual), b = JSON.stringify(expected);
  if (a !== b) throw new Error(`${what}:\n  actual   ${a}\n  expected ${b}`);
}

(async () => {
  const udd = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-approval-chromium-'));
  const ctx = await chromium.launchPersistentContext(udd, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, viewport: { width: 1500, height: 1000 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  let code = null;
  const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (c) => { code = c; resolve(); }));
  await page.exposeFunction('codeAutomationLog', (type, args) => fs.appendFileSync(path.join(OUT, 'exthost.log'), `${type} ${JSON.stringify(args)}\n`));
  await page.goto(process.env.VSCODE_URL);

  const frameSel = `iframe.webview[src*="extensionId=${EXT_ID}"]`;
  const panel = page.frameLocator(frameSel).frameLocator('iframe#active-frame');
  /** A card whose argv holds a chip with exactly this visible text (spaces are shown as ·), ready for input. */
  const cardWithChip = (text) => panel.locator('li.card:not([aria-disabled])', { has: panel.locator('bdi.chip', { hasText: text }) });
  const diffRows = (card) => card.locator('table.diff tbody tr').evaluateAll((trs) => trs.map((tr) => {
    const kind = tr.className.replace('line ', '');
    const cells = [...tr.querySelectorAll('td')];
    if (cells.length === 1) return [kind, cells[0].textContent];
    return [kind, cells[0].textContent, cells[1].textContent, cells[2].querySelector('[aria-hidden]').textContent, cells[3].textContent];
  }));
  const click = (card, name) => card.getByRole('button', { name, exact: true }).click({ timeout: 15000 });

  const ui = (async () => {
    await check('the card of a command shows its argv and Approve returns it to the agent', async () => {
      const card = cardWithChip(shared.APPROVE_WORD);
      await card.waitFor({ timeout: 150000 }); // activation + server start + first webview
      const chips = await card.locator('bdi.chip').allTextContents();
      assertEqual(chips, ['echo', shared.APPROVE_WORD], 'chips');
      const iso = await card.locator('dd.warning').textContent();
      if (!/none/.test(iso)) throw new Error(`no no-isolation warning: ${iso}`);
      await click(card, 'Approve');
    });

    await check('Deny with a typed reason', async () => {
      const card = cardWithChip(shared.DENY_WORD);
      await card.waitFor({ timeout: 60000 });
      await card.locator('.reason-input').fill(shared.DENY_REASON);
      await click(card, 'Deny');
    });

    await check('two cards at once; the editFile card shows exactly the diff lines; screenshot; Approve both', async () => {
      const edit = panel.locator('li.card:not([aria-disabled])', { has: panel.locator('table.diff') });
      const printf = cardWithChip('second'); // the chip reads 'second·card' (plus a screen-reader-only word)
      await edit.waitFor({ timeout: 60000 });
      await printf.waitFor({ timeout: 60000 });
      assertEqual(await panel.locator('li.card').count(), 2, 'cards pending');
      assertEqual(await diffRows(edit), shared.EDIT_ROWS, 'diff rows');
      assertEqual(await panel.locator('#pending-count').textContent(), '2', 'pending count');
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(OUT, 'workbench-with-diff-card.png') });
      const shot = process.env.E2E_SHOT;
      if (shot) {
        await page.locator(frameSel).screenshot({ path: shot });
        say(`panel screenshot saved to ${shot}`);
      }
      await click(edit, 'Approve');
      await click(printf, 'Approve');
    });

    await check('Deny on the next editFile card (its diff removes one line)', async () => {
      const edit = panel.locator('li.card:not([aria-disabled])', { has: panel.locator('table.diff') });
      await edit.waitFor({ timeout: 60000 });
      assertEqual(await diffRows(edit), shared.DENIED_ROWS, 'diff rows');
      // VS Code's own diff editor: the proposed content (read-only) beside the file.
      await click(edit, 'Open in diff editor');
      await page.locator('.tabs-container .tab', { hasText: 'notes.txt ↔ proposed (Guarded Shell)' }).waitFor({ timeout: 15000 });
      // Left: the file as the server read it (gamma present); right: the proposed, read-only content (gamma gone).
      const diffEditor = page.locator('.monaco-diff-editor').first();
      await diffEditor.locator('.editor.original .view-lines', { hasText: 'gamma' }).waitFor({ timeout: 15000 });
      // (the modified editor also shows the removed lines as view zones: only its own text lines count)
      const modifiedLines = diffEditor.locator('.editor.modified .view-lines:not([monaco-view-zone])');
      await modifiedLines.filter({ hasText: 'delta' }).waitFor({ timeout: 15000 });
      const modified = await modifiedLines.innerText();
      if (/gamma/.test(modified)) throw new Error(`the proposed side still has gamma: ${JSON.stringify(modified)}`);
      await page.screenshot({ path: path.join(OUT, 'diff-editor.png') });
      await edit.locator('.reason-input').fill(shared.EDIT_DENY_REASON);
      await click(edit, 'Deny');
    });

    await check('"Always allow this exact command"', async () => {
      const card = cardWithChip(shared.ALWAYS_WORD);
      await card.waitFor({ timeout: 60000 });
      await click(card, 'Always allow this exact command');
    });

    await check('"Allow for 15 minutes", then Revoke in the history tab: the same command asks again', async () => {
      const card = cardWithChip(shared.TIMED_WORD);
      await card.waitFor({ timeout: 60000 });
      await click(card, 'Allow for 15 minutes');
      const go = path.join(OUT, 'revoke-now');
      for (let i = 0; i < 120 && !fs.existsSync(go); i++) await page.waitForTimeout(500);
      if (!fs.existsSync(go)) throw new Error('the suite never asked for the revocation');
      await panel.getByRole('tab', { name: 'History' }).click();
      const key = `echo ${shared.TIMED_WORD}`;
      const item = panel.locator('ul.remembered li', { hasText: shared.TIMED_WORD });
      await item.waitFor({ timeout: 10000 });
      const kind = await item.locator('.kind').textContent();
      if (!/^until /.test(kind)) throw new Error(`the remembered approval does not say until when: ${kind}`);
      await panel.getByRole('button', { name: `Revoke ${key}`, exact: true }).click();
      await item.waitFor({ state: 'detached', timeout: 10000 });
      await panel.getByRole('tab', { name: /Pending/ }).click();
      fs.writeFileSync(path.join(OUT, 'revoked'), '');
      const again = cardWithChip(shared.TIMED_WORD);
      await again.waitFor({ timeout: 60000 });
      await again.locator('.reason-input').fill(shared.REVOKED_REASON);
      await click(again, 'Deny');
    });

    await check('the history tab lists the requests with their outcomes and who decided', async () => {
      const done = path.join(OUT, 'suite-done');
      for (let i = 0; i < 240 && !fs.existsSync(done); i++) await page.waitForTimeout(500);
      if (!fs.existsSync(done)) throw new Error('the suite did not finish its calls');
      assertEqual(await panel.locator('li.card').count(), 0, 'cards left after the last call (the always-allowed call must not show one)');
      await panel.getByRole('tab', { name: 'History' }).click();
      const rows = panel.locator('table.history tbody tr');
      await rows.first().waitFor({ timeout: 10000 });
      const outcomes = await rows.evaluateAll((trs) => trs.map((tr) => [tr.querySelectorAll('td')[2].textContent, tr.dataset.outcome, tr.querySelectorAll('td')[7].textContent]));
      say(`history: ${JSON.stringify(outcomes)}`);
      const count = (tool, outcome) => outcomes.filter(([t, o]) => t === tool && o === outcome).length;
      if (count('shell_execute', 'denied') !== 3) throw new Error('not 3 denied shell_execute calls in the history (deny-me, the closed panel, the revoked one)');
      if (count('editFile', 'denied') < 1 || count('editFile', 'success') < 1) throw new Error('editFile outcomes missing from the history');
      if (count('shell_execute', 'success') !== 6) throw new Error('not 6 successful commands in the history');
      if (!outcomes.some(([, , by]) => /user \(always\)/.test(by))) throw new Error('the "always" decision is not in the history');
      if (!outcomes.some(([, , by]) => /user \(timed\)/.test(by))) throw new Error('the 15-minute decision is not in the history');
      await panel.locator('#history-filter').selectOption('denied');
      assertEqual(await rows.count(), 4, 'rows with the denied filter (deny-me, the denied edit, the closed panel, the revoked command)');
    });
  })();

  await Promise.race([Promise.all([ui.finally(() => fs.writeFileSync(path.join(OUT, 'ui-done'), '')), exited]), new Promise((r) => setTimeout(r, LIMIT_MS))]);
  fs.writeFileSync(path.join(OUT, 'ui-results.json'), JSON.stringify(results, null, 2));
  if (code !== 0) await page.screenshot({ path: path.join(OUT, 'fail.png') }).catch(() => {});
  await ctx.close();
  fs.rmSync(udd, { recursive: true, force: true });
  console.log(`driver: codeAutomationExit=${code}`);
  process.exit(code === 0 && results.every((r) => r.ok) ? 0 : 1);
})().catch((e) => { console.error(e); process.exit(2); });
