// The person at the approval panel for effects.sh, played by test/vscode/driver.js while effects-suite.js (the agent,
// in the extension host) runs commands: approves each command's card, then checks its effect card — the diff, and that
// the folder is still untouched while the card is open — and applies or discards it; undoes a command from the
// history; edits the file while one effect card is open and applies it (a conflict). A card that is not the expected
// one is denied at once. Each check is recorded in $E2E_OUT/ui-results.json.
'use strict';
const fs = require('fs'), path = require('path');
const { approvalPanel, playThenDone } = require('../vscode/lib/panelDriver.js');
const { EFFECTS: E } = require('./shared.js');
const { readDiffRows } = require('../webview/diffRows.js');
const { assertEqual } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;
const WS = process.env.E2E_WS;
const UNEXPECTED = 'unexpected card (effects-ui.js)';

exports.limitMs = 420000;
exports.viewport = { width: 1500, height: 1000 };

exports.play = playThenDone(playCards);

async function playCards(page, check, say) {
  const panel = approvalPanel(page);
  const anyCard = panel.locator('li.card:not([aria-disabled])').first();
  const click = (card, name) => card.getByRole('button', { name, exact: true }).click({ timeout: 15000 });
  const quoted = (argv) => argv.map((a) => JSON.stringify(a));
  const argvOf = (card) => card.locator('ol.argv li.arg').evaluateAll((lis) => lis.map((li) => li.title));
  const read = (rel) => fs.readFileSync(path.join(WS, rel));
  const suiteSaid = async (name, why, seconds = 90) => {
    const f = path.join(OUT, name);
    for (let i = 0; i < seconds * 2 && !fs.existsSync(f); i++) await page.waitForTimeout(500);
    if (!fs.existsSync(f)) throw new Error(why);
  };

  /** The next card must be the command `argv`'s (its run) or, with `effect`, the card of its effect. */
  async function nextCard(argv, effect, timeout = 90000) {
    await anyCard.waitFor({ timeout });
    const card = anyCard;
    const shows = effect ? ((await card.locator('.effect').count()) ? await card.locator('.effect .ran bdi.path').innerText() : null) : (await card.locator('ol.argv').count()) ? await argvOf(card) : null;
    const want = effect ? quoted(argv).join(' ') : quoted(argv);
    if (JSON.stringify(shows) !== JSON.stringify(want)) {
      await card.locator('.reason-input').fill(UNEXPECTED);
      await click(card, (await card.locator('.effect').count()) ? 'Discard' : 'Deny');
      throw new Error(`expected ${effect ? 'the effect card' : 'the card'} of ${JSON.stringify(want)}, the panel showed ${JSON.stringify(shows)} (denied)`);
    }
    assertEqual(await panel.locator('li.card').count(), 1, 'cards pending');
    return card;
  }
  /** Approves the command's own card; returns its effect card. */
  async function approveRun(argv, timeout) {
    const card = await nextCard(argv, false, timeout);
    await click(card, 'Approve');
    return nextCard(argv, true);
  }
  const filesOf = (card) => card.locator('ul.effect-files li').evaluateAll((lis) => lis.map((li) => [li.dataset.change, li.querySelector('bdi').textContent]));

  await check('touch new.txt: approved, its effect card names the new file while the folder does not have it yet; Apply', async () => {
    const card = await approveRun(E.TOUCH, 150000); // activation + server start + first webview
    assertEqual(await filesOf(card), [['created', 'new.txt']], 'the files on the card');
    assertEqual(await card.locator('table.diff tbody tr').evaluateAll((trs) => trs.map((tr) => tr.textContent)), ['New empty file new.txt'], 'the diff');
    if (fs.existsSync(path.join(WS, 'new.txt'))) throw new Error('new.txt is in the folder before Apply');
    const limits = await card.locator('p.limits').innerText();
    if (!/outside/.test(limits)) throw new Error(`the card does not say what a preview cannot see: ${limits}`);
    await page.screenshot({ path: path.join(OUT, 'effect-card-touch.png') });
    await click(card, 'Apply');
  });

  await check('the rewrite: its effect card shows exactly the diff while the file still has its old bytes; Apply', async () => {
    const card = await approveRun(E.REWRITE);
    assertEqual(await filesOf(card), [['modified', E.FILE]], 'the files on the card');
    assertEqual(await card.locator('table.diff tbody tr').evaluateAll(readDiffRows), E.REWRITE_ROWS, 'the diff rows');
    if (Buffer.compare(read(E.FILE), Buffer.from(E.BEFORE)) !== 0) throw new Error(`${E.FILE} changed before Apply`);
    await page.screenshot({ path: path.join(OUT, 'effect-card-rewrite.png') });
    await click(card, 'Apply');
  });

  await check('Undo in the history: the command\'s row lists its change; Undo\'s own card shows the diff back; Approve', async () => {
    await suiteSaid('undo-now', 'the suite never asked for the Undo');
    await panel.getByRole('tab', { name: 'History' }).click();
    // The row of the command whose change was applied to the tracked file (a long argv element is shown as a digest,
    // as the redacted audit has it: the row is found by its change).
    const row = panel.locator('table.history tbody tr', { has: panel.locator('.changes', { hasText: `Applied (1 file): ${E.FILE}` }) });
    await row.first().waitFor({ timeout: 15000 });
    const changes = await row.first().locator('.changes').innerText();
    if (!changes.includes(`Applied (1 file): ${E.FILE}`)) throw new Error(`the row does not list the command's change: ${changes}`);
    await row.first().getByRole('button', { name: /^Undo / }).click({ timeout: 15000 });
    const card = panel.locator('li.card:not([aria-disabled])', { hasText: /Undo/ });
    await card.waitFor({ timeout: 30000 });
    const rows = await card.locator('table.diff tbody tr').evaluateAll(readDiffRows);
    const changed = rows.filter((r) => r[0] === 'add' || r[0] === 'del').map((r) => [r[0], r[4]]);
    assertEqual(changed, [['del', 'BETA'], ['add', 'beta']], 'the Undo card\'s changed lines');
    await click(card, 'Approve');
  });

  await check('Discard with a reason: nothing of the command reaches the folder', async () => {
    await panel.getByRole('tab', { name: /Pending/ }).click();
    const card = await approveRun(E.DISCARD);
    const files = await filesOf(card);
    assertEqual(files.map((f) => f[1]).sort(), ['junk.txt', 'new.txt', E.FILE].sort(), 'the files on the card');
    await card.locator('.reason-input').fill(E.DISCARD_REASON);
    await click(card, 'Discard');
  });

  await check('a conflict: the person edits the file while the effect card is open, then Apply: nothing is overwritten, and it is said', async () => {
    const card = await approveRun(E.CONFLICT);
    fs.writeFileSync(path.join(WS, E.FILE), E.PERSON_EDIT);
    await click(card, 'Apply');
    // VS Code's own notification says it, and the history row does.
    // VS Code's own notification says it (the history row does too: checked below). Looked for in the notification
    // center, where every notification lands whether or not a toast is shown.
    await page.waitForTimeout(1500);
    await page.locator('#status\\.notifications, .statusbar-item[id="status.notifications"]').first().click({ timeout: 15000 });
    const item = page.locator('.notifications-center .notification-list-item', { hasText: 'were not applied' });
    await item.first().waitFor({ timeout: 15000 });
    say(`notification: ${await item.first().innerText()}`);
    await page.screenshot({ path: path.join(OUT, 'conflict.png') });
    await page.keyboard.press('Escape');
  });

  await check('the history: one timeline per folder, every command with what became of its changes', async () => {
    await suiteSaid('suite-done', 'the suite did not finish its calls', 120);
    assertEqual(await panel.locator('li.card').count(), 0, 'cards left');
    await panel.getByRole('tab', { name: 'History' }).click();
    const folders = await panel.locator('#history-folder option').allTextContents();
    assertEqual(folders, ['all folders', path.basename(WS)], 'the folder choice');
    await panel.locator('#history-folder').selectOption(path.basename(WS));
    // [tool, what became of the changes, the files], newest first.
    const read = () => panel.locator('table.history tbody tr').evaluateAll((trs) => trs.map((tr) => {
      const c = tr.querySelector('.changes');
      return [tr.querySelectorAll('td')[2].textContent, c ? c.querySelector('.effect').textContent : '', c ? [...c.querySelectorAll('bdi')].map((b) => b.textContent).sort().join(' ') : ''];
    }));
    let rows = await read();
    for (let i = 0; i < 40 && !rows.some(([, e]) => /changed meanwhile/.test(e)); i++) {
      await page.waitForTimeout(250);
      rows = await read();
    }
    say(`history: ${JSON.stringify(rows)}`);
    assertEqual(rows.filter(([tool]) => tool === 'shell_execute').map(([, e, f]) => [e, f]), [
      ['Not applied (changed meanwhile) (1 file): ', E.FILE],
      ['Discarded (3 files): ', ['junk.txt', 'new.txt', E.FILE].sort().join(' ')],
      ['Applied (1 file): ', E.FILE],
      ['Applied (1 file): ', 'new.txt'],
    ], 'the commands in the history, with their changes');
    if (!rows.some(([tool]) => tool === 'undo')) throw new Error('the Undo is not in the history');
    await page.screenshot({ path: path.join(OUT, 'history.png') });
  });
}
