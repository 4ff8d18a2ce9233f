// The person at the approval panel for test/vscode-background/suite.js: approves the background start from its card,
// watches the command in the panel's "Running in the background" list (folder, sandbox, elapsed time, its last
// lines as they change), presses Stop, and checks the list empties and the history shows how it ended.
'use strict';
const fs = require('fs'), path = require('path');
const { approvalPanel, playThenDone } = require('../vscode/lib/panelDriver.js');
const shared = require('./shared.js');

const OUT = process.env.E2E_OUT;

exports.limitMs = 280000;
exports.viewport = { width: 1400, height: 1000 };

exports.play = playThenDone(playPanel);

async function playPanel(page, check) {
  const panel = approvalPanel(page);
  const lastTick = async (run) => {
    const m = /tick (\d+) [^\n]*\s*$/.exec(await run.locator('pre.bg-lines').innerText());
    return m ? Number(m[1]) : -1;
  };

  await check('the start card says the command runs in the background and for how long; Approve', async () => {
    const card = panel.locator('li.card:not([aria-disabled])', { has: panel.locator('ol.argv bdi.chip', { hasText: 'python3' }) });
    await card.waitFor({ timeout: 150000 }); // activation + server start + first webview
    const text = await card.innerText();
    for (const want of ['Runs in the background', 'it goes on after this call', '60 min pass', 'bwrap']) {
      if (!text.includes(want)) throw new Error(`the card does not say "${want}": ${text}`);
    }
    await card.getByRole('button', { name: 'Approve', exact: true }).click({ timeout: 15000 });
  });

  let run;
  await check('the panel lists it with folder, sandbox, elapsed time and its last lines, and the lines update', async () => {
    run = panel.locator('li.bg-run', { has: panel.locator('h3', { hasText: 'b1' }) });
    await run.waitFor({ timeout: 30000 });
    const title = await panel.locator('#background-title').innerText();
    if (title !== 'Running in the background (1)') throw new Error(`title: ${title}`);
    const text = await run.innerText();
    for (const want of ['python3', 'ws', 'bwrap', 'running ']) if (!text.includes(want)) throw new Error(`the row does not show "${want}": ${text}`);
    let first = -1;
    for (let i = 0; i < 40 && first < 1; i++, await page.waitForTimeout(250)) first = await lastTick(run);
    if (first < 1) throw new Error(`no output lines shown: ${await run.innerText()}`);
    let later = first;
    for (let i = 0; i < 40 && later < first + 3; i++, await page.waitForTimeout(250)) later = await lastTick(run);
    if (later < first + 3) throw new Error(`the lines did not update: tick ${first}, then ${later}`);
    const elapsed = await run.locator('.bg-elapsed').innerText();
    if (!/^running \d+ s$/.test(elapsed)) throw new Error(`elapsed: ${elapsed}`);
    await page.screenshot({ path: path.join(OUT, 'background-running.png') });
  });

  await check('Stop ends it: the row goes, the history shows it cancelled and stopped by you', async () => {
    await run.getByRole('button', { name: /^Stop b1/ }).click({ timeout: 15000 });
    fs.writeFileSync(path.join(OUT, shared.STOPPED), '');
    await run.waitFor({ state: 'detached', timeout: 20000 });
    if (!(await panel.locator('#background').isHidden())) throw new Error('the background section is still shown');
    for (let i = 0; i < 60 && !fs.existsSync(path.join(OUT, 'suite-checked')); i++) await page.waitForTimeout(500);
    await panel.getByRole('tab', { name: 'History' }).click();
    const row = panel.locator('table.history tr', { hasText: 'python3' }).first();
    await row.waitFor({ timeout: 15000 });
    let outcome = '';
    for (let i = 0; i < 40 && !/Cancelled[\s\S]*b1, stopped by you/.test(outcome); i++, await page.waitForTimeout(250)) outcome = await row.locator('td.outcome').innerText();
    if (!/Cancelled[\s\S]*b1, stopped by you/.test(outcome)) throw new Error(`history outcome: ${JSON.stringify(outcome)}`);
    await page.screenshot({ path: path.join(OUT, 'background-history.png') });
  });

  await check('the second start is approved and listed; VS Code then closes with it running', async () => {
    await panel.getByRole('tab', { name: 'Pending' }).click();
    const card = panel.locator('li.card:not([aria-disabled])', { has: panel.locator('ol.argv bdi.chip', { hasText: 'python3' }) });
    await card.waitFor({ timeout: 60000 });
    await card.getByRole('button', { name: 'Approve', exact: true }).click({ timeout: 15000 });
    await panel.locator('li.bg-run', { has: panel.locator('h3', { hasText: 'b2' }) }).waitFor({ timeout: 30000 });
  });
}
