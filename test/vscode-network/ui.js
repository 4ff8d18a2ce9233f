// The person at the approval panel for test/vscode-network/suite.js: waits for the host's card, checks what it
// says, clicks "Always allow <host>", then checks that no other card comes and that the history lists the hosts.
'use strict';
const fs = require('fs'), path = require('path');
const { approvalPanel, playThenDone } = require('../vscode/lib/panelDriver.js');
const shared = require('./shared.js');

const OUT = process.env.E2E_OUT;

exports.limitMs = 240000;
exports.viewport = { width: 1400, height: 900 };

exports.play = playThenDone(playCards);

async function playCards(page, check) {
  const panel = approvalPanel(page);
  const waitFile = async (name, seconds) => {
    for (let i = 0; i < seconds * 2 && !fs.existsSync(path.join(OUT, name)); i++) await page.waitForTimeout(500);
    if (!fs.existsSync(path.join(OUT, name))) throw new Error(`the suite never wrote ${name}`);
    return fs.readFileSync(path.join(OUT, name), 'utf8');
  };

  await check('the host card names the host, its method and the command; "Always allow <host>"', async () => {
    const host = await waitFile(shared.HOST_FILE, 150);
    const card = panel.locator('li.card:not([aria-disabled])', { has: panel.locator('h2', { hasText: 'Reach a host' }) });
    await card.waitFor({ timeout: 60000 });
    const text = await card.innerText();
    for (const want of [host, '(GET), not on the allowed domains', 'Asked by the running command', 'curl -sS']) {
      if (!text.includes(want)) throw new Error(`the host card does not say "${want}": ${text}`);
    }
    await page.screenshot({ path: path.join(OUT, 'host-card.png') });
    await card.getByRole('button', { name: `Always allow ${host}`, exact: true }).click({ timeout: 15000 });
  });

  await check('no card for the next command, and the history lists the host each command reached', async () => {
    await waitFile(shared.SECOND_DONE, 90);
    if ((await panel.locator('li.card').count()) !== 0) throw new Error('a card is pending after the second command');
    await panel.getByRole('tab', { name: 'History' }).click();
    const hosts = panel.locator('table.history ul.hosts li.allowed');
    // Two commands reached the host (the audit events reach the panel a moment after the calls return).
    for (let i = 0; i < 40 && (await hosts.count()) < 2; i++) await page.waitForTimeout(250);
    const lines = await hosts.allTextContents();
    if (lines.length !== 2 || !lines.every((l) => /allowed \(GET, \d+ B out, \d+ B in\)$/.test(l))) throw new Error(`history hosts: ${JSON.stringify(lines)}`);
    await page.screenshot({ path: path.join(OUT, 'history-hosts.png') });
  });
}
