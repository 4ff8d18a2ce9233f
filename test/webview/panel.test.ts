import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/core/approval';
import { unifiedDiff } from '../../src/core/files/diffText';
import { toCard } from '../../src/shared/approvalPanel/viewModel';
import type { HistoryEntry } from '../../src/shared/webviewProtocol';
import { readDiffRows } from './diffRows';
import { launch, openPanel, type PanelPage } from './harness';
import { requires } from '../helpers/needs';

// Globals of the page, for the callbacks that run inside Chromium. Module-scoped on purpose: the project compiles
// without the DOM lib, and these names must not leak into other files.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;
declare function getComputedStyle(e: any): any;
type HTMLElement = any;
type HTMLButtonElement = any;


/**
 * The approval panel's page in real headless Chromium, under its real CSP, fed the cards the host computes
 * (toCard), with acquireVsCodeApi stubbed: what it shows, what it never interprets, what each control posts.
 */

let browser: Browser;
let panel: PanelPage;
const hasChromium = requires('chromium');
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  if (panel) {
    expect(await panel.violations()).toEqual([]);
    await panel.close();
  }
});

function commandRequest(id: string, stages: string[][], extra: Partial<NonNullable<ApprovalRequest['command']>> = {}): ApprovalRequest {
  return {
    id,
    tool: 'shell_execute',
    rule: 'mode.confirm',
    reason: 'Every command is confirmed in this mode.',
    key: stages.map((s) => s.join(' ')).join(' | '),
    command: { stages, cwd: '.', isolation: 'bwrap', ...extra },
  };
}

const card = (r: ApprovalRequest, folder = 'ws') => toCard(r, folder, Date.UTC(2026, 0, 2, 3, 4, 5));

/** The text a sighted person sees in an element (screen-reader-only helpers removed). */
async function visibleText(p: PanelPage, selector: string): Promise<string[]> {
  return p.page.$$eval(selector, (els) =>
    els.map((e) => {
      const c = e.cloneNode(true) as HTMLElement;
      c.querySelectorAll('.sr-only').forEach((s: any) => s.remove());
      return c.textContent ?? '';
    }),
  );
}

/** How the page is expected to show one argv element: spaces as ·, invisible/bidi characters as escapes. */
function shown(arg: string): string {
  if (arg === '') return '""';
  return arg.replace(/ /g, '·').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\u202E/g, '\\u202E').replace(/\u200B/g, '\\u200B');
}

const HOSTILE = [
  'echo',
  '$(rm -rf ~)',
  '`id`',
  '"',
  "'",
  'line one\nline two',
  'invoice\u202Egpj.exe',
  '<img src=x onerror="window.__pwned=1">',
  '<script>window.__pwned=2</script>',
  '&lt;b&gt;',
  'two  spaces',
  '',
  '\t',
  'zero\u200Bwidth',
  'caf\u00e9',
];

describe('approval panel in Chromium: command cards', () => {
  it('shows every argv element of a hostile command literally in its own chip, creating no element from any of them', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('c1', [HOSTILE]))] });
    await panel.page.waitForSelector('li.card');
    const chips = await visibleText(panel, 'li.card ol.argv > li.arg bdi.chip');
    expect(chips).toEqual(HOSTILE.map(shown));
    // No element came out of the data: no <img>, no extra <script>, no <b>; no handler ran.
    expect(await panel.page.$$eval('img', (e) => e.length)).toBe(0);
    expect(await panel.page.$$eval('script', (e) => e.length)).toBe(2); // history.js and approval.js only
    expect(await panel.page.$$eval('li.card b', (e) => e.length)).toBe(0);
    expect(await panel.page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    // The RTL override never reaches the rendered text as a character, so it cannot reorder anything on screen.
    expect(await panel.page.evaluate(() => document.body.innerText.includes('\u202E'))).toBe(false);
    // Each chip is on screen, and its tooltip / accessible name is the exact element as a quoted literal.
    const injected = panel.page.locator('li.arg').nth(7);
    expect(await injected.isVisible()).toBe(true);
    expect(await injected.getAttribute('title')).toBe('"<img src=x onerror=\\"window.__pwned=1\\">"');
    expect(await panel.page.locator('li.arg').nth(6).getAttribute('title')).toBe('"invoice\\u202Egpj.exe"');
    // Non-ASCII elements are flagged (café), plain ones are not.
    expect(await panel.page.$$eval('li.arg.unusual', (e) => e.map((x) => x.getAttribute('title')))).toEqual(['"invoice\\u202Egpj.exe"', '"zero\\u200Bwidth"', '"café"']);
  });

  it('keeps a right-to-left override inside its own chip, laid out left to right', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('c1', [['cat', 'abc\u202Edef', 'next']]))] });
    await panel.page.waitForSelector('li.card');
    const dirs = await panel.page.$$eval('bdi.chip', (e) => e.map((b) => [b.tagName, b.getAttribute('dir'), getComputedStyle(b).direction, getComputedStyle(b).unicodeBidi]));
    for (const d of dirs) expect(d).toEqual(['BDI', 'ltr', 'ltr', 'isolate']);
    expect(await visibleText(panel, 'bdi.chip')).toEqual(['cat', 'abc\\u202Edef', 'next']);
  });

  it('shows each pipeline stage, the directory, redirects, stdin and a warning when no sandbox is in force', async () => {
    panel = await openPanel(browser);
    const r = commandRequest('p1', [['grep', '-n', 'TODO'], ['sort'], ['head', '-5']], {
      cwd: 'src/sub dir',
      isolation: 'none',
      stdinPreview: 'first\tline\nsecond',
      stdoutFile: { path: 'out/result.txt', append: true },
      stdinFile: 'in.txt',
    });
    await panel.send({ type: 'show', cards: [card(r)] });
    await panel.page.waitForSelector('li.card');
    expect(await panel.page.locator('.stage').count()).toBe(3);
    expect(await panel.page.$$eval('ol.argv', (e) => e.map((o) => o.getAttribute('aria-label')))).toEqual([
      'Stage 1 of 3, 3 arguments', 'Stage 2 of 3, 1 argument', 'Stage 3 of 3, 2 arguments',
    ]);
    const facts = await panel.page.$$eval('dl.facts', ([dl]) => [...dl!.querySelectorAll('dt')].map((dt) => [dt.textContent, (dt.nextElementSibling as HTMLElement).innerText]));
    expect(facts).toEqual([
      ['Directory', 'src/sub dir'],
      ['stdin from', 'in.txt'],
      ['stdout appended to', 'out/result.txt'],
      ['Isolation', '⚠ none: runs with your own permissions'],
    ]);
    expect(await panel.page.locator('dd.warning').count()).toBe(1);
    expect(await visibleText(panel, 'pre.stdin')).toEqual(['first\\tline\nsecond']);
    expect(await visibleText(panel, 'p.why')).toEqual(['Why asked: Every command is confirmed in this mode. mode.confirm']);
  });

  it('announces a new request in the live region and counts it', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('c1', [['ls', '-la']]))] });
    await panel.page.waitForFunction(() => document.getElementById('live')!.textContent!.startsWith('New approval request from ws'));
    expect(await panel.page.textContent('#live')).toBe('New approval request from ws: "ls" "-la". 1 pending.');
    expect(await panel.page.textContent('#pending-count')).toBe('1');
    expect(await panel.page.getAttribute('#cards', 'role')).toBe('list');
    expect(await panel.page.getAttribute('li.card', 'aria-labelledby')).toBeTruthy();
  });

  it('removes a withdrawn request without a decision and says so', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('c1', [['ls']])), card(commandRequest('c2', [['pwd']]))] });
    await panel.page.waitForSelector('li.card[data-id="c2"]');
    await panel.send({ type: 'withdraw', id: 'c1', why: 'the agent cancelled the call' });
    await panel.page.waitForSelector('li.card[data-id="c1"]', { state: 'detached' });
    expect(await panel.page.locator('li.card').count()).toBe(1);
    await panel.page.waitForFunction(() => document.getElementById('live')!.textContent!.startsWith('Withdrawn'));
    expect((await panel.posted()).filter((m) => m.type !== 'ready')).toEqual([]);
  });
});

describe('approval panel in Chromium: diffs', () => {
  const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n';
  const after = 'one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n';
  const editRequest = (id: string): ApprovalRequest => ({
    id,
    tool: 'editFile',
    rule: 'mode.confirm.change',
    reason: 'Every change is confirmed in this mode.',
    key: 'editFile notes.txt',
    change: { kind: 'edit', files: ['notes.txt'], diff: unifiedDiff('notes.txt', before, after), original: before, proposed: after },
  });

  it('renders an edit as +/− lines with old and new line numbers, and only the once option', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(editRequest('e1'))] });
    await panel.page.waitForSelector('table.diff');
    const rows = await panel.page.$$eval('table.diff tbody tr', readDiffRows);
    expect(rows).toEqual([
      ['file', '--- a/notes.txt'],
      ['file', '+++ b/notes.txt'],
      ['hunk', '@@ -1,6 +1,6 @@'],
      ['ctx', '1', '1', ' ', 'one'],
      ['ctx', '2', '2', ' ', 'two'],
      ['del', '3', '', '−', 'three'],
      ['add', '', '3', '+', 'THREE'],
      ['ctx', '4', '4', ' ', 'four'],
      ['ctx', '5', '5', ' ', 'five'],
      ['ctx', '6', '6', ' ', 'six'],
      ['hunk', '@@ -8,3 +8,4 @@'],
      ['ctx', '8', '8', ' ', 'eight'],
      ['ctx', '9', '9', ' ', 'nine'],
      ['ctx', '10', '10', ' ', 'ten'],
      ['add', '', '11', '+', 'eleven'],
    ]);
    // Added and removed lines take the theme's diff colours (set here as VS Code sets them on the page).
    await panel.page.evaluate(() => {
      document.documentElement.style.setProperty('--vscode-diffEditor-insertedLineBackground', 'rgb(0, 80, 0)');
      document.documentElement.style.setProperty('--vscode-diffEditor-removedLineBackground', 'rgb(90, 0, 0)');
    });
    const bg = await panel.page.$$eval('tr.add, tr.del', (trs) => trs.map((t) => [t.className, getComputedStyle(t).backgroundColor]));
    expect(bg).toEqual([['line del', 'rgb(90, 0, 0)'], ['line add', 'rgb(0, 80, 0)'], ['line add', 'rgb(0, 80, 0)']]);
    expect(await visibleText(panel, 'p.stat')).toEqual(['+2 −1']);
    // A change offers Approve, Deny and the diff editor: the server remembers nothing for changes.
    expect(await panel.page.$$eval('li.card button', (b) => b.map((x) => x.textContent))).toEqual(['Open in diff editor', 'Approve', 'Deny']);
  });

  it('shows a Trojan-Source bidi character in a diff line as an escape', async () => {
    panel = await openPanel(browser);
    const r = editRequest('e2');
    const bidiAfter = 'if (isAdmin) {\u202E } \u2066// check\u2069 {\n';
    await panel.send({ type: 'show', cards: [card({ ...r, change: { ...r.change!, diff: unifiedDiff('a.js', '', bidiAfter, { created: true }) } })] });
    await panel.page.waitForSelector('tr.add');
    expect(await visibleText(panel, 'tr.add td.code')).toEqual(['if (isAdmin) {\\u202E } \\u2066// check\\u2069 {']);
  });
});

describe('approval panel in Chromium: decisions', () => {
  it('posts the right message for each button', async () => {
    panel = await openPanel(browser);
    const ids = ['b1', 'b2', 'b3', 'b4', 'b5'];
    await panel.send({ type: 'show', cards: ids.map((id) => card(commandRequest(id, [['echo', id]]))) });
    await panel.page.waitForSelector('li.card[data-id="b5"]');
    await panel.take();
    const click = async (id: string, name: string) => {
      await panel.armed();
      await panel.page.locator(`li.card[data-id="${id}"]`).getByRole('button', { name, exact: true }).click();
    };
    await click('b1', 'Approve');
    await panel.page.locator('li.card[data-id="b2"] .reason-input').fill('not on a Friday');
    await click('b2', 'Deny');
    await click('b3', 'Allow for this session');
    await click('b4', 'Allow for 15 minutes');
    await click('b5', 'Always allow (rule below)');
    expect(await panel.take()).toEqual([
      { type: 'decide', id: 'b1', approved: true, option: 'once' },
      { type: 'decide', id: 'b2', approved: false, option: 'once', reason: 'not on a Friday' },
      { type: 'decide', id: 'b3', approved: true, option: 'session' },
      { type: 'decide', id: 'b4', approved: true, option: 'timed' },
      { type: 'decide', id: 'b5', approved: true, option: 'always' },
    ]);
    expect(await panel.page.locator('li.card').count()).toBe(0);
    expect(await panel.page.isVisible('#empty')).toBe(true);
  });

  it('a command not on the allowlist says so; "Always allow" posts the rule as offered, chosen or edited', async () => {
    panel = await openPanel(browser);
    const miss = (id: string): ApprovalRequest => ({
      ...commandRequest(id, [['bin/bats', '--tap', 'test']], {
        notListed: [0],
        runsAnyCode: [{ stage: 0, note: '"bin/bats" is a program inside the workspace, which the agent can write: it runs any code, inside the sandbox (bwrap).' }],
      }),
      rule: 'allowlist.miss',
      reason: 'Not on your allowlist: the workspace program "bin/bats" is not on your allowlist.',
      key: 'bin/bats --tap test',
      rules: ['bin/bats --tap test', 'bin/bats *'],
    });
    await panel.send({ type: 'show', cards: [card(miss('m1')), card(miss('m2')), card(miss('m3'))] });
    await panel.page.waitForSelector('li.card[data-id="m3"]');
    await panel.armed();
    await panel.take();
    const m1 = panel.page.locator('li.card[data-id="m1"]');
    expect(await m1.locator('.notice.not-listed').textContent()).toBe('Not on your allowlist: "bin/bats". Approving runs it this time; "Always allow" saves a rule.');
    expect(await m1.locator('.notice.runs-any-code').textContent()).toContain('runs any code, inside the sandbox');
    expect(await m1.getByLabel('Rule for "Always allow"').inputValue()).toBe('bin/bats --tap test');
    // As offered (the exact line), one of the offers, and edited by hand.
    await m1.getByRole('button', { name: 'Always allow (rule below)' }).click();
    const m2 = panel.page.locator('li.card[data-id="m2"]');
    await panel.armed();
    await m2.locator('button.rule-choice', { hasText: 'bin/bats *' }).click();
    expect(await m2.getByLabel('Rule for "Always allow"').inputValue()).toBe('bin/bats *');
    await m2.getByRole('button', { name: 'Always allow (rule below)' }).click();
    const m3 = panel.page.locator('li.card[data-id="m3"]');
    await panel.armed();
    await m3.getByLabel('Rule for "Always allow"').fill('bin/bats --tap *');
    await m3.getByRole('button', { name: 'Always allow (rule below)' }).click();
    expect(await panel.take()).toEqual([
      { type: 'decide', id: 'm1', approved: true, option: 'always', rule: 'bin/bats --tap test' },
      { type: 'decide', id: 'm2', approved: true, option: 'always', rule: 'bin/bats *' },
      { type: 'decide', id: 'm3', approved: true, option: 'always', rule: 'bin/bats --tap *' },
    ]);
    // The host refuses a rule that does not cover the command: the card comes back, keeps what was typed, says why.
    await panel.send({ type: 'show', cards: [card(miss('m3'))] });
    await panel.send({ type: 'ruleRejected', id: 'm3', why: '"npm *" does not cover this command' });
    const back = panel.page.locator('li.card[data-id="m3"]');
    expect(await back.locator('.rule-error').textContent()).toBe('"npm *" does not cover this command');
    expect(await back.getByLabel('Rule for "Always allow"').inputValue()).toBe('bin/bats --tap *');
  });

  it('batch approval is per kind and lists what it covers before it acts; a card arriving meanwhile is not included', async () => {
    panel = await openPanel(browser);
    const edit: ApprovalRequest = {
      id: 'e1', tool: 'writeFile', rule: 'r', reason: '', key: 'writeFile x',
      change: { kind: 'write', files: ['x'], diff: unifiedDiff('x', '', 'x\n', { created: true }), proposed: 'x\n' },
    };
    await panel.send({ type: 'show', cards: [card(commandRequest('a1', [['git', 'status']])), card(edit), card(commandRequest('a2', [['npm', 'test']]))] });
    await panel.page.waitForSelector('li.card[data-id="a2"]');
    await panel.armed();
    await panel.take();
    await panel.page.getByRole('button', { name: 'Open in diff editor' }).click();
    expect(await panel.take()).toEqual([{ type: 'openDiff', id: 'e1' }]);
    expect(await panel.page.locator('.toolbar button:visible').allTextContents()).toEqual(['Approve all 2 commands…', 'Approve all 1 file change…']);

    // The first click only lists what the batch covers.
    await panel.page.getByRole('button', { name: 'Approve all 2 commands…' }).click();
    expect(await panel.take()).toEqual([]);
    const region = panel.page.getByRole('region', { name: 'Approve these 2 commands?' });
    expect(await region.locator('li').allTextContents()).toEqual(['"git" "status"', '"npm" "test"']);
    // A command arriving now is counted on the button but not added to the list being confirmed.
    await panel.send({ type: 'show', cards: [card(commandRequest('a1', [['git', 'status']])), card(edit), card(commandRequest('a2', [['npm', 'test']])), card(commandRequest('a3', [['rm', '-r', 'build']]))] });
    await panel.page.waitForSelector('li.card[data-id="a3"]');
    await panel.armed();
    expect(await region.locator('li').count()).toBe(2);
    expect(await panel.page.locator('#approve-commands').textContent()).toBe('Approve all 3 commands…');
    await region.getByRole('button', { name: 'Approve these 2' }).click();
    expect(await panel.take()).toEqual([{ type: 'approveAll', kind: 'commands', ids: ['a1', 'a2'] }]);
    expect(await panel.page.locator('li.card').evaluateAll((els) => els.map((e: any) => e.dataset.id))).toEqual(['e1', 'a3']);
    expect(await panel.page.isVisible('#batch-confirm')).toBe(false);

    // File changes are their own batch; Cancel approves nothing.
    await panel.armed();
    await panel.page.getByRole('button', { name: 'Approve all 1 file change…' }).click();
    const changes = panel.page.getByRole('region', { name: 'Approve these 1 file change?' });
    expect(await changes.locator('li').allTextContents()).toEqual(['Write x']);
    await changes.getByRole('button', { name: 'Cancel' }).click();
    expect(await panel.take()).toEqual([]);
    expect(await panel.page.locator('li.card').count()).toBe(2);
  });

  it('a listed card withdrawn before the batch is confirmed leaves the list, and a double click cannot confirm a batch', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('w1', [['ls']])), card(commandRequest('w2', [['pwd']]))] });
    await panel.page.waitForSelector('li.card[data-id="w2"]');
    await panel.armed();
    await panel.take();
    // Clicking the batch button and, at once, where "Approve these" appears, approves nothing.
    await panel.page.evaluate(() => {
      (document.getElementById('approve-commands') as HTMLButtonElement).click();
      (document.getElementById('batch-go') as HTMLButtonElement).click();
    });
    expect(await panel.take()).toEqual([]);
    await panel.send({ type: 'withdraw', id: 'w1', why: 'cancelled' });
    await panel.armed();
    const region = panel.page.getByRole('region', { name: 'Approve these 1 command?' });
    expect(await region.locator('li').allTextContents()).toEqual(['"pwd"']);
    await region.getByRole('button', { name: 'Approve these 1' }).click();
    expect(await panel.take()).toEqual([{ type: 'approveAll', kind: 'commands', ids: ['w2'] }]);
  });

  it('ignores a click on a card that has just appeared (a click aimed at what was there before)', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('n1', [['ls']]))] });
    await panel.page.waitForSelector('li.card');
    await panel.take();
    // A programmatic click right away: the card is still arming, so nothing is decided.
    await panel.page.evaluate(() => (document.querySelector('li.card button[data-action="approve"]') as HTMLButtonElement).click());
    expect(await panel.take()).toEqual([]);
    expect(await panel.page.locator('li.card').count()).toBe(1);
    await panel.armed();
    await panel.page.getByRole('button', { name: 'Approve', exact: true }).click();
    expect(await panel.take()).toEqual([{ type: 'decide', id: 'n1', approved: true, option: 'once' }]);
  });
});

describe('approval panel in Chromium: keyboard', () => {
  it('reaches a card with Tab and decides it with A; Enter in the reason field denies with that reason', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('k1', [['ls']])), card(commandRequest('k2', [['pwd']]))] });
    await panel.page.waitForSelector('li.card[data-id="k2"]');
    await panel.armed();
    await panel.take();
    // Tab order: Pending tab, the commands batch button (no file change waits: its button is hidden), first card.
    await panel.page.focus('#tab-pending');
    await panel.page.keyboard.press('Tab');
    expect(await panel.page.evaluate(() => document.activeElement!.id)).toBe('approve-commands');
    await panel.page.keyboard.press('Tab');
    expect(await panel.page.evaluate(() => (document.activeElement as HTMLElement).dataset.id)).toBe('k1');
    await panel.page.keyboard.press('a');
    expect(await panel.take()).toEqual([{ type: 'decide', id: 'k1', approved: true, option: 'once' }]);
    // Focus went to the list, not onto the next card: pressing A again decides nothing unread.
    expect(await panel.page.evaluate(() => document.activeElement!.id)).toBe('cards');
    await panel.page.keyboard.press('a');
    expect(await panel.take()).toEqual([]);
    await panel.armed();
    await panel.page.keyboard.press('Tab');
    expect(await panel.page.evaluate(() => (document.activeElement as HTMLElement).dataset.id)).toBe('k2');
    await panel.page.keyboard.press('r');
    expect(await panel.page.evaluate(() => document.activeElement!.className)).toBe('reason-input');
    await panel.page.keyboard.type('use git status instead');
    await panel.page.keyboard.press('Enter');
    expect(await panel.take()).toEqual([{ type: 'decide', id: 'k2', approved: false, option: 'once', reason: 'use git status instead' }]);
  });

  it('activates buttons with Enter and Space, and typing a letter in the reason field decides nothing', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('k1', [['ls']])), card(commandRequest('k2', [['pwd']]))] });
    await panel.page.waitForSelector('li.card[data-id="k2"]');
    await panel.armed();
    await panel.take();
    await panel.page.focus('li.card[data-id="k1"] .reason-input');
    await panel.page.keyboard.type('ADSTL');
    expect(await panel.take()).toEqual([]);
    await panel.page.focus('li.card[data-id="k1"] button[data-action="session"]');
    await panel.page.keyboard.press('Enter');
    await panel.armed();
    await panel.page.focus('li.card[data-id="k2"] button[data-action="timed"]');
    await panel.page.keyboard.press(' ');
    expect(await panel.take()).toEqual([
      { type: 'decide', id: 'k1', approved: true, option: 'session' },
      { type: 'decide', id: 'k2', approved: true, option: 'timed' },
    ]);
  });

  it('documents its shortcuts with aria-keyshortcuts and moves between tabs with the arrow keys', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'show', cards: [card(commandRequest('k1', [['ls']]))] });
    await panel.page.waitForSelector('li.card');
    expect(await panel.page.$$eval('li.card [aria-keyshortcuts]', (e) => e.map((x) => x.getAttribute('aria-keyshortcuts')))).toEqual(['R', 'A', 'D', 'S', 'T', 'L']);
    await panel.page.focus('#tab-pending');
    await panel.page.keyboard.press('ArrowRight');
    expect(await panel.page.evaluate(() => document.activeElement!.id)).toBe('tab-history');
    expect(await panel.page.getAttribute('#tab-history', 'aria-selected')).toBe('true');
    expect(await panel.page.isHidden('#panel-pending')).toBe(true);
    await panel.page.keyboard.press('ArrowLeft');
    expect(await panel.page.isVisible('#panel-pending')).toBe(true);
  });
});

describe('approval panel in Chromium: history', () => {
  const entries: HistoryEntry[] = [
    { requestId: 'h3', folder: 'ws', time: '2026-01-02T03:04:07.000Z', tool: 'editFile', summary: 'notes.txt', outcome: 'denied', decidedBy: 'user', reason: 'no', hasDiff: true },
    { requestId: 'h2', folder: 'ws', time: '2026-01-02T03:04:06.000Z', tool: 'shell_execute', summary: '"false"', outcome: 'failed', exitCode: 1, durationMs: 12, hasDiff: false },
    { requestId: 'h1', folder: 'ws', time: '2026-01-02T03:04:05.000Z', tool: 'shell_execute', summary: '"echo" "<b>hi</b>"', outcome: 'success', exitCode: 0, durationMs: 1500, decidedBy: 'user', option: 'session', hasDiff: false },
  ];

  it('lists requests with outcome, exit code, duration and who decided, filters by outcome, and revokes', async () => {
    panel = await openPanel(browser);
    await panel.send({ type: 'history', entries, remembered: [{ folder: 'ws', key: 'echo <b>hi</b>', kind: 'session', grantedAt: 1 }] });
    await panel.send({ type: 'focusTab', tab: 'history' });
    await panel.page.waitForSelector('table.history tbody tr');
    const rows = await panel.page.$$eval('table.history tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(2, 9).map((td) => td.innerText)));
    expect(rows.map((r) => [r[0], r[2], r[3], r[4], r[5]])).toEqual([
      ['editFile', 'Denied', '', '', 'user'],
      ['shell_execute', 'Failed', '1', '12 ms', ''],
      ['shell_execute', 'Succeeded', '0', '1.50 s', 'user (session)'],
    ]);
    expect(await panel.page.$$eval('table.history b', (e) => e.length)).toBe(0);
    await panel.page.selectOption('#history-filter', 'failed');
    expect(await panel.page.locator('table.history tbody tr').count()).toBe(1);
    expect(await panel.page.textContent('#history-count')).toBe('1 of 3 requests');
    await panel.page.selectOption('#history-filter', 'all');
    await panel.take();
    await panel.page.getByRole('button', { name: 'Open diff' }).click();
    await panel.page.getByRole('button', { name: 'Revoke echo <b>hi</b>' }).click();
    expect(await panel.take()).toEqual([
      { type: 'openDiff', id: 'h3' },
      { type: 'revoke', folder: 'ws', key: 'echo <b>hi</b>', kind: 'session' },
    ]);
  });

  it('offers Undo only on entries whose change can be undone, and its click asks the host (nothing else)', async () => {
    panel = await openPanel(browser);
    const undoable: HistoryEntry = { requestId: 'h9', folder: 'ws', time: '2026-01-02T03:04:09.000Z', tool: 'writeFile', summary: 'notes.txt', outcome: 'success', hasDiff: false, canUndo: true };
    await panel.send({ type: 'history', entries: [undoable, ...entries], remembered: [] });
    await panel.send({ type: 'focusTab', tab: 'history' });
    await panel.page.waitForSelector('table.history tbody tr');
    expect(await panel.page.getByRole('button', { name: /^Undo / }).count()).toBe(1);
    await panel.take();
    await panel.page.getByRole('button', { name: 'Undo notes.txt', exact: true }).click();
    expect(await panel.take()).toEqual([{ type: 'undo', id: 'h9' }]);
  });
});
