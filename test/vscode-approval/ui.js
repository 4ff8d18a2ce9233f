// The person at the approval panel, played by test/vscode/driver.js while suite.js (in the extension host) calls the
// tools: waits for each card the suite's calls produce, checks what it shows, clicks. Each check is recorded by the
// driver in $E2E_OUT/ui-results.json.
'use strict';
const fs = require('fs'), path = require('path');
const { approvalPanel, panelFrameSelector, playThenDone } = require('../vscode/lib/panelDriver.js');
const shared = require('./shared.js');
const { readDiffRows } = require('../webview/diffRows.js');
const { assertEqual } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;

// The cards wait for activation, server start and the first webview; the history check waits for the suite.
exports.limitMs = 360000;
exports.viewport = { width: 1500, height: 1000 };

exports.play = playThenDone(playCards);

async function playCards(page, check, say) {
  const frameSel = panelFrameSelector();
  const panel = approvalPanel(page);
  /** A card whose argv holds a chip with this visible text (spaces are shown as ·), ready for input. (Only the argv's
   * chips: the offered "Always allow" rules are chips too.) */
  const cardWithChip = (text) => panel.locator('li.card:not([aria-disabled])', { has: panel.locator('ol.argv bdi.chip', { hasText: text }) });
  const diffRows = (card) => card.locator('table.diff tbody tr').evaluateAll(readDiffRows);
  const click = (card, name) => card.getByRole('button', { name, exact: true }).click({ timeout: 15000 });
  /** Waits for the suite's signal file (it writes one when its side of a scenario is done); `why` names a missing one. */
  const suiteSaid = async (file, why, seconds = 60) => {
    const f = path.join(OUT, file);
    for (let i = 0; i < seconds * 2 && !fs.existsSync(f); i++) await page.waitForTimeout(500);
    if (!fs.existsSync(f)) throw new Error(why);
  };

  await check('the card of a command shows its argv and Approve returns it to the agent', async () => {
    const card = cardWithChip(shared.APPROVE_WORD);
    await card.waitFor({ timeout: 150000 }); // activation + server start + first webview
    const chips = await card.locator('ol.argv bdi.chip').allTextContents();
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

  await check('batch approval per kind: the commands batch lists exactly the two commands; the file change stays pending, then Deny', async () => {
    const edit = panel.locator('li.card:not([aria-disabled])', { has: panel.locator('table.diff') });
    const cmds = shared.BATCH_WORDS.map((w) => cardWithChip(w));
    for (const c of [edit, ...cmds]) await c.waitFor({ timeout: 60000 });
    assertEqual(await panel.locator('li.card').count(), 3, 'cards pending');
    const toolbar = await panel.locator('.toolbar button:visible').allTextContents();
    assertEqual(toolbar, ['Approve all 2 commands…', 'Approve all 1 file change…'], 'batch buttons');
    // The first click only lists what the batch covers: the two command lines, not the file change.
    await panel.getByRole('button', { name: 'Approve all 2 commands…', exact: true }).click({ timeout: 15000 });
    const region = panel.getByRole('region', { name: 'Approve these 2 commands?', exact: true });
    await region.waitFor({ timeout: 10000 });
    const listed = await region.locator('li').allTextContents();
    // (the cards' order is the order the calls arrived in, which the suite does not fix)
    assertEqual([...listed].sort(), shared.BATCH_WORDS.map((w) => `"echo" "${w}"`).sort(), 'the batch list');
    assertEqual(await panel.locator('li.card').count(), 3, 'cards pending before "Approve these 2"');
    await region.getByRole('button', { name: 'Approve these 2', exact: true }).click({ timeout: 15000 });
    // The suite sees both outputs and that the file change is still waiting, then says so.
    await suiteSaid('batch-ran', 'the suite never saw the two commands run');
    assertEqual(await panel.locator('li.card').count(), 1, 'cards pending after the commands batch');
    assertEqual(await panel.locator('.toolbar button:visible').allTextContents(), ['Approve all 1 file change…'], 'batch buttons after the commands batch');
    await edit.locator('.reason-input').fill(shared.BATCH_DENY_REASON);
    await click(edit, 'Deny');
  });

  await check('"Always allow" with the rule as offered: the exact command line', async () => {
    const card = cardWithChip(shared.ALWAYS_WORD);
    await card.waitFor({ timeout: 60000 });
    assertEqual(await card.locator('input.rule-input').inputValue(), `echo ${shared.ALWAYS_WORD}`, 'the rule field, prefilled');
    await click(card, 'Always allow (rule below)');
  });

  await check('"Allow for 15 minutes", then Revoke in the history tab: the same command asks again', async () => {
    const card = cardWithChip(shared.TIMED_WORD);
    await card.waitFor({ timeout: 60000 });
    await click(card, 'Allow for 15 minutes');
    await suiteSaid('revoke-now', 'the suite never asked for the revocation');
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

  await check('Undo in the history: its own card says what it restores; Approve restores the file', async () => {
    const write = panel.locator('li.card:not([aria-disabled])', { hasText: shared.RAW });
    await write.waitFor({ timeout: 60000 });
    await click(write, 'Approve');
    await suiteSaid('undo-now', 'the suite never asked for the Undo');
    await panel.getByRole('tab', { name: 'History' }).click();
    const undo = panel.getByRole('button', { name: `Undo ${shared.RAW}`, exact: true });
    await undo.first().click({ timeout: 15000 });
    // The Undo is a change like any other: in mode confirm it brings up its own card (the panel shows it at once).
    const card = panel.locator('li.card:not([aria-disabled])', { hasText: /restored/ });
    await card.waitFor({ timeout: 30000 });
    const text = await card.innerText();
    if (!text.includes(`Binary file ${shared.RAW}: 21 bytes now, ${shared.RAW_BYTES.length} bytes restored`)) throw new Error(`the Undo card does not say what it restores: ${text}`);
    await page.screenshot({ path: path.join(OUT, 'undo-card.png') });
    await click(card, 'Approve');
  });

  await check('the history tab lists the requests with their outcomes and who decided', async () => {
    await suiteSaid('suite-done', 'the suite did not finish its calls', 120);
    assertEqual(await panel.locator('li.card').count(), 0, 'cards left after the last call (the always-allowed call must not show one)');
    await panel.getByRole('tab', { name: 'History' }).click();
    const rows = panel.locator('table.history tbody tr');
    await rows.first().waitFor({ timeout: 10000 });
    const read = () => rows.evaluateAll((trs) => trs.map((tr) => [tr.querySelectorAll('td')[2].textContent, tr.dataset.outcome, tr.querySelectorAll('td')[7].textContent]));
    // The last decisions reach the history as audit events a moment after the suite's calls return: wait for the
    // rows to stop changing (at most 10 s) before judging them.
    let outcomes = await read();
    for (let i = 0, last = ''; i < 40; i++) {
      await page.waitForTimeout(250);
      outcomes = await read();
      const now = JSON.stringify(outcomes);
      if (now === last && i >= 3) break;
      last = now;
    }
    say(`history: ${JSON.stringify(outcomes)}`);
    const count = (tool, outcome) => outcomes.filter(([t, o]) => t === tool && o === outcome).length;
    if (count('shell_execute', 'denied') !== 3) throw new Error('not 3 denied shell_execute calls in the history (deny-me, the closed panel, the revoked one)');
    if (count('editFile', 'denied') !== 2 || count('editFile', 'success') !== 1) throw new Error('not 2 denied and 1 approved editFile in the history (the denied edit, the one beside the batch; the approved edit)');
    if (count('shell_execute', 'success') !== 8) throw new Error('not 8 successful commands in the history');
    assertEqual(outcomes.filter(([, , by]) => by === 'user (all)').map(([t, o]) => [t, o]), [['shell_execute', 'success'], ['shell_execute', 'success']], 'rows decided by the commands batch');
    if (!outcomes.some(([, , by]) => /user \(always\)/.test(by))) throw new Error('the "always" decision is not in the history');
    if (!outcomes.some(([, , by]) => /user \(timed\)/.test(by))) throw new Error('the 15-minute decision is not in the history');
    await panel.locator('#history-filter').selectOption('denied');
    assertEqual(await rows.count(), 5, 'rows with the denied filter (deny-me, the denied edit, the edit denied beside the batch, the closed panel, the revoked command)');
  });
}
