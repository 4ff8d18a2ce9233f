// The person at the approval panel for defaults.sh, played by test/vscode/driver.js while defaults-suite.js (the
// agent, in the extension host) calls the tools: takes the cards strictly in the order the agent's calls bring them
// up, checks what each shows, clicks. A card that is not the expected one is denied at once (so an unexpected
// question fails the run quickly instead of waiting for a timeout). Each check is recorded in $E2E_OUT/ui-results.json.
'use strict';
const fs = require('fs'), path = require('path');
const { approvalPanel, playThenDone } = require('../vscode/lib/panelDriver.js');
const { DEFAULTS: D } = require('./shared.js');
const { assertEqual } = require('../vscode/lib/util.js');

const OUT = process.env.E2E_OUT;
const SANDBOX = process.env.E2E_EXPECT_SANDBOX === '1';
const UNEXPECTED = 'unexpected card (defaults-ui.js)';

exports.limitMs = 360000;
exports.viewport = { width: 1500, height: 1000 };

exports.play = playThenDone(playCards);

async function playCards(page, check, say) {
  const panel = approvalPanel(page);
  const anyCard = panel.locator('li.card:not([aria-disabled])').first();
  const click = (card, name) => card.getByRole('button', { name, exact: true }).click({ timeout: 15000 });
  /** The argv the card shows, each argument as its title: the argument double-quoted (plain ASCII here). */
  const argvOf = (card) => card.locator('ol.argv li.arg').evaluateAll((lis) => lis.map((li) => li.title));
  const quoted = (argv) => argv.map((a) => JSON.stringify(a));

  /**
   * Waits for the next card and checks it is the one expected: `argv` for a command, `change: [kind, file]` for a
   * file change. Anything else is denied (the agent's call then fails fast) and the check fails.
   */
  async function nextCard(expected, timeout = 60000) {
    await anyCard.waitFor({ timeout });
    const card = anyCard;
    const what = expected.argv ? quoted(expected.argv) : expected.effect ? ['effect', quoted(expected.effect).join(' ')] : expected.change;
    const shows = (await card.locator('ol.argv').count())
      ? await argvOf(card)
      : (await card.locator('.effect').count())
        ? ['effect', await card.locator('.effect .ran bdi.path').innerText()]
        : await card.locator('.change .files').innerText().then((t) => t.split(/\s+/));
    if (JSON.stringify(shows) !== JSON.stringify(what)) {
      await card.locator('.reason-input').fill(UNEXPECTED);
      await click(card, 'Deny');
      throw new Error(`expected a card for ${JSON.stringify(what)}, the panel showed ${JSON.stringify(shows)} (denied)`);
    }
    assertEqual(await panel.locator('li.card').count(), 1, 'cards pending');
    return card;
  }
  /** What a command card says about the request: its rule, the allowlist notice (or null), its isolation. */
  async function facts(card) {
    const notice = card.locator('p.notice.not-listed');
    const facts = await card.locator('dl.facts').evaluate((dl) => Object.fromEntries([...dl.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent])));
    return {
      rule: await card.locator('p.why code.rule').textContent(),
      notice: (await notice.count()) ? await notice.innerText() : null,
      isolation: facts.Isolation,
    };
  }
  const assertSandboxed = (f) => {
    if (SANDBOX && f.isolation !== 'bwrap') throw new Error(`the card shows isolation ${JSON.stringify(f.isolation)}, not bwrap`);
  };
  /**
   * With the sandbox, a command approved on its card ran against a copy-on-write view (commandPreview "asked", the
   * VS Code default): its effect is a card of its own. git's writes are all inside .git: counted, not shown. Apply.
   */
  async function applyEffect(argv) {
    if (!SANDBOX) return;
    const card = await nextCard({ effect: argv });
    const diff = await card.locator('table.diff').innerText();
    if (!/git's internals: \d+ entr(y|ies) in \.git/.test(diff)) throw new Error(`the effect card does not count git's writes: ${diff}`);
    await click(card, 'Apply');
  }
  /** The checks of a card for an allowlist miss. */
  async function assertMiss(card) {
    const f = await facts(card);
    assertEqual(f.rule, 'allowlist.miss', 'the policy rule on the card');
    assertEqual(f.notice, D.MISS_NOTICE, 'the notice on the card');
    assertSandboxed(f);
  }

  await check('the file change: a card with the diff; Approve', async () => {
    const card = await nextCard({ change: ['Edit', D.FILE] }, 150000); // activation + server start + first webview
    const rows = await card.locator('table.diff tr.line.add td.code').allTextContents();
    assertEqual(rows, [D.AFTER.trimEnd()], 'added lines');
    await click(card, 'Approve');
  });

  await check('git status: a card without the allowlist notice (read-only git is on the default allowlist); Approve', async () => {
    const card = await nextCard({ argv: ['git', 'status', '--short'] });
    const f = await facts(card);
    assertEqual(f.notice, null, 'the allowlist notice on a listed command');
    if (f.rule === 'allowlist.miss') throw new Error('a read-only git command is a miss with the defaults');
    assertSandboxed(f);
    await click(card, 'Approve');
  });

  await check('git add: the card says "Not on your allowlist" and offers the exact line and a prefix rule; Approve', async () => {
    const card = await nextCard({ argv: ['git', 'add', D.FILE] });
    await assertMiss(card);
    assertEqual(await card.locator('input.rule-input').inputValue(), `git add ${D.FILE}`, 'the rule field, prefilled');
    assertEqual(await card.locator('button.rule-choice').evaluateAll((bs) => bs.map((b) => b.dataset.rule)), [`git add ${D.FILE}`, `git add ${D.FILE} *`], 'the offered rules');
    await page.screenshot({ path: path.join(OUT, 'miss-card.png') });
    await click(card, 'Approve');
    await applyEffect(['git', 'add', D.FILE]);
  });

  await check('git commit: a miss card; Approve', async () => {
    const card = await nextCard({ argv: ['git', 'commit', '-m', D.FIRST_COMMIT] });
    await assertMiss(card);
    await click(card, 'Approve');
    await applyEffect(['git', 'commit', '-m', D.FIRST_COMMIT]);
  });

  await check('the new file: its card; Approve', async () => {
    const card = await nextCard({ change: ['Write', D.NOTES] });
    await click(card, 'Approve');
  });

  await check('"Always allow" with an edited rule: one that does not cover the command is refused on the card, then "git add *" is saved', async () => {
    let card = await nextCard({ argv: ['git', 'add', D.NOTES] });
    await assertMiss(card);
    assertEqual(await card.locator('button.rule-choice').evaluateAll((bs) => bs.map((b) => b.dataset.rule)), [`git add ${D.NOTES}`, `git add ${D.NOTES} *`], 'the offered rules');
    await card.locator('input.rule-input').fill(D.WRONG_RULE);
    await click(card, 'Always allow (rule below)');
    // The extension refused it: the card is back, saying why where the rule is typed.
    card = await nextCard({ argv: ['git', 'add', D.NOTES] });
    const error = card.locator('p.rule-error');
    await error.filter({ hasText: 'does not cover this command' }).waitFor({ timeout: 15000 });
    say(`refused rule: ${await error.textContent()}`);
    assertEqual(await card.locator('input.rule-input').inputValue(), D.WRONG_RULE, 'the rule field keeps what was typed');
    await card.locator('input.rule-input').fill(D.RULE);
    await page.screenshot({ path: path.join(OUT, 'edited-rule-card.png') });
    await click(card, 'Always allow (rule below)');
    await applyEffect(['git', 'add', D.NOTES]);
  });

  await check('the edit before the rule\'s next match: its card; Approve (the git add after it shows none)', async () => {
    const card = await nextCard({ change: ['Edit', D.FILE] });
    await click(card, 'Approve');
  });

  await check('git commit, which the rule does not match, still brings up a miss card; Approve', async () => {
    // The next card must be the commit: a card for the matching `git add` would be denied here as unexpected.
    const card = await nextCard({ argv: ['git', 'commit', '-m', D.SECOND_COMMIT] });
    await assertMiss(card);
    await click(card, 'Approve');
    await applyEffect(['git', 'commit', '-m', D.SECOND_COMMIT]);
  });

  await check('no card is left; the history lists the rule as remembered always, in the user settings', async () => {
    const done = path.join(OUT, 'suite-done');
    // A card showing up now was not expected (an earlier check failed, or a call asked twice): denied at once, so
    // the agent's call fails now instead of at its timeout, and named here.
    const unexpected = [];
    for (let i = 0; i < 240 && !fs.existsSync(done); i++) {
      if (await anyCard.count()) {
        unexpected.push(await argvOf(anyCard).catch(() => []));
        await anyCard.locator('.reason-input').fill(UNEXPECTED);
        await click(anyCard, 'Deny');
      }
      await page.waitForTimeout(500);
    }
    if (!fs.existsSync(done)) throw new Error('the suite did not finish its calls');
    if (unexpected.length) throw new Error(`cards after the last expected one (denied): ${JSON.stringify(unexpected)}`);
    assertEqual(await panel.locator('li.card').count(), 0, 'cards left after the last call');
    await panel.getByRole('tab', { name: 'History' }).click();
    const revoke = panel.getByRole('button', { name: `Revoke ${D.RULE}`, exact: true });
    await revoke.waitFor({ timeout: 10000 });
    const item = panel.locator('ul.remembered li', { has: revoke });
    assertEqual(await item.locator('.kind').textContent(), 'always (user settings)', 'the remembered rule\'s kind');
    assertEqual(await panel.locator('ul.remembered li:not(.empty)').count(), 1, 'remembered approvals');
  });
}
