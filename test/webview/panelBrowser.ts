import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { requires } from '../helpers/needs';
import { launch, openPanel, type PanelPage } from './harness';

/**
 * For a test file of panel pages: one Chromium for the file (skipped, or failed strictly, without it), a fresh
 * page per `open()`, and after each test the page is checked for CSP violations and closed.
 */
export function panelBrowser(): { open: () => Promise<PanelPage> } {
  let browser: Browser | undefined;
  let panel: PanelPage | undefined;
  const hasChromium = requires('chromium');
  beforeAll(async () => {
    if (hasChromium) browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    if (!panel) return;
    const shown = panel;
    panel = undefined;
    expect(await shown.violations()).toEqual([]);
    await shown.close();
  });
  return {
    open: async () => (panel = await openPanel(browser!)),
  };
}
