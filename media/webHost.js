// @ts-check
// The host shim of the standalone approval page (src/server/http/approvalPage.ts): stands in for VS Code's
// acquireVsCodeApi so media/approval.js and media/history.js run unchanged outside VS Code. Messages to the host
// are POSTed to /api/message; messages from the host arrive on the /api/events stream and go straight to the
// page's handler, never through window.postMessage (another window holding a reference to this one could post
// a forged card there). The page's secret comes from the link's fragment and is sent in a header on every call.
'use strict';
(function () {
  const secret = new URLSearchParams(location.hash.slice(1)).get('s') || '';
  const HEADER = 'X-Guarded-Shell-Page';
  const STATE_KEY = 'guarded-shell-page-state';
  /** @type {Array<(m: any) => void>} */
  const listeners = [];
  let refused = false;
  let started = false;

  /** A visible, announced banner at the top of the page (text only). */
  function banner(/** @type {string} */ text) {
    let b = document.getElementById('host-banner');
    if (!b) {
      b = document.createElement('p');
      b.id = 'host-banner';
      b.className = 'host-banner';
      b.setAttribute('role', 'alert');
      document.body.prepend(b);
    }
    b.textContent = text;
    b.hidden = !text;
  }

  function refuse() {
    refused = true;
    banner('This page was opened without its secret, or with a wrong one: open the exact link guarded-shell printed when it started.');
  }

  const api = {
    postMessage: (/** @type {unknown} */ m) => {
      if (refused) return;
      fetch('/api/message', { method: 'POST', headers: { 'Content-Type': 'application/json', [HEADER]: secret }, body: JSON.stringify(m), cache: 'no-store' })
        .then((r) => {
          if (r.status === 401 || r.status === 403) refuse();
        })
        .catch(() => banner('The approval server cannot be reached: is guarded-shell still running?'));
    },
    getState: () => {
      try {
        return JSON.parse(sessionStorage.getItem(STATE_KEY) || 'null') || undefined;
      } catch {
        return undefined;
      }
    },
    setState: (/** @type {unknown} */ s) => {
      try {
        sessionStorage.setItem(STATE_KEY, JSON.stringify(s));
      } catch {
        /* private mode: state is a convenience */
      }
    },
  };

  /** Reads the server-sent event stream; reconnects after a drop until the secret is refused. */
  async function stream() {
    while (!refused) {
      try {
        const r = await fetch('/api/events', { headers: { [HEADER]: secret }, cache: 'no-store' });
        if (r.status === 401 || r.status === 403) return refuse();
        if (!r.ok || !r.body) throw new Error('status ' + r.status);
        banner('');
        const reader = r.body.getReader();
        const decoder = new TextDecoder();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const event = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const data = event.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
            if (!data) continue;
            let m;
            try {
              m = JSON.parse(data);
            } catch {
              continue;
            }
            for (const l of listeners) l(m);
          }
        }
      } catch {
        /* dropped: say so and retry */
      }
      banner('The approval server cannot be reached: is guarded-shell still running? Retrying…');
      await new Promise((res) => setTimeout(res, 1000));
    }
  }

  /** @type {any} */ (window).GuardedShellWebHost = {
    api,
    /** @param {(m: any) => void} fn */
    listen(fn) {
      listeners.push(fn);
      if (!started) {
        started = true;
        if (!secret) refuse();
        else void stream();
      }
    },
  };
})();
