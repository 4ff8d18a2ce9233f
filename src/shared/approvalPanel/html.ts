/**
 * The approval panel's page, without VS Code (the Chromium tests serve exactly this text). The page holds no data:
 * cards arrive as messages and are drawn with DOM text APIs by media/approval.js. Its CSP allows only our own
 * stylesheets and the two scripts carrying this load's nonce: no inline script, no inline style, no fetch.
 */

export interface PanelHtmlOptions {
  /** `webview.cspSource`: the origin the stylesheets and scripts are served from. */
  readonly cspSource: string;
  /** Fresh per page load (crypto.randomBytes). */
  readonly nonce: string;
  readonly approvalScript: string;
  readonly historyScript: string;
  readonly approvalStyle: string;
  readonly historyStyle: string;
  /**
   * The standalone approval page (src/server/http/approvalPage.ts) only: a script loaded before the others that
   * stands in for VS Code's host (media/webHost.js), and the origin it may fetch from. The panel has neither.
   */
  readonly hostScript?: string;
  /** Theme variables VS Code would define (media/webHost.css). */
  readonly hostStyle?: string;
  readonly connectSrc?: string;
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function contentSecurityPolicy(cspSource: string, nonce: string, connectSrc?: string): string {
  return `default-src 'none'; style-src ${cspSource}; script-src 'nonce-${nonce}'; img-src ${cspSource} data:${connectSrc ? `; connect-src ${connectSrc}` : ''}`;
}

export function panelHtml(o: PanelHtmlOptions): string {
  const nonce = attr(o.nonce);
  // Outside VS Code (a host script stands in for it) there is no "always" setting to write and no diff editor.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(o.cspSource, o.nonce, o.connectSrc))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${o.hostStyle ? `<link rel="stylesheet" href="${attr(o.hostStyle)}">\n` : ''}<link rel="stylesheet" href="${attr(o.approvalStyle)}">
<link rel="stylesheet" href="${attr(o.historyStyle)}">
<title>Guarded Shell: approvals</title>
</head>
<body>
<header class="top">
  <div role="tablist" aria-label="Guarded Shell approvals" id="tabs">
    <button type="button" role="tab" id="tab-pending" aria-controls="panel-pending" aria-selected="true">Pending <span class="count" id="pending-count">0</span></button>
    <button type="button" role="tab" id="tab-history" aria-controls="panel-history" aria-selected="false" tabindex="-1">History</button>
  </div>
</header>
<main>
  <section id="panel-pending" role="tabpanel" aria-labelledby="tab-pending">
    <div class="toolbar">
      <button type="button" id="approve-commands" class="secondary" disabled hidden>Approve all commands…</button>
      <button type="button" id="approve-changes" class="secondary" disabled hidden>Approve all file changes…</button>
      <p class="hint" id="keys-hint">Keys inside a card: <kbd>A</kbd> approve, <kbd>D</kbd> deny, <kbd>R</kbd> reason, <kbd>S</kbd> this session, <kbd>T</kbd> 15 minutes, <kbd>L</kbd> always${o.hostScript ? '' : ', <kbd>O</kbd> open diff'}.</p>
    </div>
    <div id="notice" class="batch" role="note" aria-labelledby="notice-title" hidden></div>
    <div id="batch-confirm" class="batch" role="region" aria-labelledby="batch-title" tabindex="-1" hidden>
      <h2 id="batch-title" class="batch-title"></h2>
      <ol id="batch-list" class="batch-list"></ol>
      <div class="buttons"><button type="button" id="batch-go" class="primary" disabled>Approve these</button> <button type="button" id="batch-cancel" class="secondary">Cancel</button></div>
    </div>
    <p id="empty" class="empty">No request is waiting for you.</p>
    <ol id="cards" class="cards" role="list" aria-label="Pending approval requests" tabindex="-1"></ol>
    <section id="background" class="background" aria-labelledby="background-title" hidden>
      <h2 id="background-title" class="background-title">Running in the background</h2>
      <ol id="background-list" class="background-list" role="list"></ol>
    </section>
  </section>
  <section id="panel-history" role="tabpanel" aria-labelledby="tab-history" hidden></section>
</main>
<div id="live" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></div>
${o.hostScript ? `<script nonce="${nonce}" src="${attr(o.hostScript)}"></script>\n` : ''}<script nonce="${nonce}" src="${attr(o.historyScript)}"></script>
<script nonce="${nonce}" src="${attr(o.approvalScript)}"></script>
</body>
</html>
`;
}
