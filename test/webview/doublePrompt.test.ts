import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/core/approval';
import { doublePromptNotice } from '../../src/shared/approvalPanel/doublePrompt';
import { toCard } from '../../src/shared/approvalPanel/viewModel';
import { parseWebviewMessage } from '../../src/shared/webviewProtocol';
import { panelBrowser } from './panelBrowser';

// The page's global, for the callback that runs inside Chromium (the project compiles without the DOM lib).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

/**
 * The one-time explanation of VS Code's own confirmation: when the panel shows it (pure decision), and what the
 * page does with it in real Chromium (shown above the cards, "Got it" tells the host, gone when the host drops it).
 */

const APP = 'Visual Studio Code';

function request(id: string, tool: string, client?: ApprovalRequest['client']): ApprovalRequest {
  return {
    id, tool, rule: 'mode.confirm.command', reason: 'Confirm mode', key: 'touch x',
    command: { stages: [['touch', 'x']], cwd: '.', isolation: 'bwrap' },
    ...(client && { client }),
  };
}

describe('when the panel explains the double prompt', () => {
  it('for a card from this VS Code\'s own client on a tool it was not told only reads, naming the server', () => {
    const pending = [{ request: request('a', 'shell_execute', { name: APP, readOnlyHint: false }), folder: 'proj' }];
    expect(doublePromptNotice(pending, APP, false)).toEqual({ app: APP, servers: ['Guarded Shell: proj'] });
  });

  it('never once dismissed, nor for another client, a read-only tool (VS Code did not ask) or an unknown client', () => {
    const own = { request: request('a', 'shell_execute', { name: APP, readOnlyHint: false }), folder: 'proj' };
    expect(doublePromptNotice([own], APP, true)).toBeUndefined();
    expect(doublePromptNotice([{ request: request('b', 'shell_execute', { name: 'claude-code', readOnlyHint: false }), folder: 'proj' }], APP, false)).toBeUndefined();
    expect(doublePromptNotice([{ request: request('c', 'shell_readonly', { name: APP, readOnlyHint: true }), folder: 'proj' }], APP, false)).toBeUndefined();
    expect(doublePromptNotice([{ request: request('d', 'shell_execute'), folder: 'proj' }], APP, false)).toBeUndefined();
    // Another VS Code build is another client: its name must match this one's exactly.
    expect(doublePromptNotice([{ request: request('e', 'shell_execute', { name: 'Visual Studio Code - Insiders', readOnlyHint: false }), folder: 'p' }], APP, false)).toBeUndefined();
  });

  it('names each folder\'s server once', () => {
    const c = { name: APP, readOnlyHint: false };
    const pending = [
      { request: request('a', 'shell_execute', c), folder: 'one' },
      { request: request('b', 'writeFile', c), folder: 'one' },
      { request: request('c', 'shell_execute', c), folder: 'two' },
    ];
    expect(doublePromptNotice(pending, APP, false)?.servers).toEqual(['Guarded Shell: one', 'Guarded Shell: two']);
  });

  it('the page\'s "Got it" is a message the host accepts', () => {
    expect(parseWebviewMessage({ type: 'dismissNotice' })).toEqual({ type: 'dismissNotice' });
  });
});

const pages = panelBrowser();

describe('the double-prompt notice in the panel page (Chromium)', () => {
  const own = request('c1', 'shell_execute', { name: APP, readOnlyHint: false });
  const cards = [toCard(own, 'proj', Date.UTC(2026, 0, 2))];
  const notice = doublePromptNotice([{ request: own, folder: 'proj' }], APP, false)!;

  it('shows how to make the panel the only gate, above the cards, and "Got it" asks the host to remember it', async () => {
    const panel = await pages.open();
    await panel.send({ type: 'show', cards, notice });
    await panel.page.waitForSelector('#notice:not([hidden])');
    const text = await panel.page.textContent('#notice');
    expect(text).toContain('Visual Studio Code asked you first');
    expect(text).toContain('“Always Allow Tools from Guarded Shell: proj”');
    expect(text).toContain('Chat: Manage Tool Approval');
    // Above the cards: met before the card it explains.
    expect(await panel.page.evaluate(() => {
      const n = document.getElementById('notice');
      return !!(n.compareDocumentPosition(document.getElementById('cards')) & 4); // DOCUMENT_POSITION_FOLLOWING
    })).toBe(true);
    await panel.take();
    await panel.page.click('#notice-dismiss');
    expect(await panel.take()).toEqual([{ type: 'dismissNotice' }]);
    expect(await panel.page.isHidden('#notice')).toBe(true);
    // The host answers with the cards and no notice: it stays away; the card is still there to decide.
    await panel.send({ type: 'show', cards });
    expect(await panel.page.isHidden('#notice')).toBe(true);
    expect(await panel.page.$$eval('li.card', (e) => e.length)).toBe(1);
  });

  it('is not shown when the host sends none, and goes when the card it explained is decided', async () => {
    const panel = await pages.open();
    await panel.send({ type: 'show', cards });
    await panel.page.waitForSelector('li.card');
    expect(await panel.page.isHidden('#notice')).toBe(true);
    await panel.send({ type: 'show', cards, notice });
    await panel.page.waitForSelector('#notice:not([hidden])');
    await panel.send({ type: 'show', cards: [] });
    await panel.page.waitForSelector('#notice', { state: 'hidden' });
  });
});
