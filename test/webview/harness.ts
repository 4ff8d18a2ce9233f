import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { panelHtml } from '../../src/shared/approvalPanel/html';
import type { HostToWebview, WebviewToHost } from '../../src/shared/webviewProtocol';
import { capability } from '../helpers/needs';

// Globals of the page, for the callbacks that run inside Chromium. Module-scoped on purpose: the project compiles
// without the DOM lib, and these names must not leak into other files.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;
declare function getComputedStyle(e: any): any;
type HTMLButtonElement = any;


/**
 * Serves the approval panel exactly as the host builds it (panelHtml + the real media files, under the real CSP)
 * from a routed URL in headless Chromium, with `acquireVsCodeApi` stubbed to record what the page posts.
 * Nothing leaves the machine: every request to the fake origin is answered by page.route, anything else aborts.
 */

const ORIGIN = 'http://webview.test';
const MEDIA = path.resolve(__dirname, '../../media');

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: capability('chromium').path, // found on PATH by the global setup's probe
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface PanelPage {
  readonly page: Page;
  /** Messages the page posted to the host, in order. */
  posted(): Promise<WebviewToHost[]>;
  /** Messages posted since the last call of `take`. */
  take(): Promise<WebviewToHost[]>;
  send(m: HostToWebview): Promise<void>;
  /** CSP violations the page reported (must stay empty: the page needs no inline script or style). */
  violations(): Promise<string[]>;
  /** Waits until no card or batch button is still ignoring activations (they arm for 500 ms after the cards change). */
  armed(): Promise<void>;
  close(): Promise<void>;
}

export async function openPanel(browser: Browser): Promise<PanelPage> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { __posted: unknown[]; __state: unknown; __violations: string[]; acquireVsCodeApi: () => unknown };
    w.__posted = [];
    w.__violations = [];
    w.__state = undefined;
    document.addEventListener('securitypolicyviolation', (e: any) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    let acquired = false;
    w.acquireVsCodeApi = () => {
      if (acquired) throw new Error('acquireVsCodeApi may only be called once'); // as in VS Code
      acquired = true;
      return {
        postMessage: (m: unknown) => w.__posted.push(JSON.parse(JSON.stringify(m))),
        getState: () => w.__state,
        setState: (s: unknown) => (w.__state = s),
      };
    };
  });
  const html = panelHtml({
    cspSource: ORIGIN,
    nonce: 'dGVzdG5vbmNlMTIzNDU2Nzg5MA==',
    approvalScript: `${ORIGIN}/media/approval.js`,
    historyScript: `${ORIGIN}/media/history.js`,
    approvalStyle: `${ORIGIN}/media/approval.css`,
    historyStyle: `${ORIGIN}/media/history.css`,
  });
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== ORIGIN) return route.abort();
    if (url.pathname === '/index.html') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
    const file = path.join(MEDIA, path.basename(url.pathname));
    if (url.pathname.startsWith('/media/') && fs.existsSync(file)) {
      const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'application/octet-stream';
      return route.fulfill({ status: 200, contentType: type, body: fs.readFileSync(file) });
    }
    return route.fulfill({ status: 404, body: '' });
  });
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => (window as unknown as { __posted: Array<{ type: string }> }).__posted.some((m) => m.type === 'ready'));
  let seen = 0;
  const posted = () => page.evaluate(() => (window as unknown as { __posted: WebviewToHost[] }).__posted);
  return {
    page,
    posted,
    take: async () => {
      const all = await posted();
      const out = all.slice(seen);
      seen = all.length;
      return out;
    },
    send: (m) => page.evaluate((msg) => window.postMessage(msg, '*'), m as unknown as Record<string, unknown>),
    violations: () => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
    armed: async () => {
      await page.waitForFunction(
        () => !document.querySelector('[aria-disabled="true"]') && !['approve-commands', 'approve-changes', 'batch-go'].some((id) => (document.getElementById(id) as HTMLButtonElement).dataset.armTimer),
      );
    },
    close: () => context.close(),
  };
}
