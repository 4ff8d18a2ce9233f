// @ts-check
// The history tab of the approval panel: recent requests (from the servers' audit events and this panel's own
// decisions) with a filter by outcome, and the remembered approvals with Revoke buttons. Loaded before
// approval.js, which mounts it. Data reaches the DOM as text only (never innerHTML).
'use strict';
(function () {
  const OUTCOMES = [
    ['all', 'All outcomes'],
    ['success', 'Succeeded'],
    ['failed', 'Failed'],
    ['denied', 'Denied'],
    ['approved', 'Approved (not finished)'],
    ['running', 'Running (background)'],
    ['timeout', 'Timed out'],
    ['canceled', 'Cancelled'],
    ['output_limit', 'Output limit'],
    ['error', 'Error'],
    ['withdrawn', 'Withdrawn'],
  ];
  const OUTCOME_TEXT = Object.fromEntries(OUTCOMES);
  OUTCOME_TEXT.approved = 'Approved';
  OUTCOME_TEXT.running = 'Running';
  const STOPPED_BY = { agent: 'stopped by the agent', person: 'stopped by you', lifetime: 'stopped at its lifetime', session: 'stopped: its session ended', server: 'stopped with the server' };
  const KIND_TEXT = { session: 'this session', timed: '15 minutes', always: 'always (user settings)' };
  /** What became of a command's changes (src/core/effects). */
  const EFFECT_TEXT = {
    applied: 'Applied', discarded: 'Discarded', conflict: 'Not applied (changed meanwhile)', failed: 'Applied in part',
    unchanged: 'No change', recorded: 'Changed', 'not-recorded': 'Changed (not recorded)',
  };

  /** @type {any} */ let ui;
  /** @type {any} */ let data = { entries: [], remembered: [] };
  /** @type {HTMLElement} */ let rows;
  /** @type {HTMLElement} */ let remembered;
  /** @type {HTMLSelectElement} */ let filter;
  /** One timeline per folder: the history of one folder, or of all. @type {HTMLSelectElement} */ let folderFilter;
  /** @type {HTMLElement} */ let count;

  /**
   * @param {HTMLElement} section
   * @param {{post: (m: import('../src/shared/webviewProtocol').WebviewToHost) => void, announce: (s: string) => void, el: Function, ltr: Function, vscode: any}} deps
   */
  function mount(section, deps) {
    ui = deps;
    const el = ui.el;
    const filterId = 'history-filter';
    filter = el('select', { attrs: { id: filterId } });
    for (const [value, label] of OUTCOMES) filter.append(el('option', { text: label, attrs: { value } }));
    const saved = (ui.vscode.getState() || {}).filter;
    if (OUTCOMES.some(([v]) => v === saved)) filter.value = saved;
    filter.addEventListener('change', () => {
      ui.vscode.setState({ ...(ui.vscode.getState() || {}), filter: filter.value });
      render();
      ui.announce(count.textContent || '');
    });
    folderFilter = el('select', { attrs: { id: 'history-folder', 'aria-label': 'Folder' } });
    folderFilter.addEventListener('change', () => {
      ui.vscode.setState({ ...(ui.vscode.getState() || {}), folder: folderFilter.value });
      render();
      ui.announce(count.textContent || '');
    });
    count = el('span', { className: 'count-text', attrs: { id: 'history-count' } });
    rows = el('tbody');
    const table = el('table', { className: 'history', attrs: { 'aria-describedby': 'history-count' } },
      el('caption', { className: 'sr-only', text: 'Recent requests, newest first' }),
      el('thead', null, el('tr', null, ...['Time', 'Folder', 'Tool', 'Request', 'Outcome', 'Exit', 'Duration', 'Decided by', ''].map((h) => el('th', { text: h, attrs: { scope: 'col' } })))),
      rows,
    );
    remembered = el('ul', { className: 'remembered', attrs: { 'aria-label': 'Remembered approvals' } });
    section.append(
      el('h2', { text: 'Recent requests' }),
      el('div', { className: 'filter' }, el('label', { text: 'Show ', attrs: { for: filterId } }), filter, ' in ', folderFilter, ' ', count),
      el('div', { className: 'history-scroll', attrs: { tabindex: '0', role: 'region', 'aria-label': 'Recent requests' } }, table),
      el('h2', { text: 'Remembered approvals' }),
      el('p', { className: 'hint', text: 'Commands you allowed beyond one request. Revoke one and the next identical call asks again.' }),
      remembered,
    );
    remembered.addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-revoke]');
      if (!b) return;
      const i = Number(b.getAttribute('data-revoke'));
      const r = data.remembered[i];
      if (!r) return;
      ui.post({ type: 'revoke', folder: r.folder, key: r.key, kind: r.kind });
      ui.announce('Revoking ' + r.key);
    });
    rows.addEventListener('click', (e) => {
      const b = /** @type {HTMLElement} */ (e.target).closest('button[data-diff]');
      if (b) ui.post({ type: 'openDiff', id: b.getAttribute('data-diff') });
      // Undo asks the host for a new change (its own diff, maybe its own card): nothing is restored by this click alone.
      const u = /** @type {HTMLElement} */ (e.target).closest('button[data-undo]');
      if (u) {
        ui.post({ type: 'undo', id: u.getAttribute('data-undo') });
        ui.announce('Undo requested: its diff is shown before anything is restored.');
      }
    });
    render();
  }

  /** The folder choice: every folder the entries name (a new folder appears as its first request does). */
  function renderFolders() {
    const el = ui.el;
    const folders = [...new Set(data.entries.map((/** @type {any} */ e) => String(e.folder)))].sort();
    const want = folderFilter.value || (ui.vscode.getState() || {}).folder || '';
    folderFilter.replaceChildren(el('option', { text: 'all folders', attrs: { value: '' } }), ...folders.map((f) => el('option', { text: f, attrs: { value: f } })));
    folderFilter.value = folders.includes(want) ? want : '';
  }

  /** A command's changes: what became of them, then the files (the first ones; the count says how many). */
  function changesOf(/** @type {any} */ e) {
    if (!Array.isArray(e.changes) && !e.effect) return null;
    const el = ui.el;
    const files = Array.isArray(e.changes) ? e.changes : [];
    const n = typeof e.changedCount === 'number' ? e.changedCount : files.length;
    const what = EFFECT_TEXT[/** @type {keyof typeof EFFECT_TEXT} */ (e.effect)] || e.effect || 'changed';
    const box = el('div', { className: 'changes', dataset: { effect: e.effect || '' } }, el('span', { className: 'effect', text: what + (n ? ' (' + n + ' file' + (n === 1 ? '' : 's') + '): ' : '') }));
    files.forEach((/** @type {string} */ f, /** @type {number} */ i) => {
      if (i) box.append(', ');
      box.append(ui.ltr(f, 'path').node);
    });
    if (n > files.length) box.append(' … ' + (n - files.length) + ' more');
    return box;
  }

  function render() {
    const el = ui.el;
    const f = filter.value;
    renderFolders();
    const folder = folderFilter.value;
    const entries = data.entries.filter((/** @type {any} */ e) => (f === 'all' || e.outcome === f) && (!folder || e.folder === folder));
    rows.replaceChildren(
      ...entries.map((/** @type {any} */ e) => {
        const when = new Date(e.time);
        const outcome = el('td', { className: 'outcome ' + e.outcome, text: OUTCOME_TEXT[e.outcome] || e.outcome });
        // A background command: its id, and who ended it when it did not end by itself.
        if (e.background) outcome.append(el('div', { className: 'why', text: e.background + (e.stoppedBy ? ', ' + (STOPPED_BY[/** @type {keyof typeof STOPPED_BY} */ (e.stoppedBy)] || e.stoppedBy) : '') }));
        if (e.reason) outcome.setAttribute('title', e.reason);
        return el('tr', { dataset: { outcome: e.outcome, id: e.requestId } },
          el('td', null, el('time', { text: when.toLocaleTimeString(), attrs: { datetime: e.time, title: when.toLocaleString() } })),
          el('td', { text: e.folder }),
          el('td', null, el('code', { text: e.tool })),
          el('td', { className: 'summary' }, ui.ltr(e.summary, 'path').node, e.reason ? el('div', { className: 'why', text: e.reason }) : null, changesOf(e), hostsOf(e)),
          outcome,
          el('td', { className: 'num', text: e.exitCode === undefined || e.exitCode === null ? '' : String(e.exitCode) }),
          el('td', { className: 'num', text: e.durationMs === undefined ? '' : formatMs(e.durationMs) }),
          el('td', { text: e.decidedBy ? e.decidedBy + (e.option && e.option !== 'once' ? ' (' + e.option + ')' : '') : '' }),
          el('td', null,
            e.hasDiff ? el('button', { className: 'link', text: 'Open diff', attrs: { type: 'button' }, dataset: { diff: e.requestId } }) : null,
            e.canUndo ? el('button', { className: 'link', text: 'Undo', attrs: { type: 'button', 'aria-label': 'Undo ' + e.summary }, dataset: { undo: e.requestId } }) : null,
          ),
        );
      }),
    );
    count.textContent = entries.length + ' of ' + data.entries.length + ' request' + (data.entries.length === 1 ? '' : 's');
    remembered.replaceChildren(
      ...data.remembered.map((/** @type {any} */ r, /** @type {number} */ i) =>
        el('li', null,
          ui.ltr(r.key, 'chip').node,
          el('span', { className: 'kind', text: r.kind === 'timed' && r.expiresAt ? 'until ' + new Date(r.expiresAt).toLocaleTimeString() : KIND_TEXT[/** @type {keyof typeof KIND_TEXT} */ (r.kind)] }),
          r.folder ? el('span', { className: 'folder', text: r.folder }) : null,
          el('button', { className: 'secondary', text: 'Revoke', attrs: { type: 'button', 'aria-label': 'Revoke ' + r.key }, dataset: { revoke: String(i) } }),
        ),
      ),
    );
    if (!data.remembered.length) remembered.append(el('li', { className: 'empty', text: 'None.' }));
  }

  /** The hosts a command tried through the egress proxy, one line each: allowed or refused, methods, bytes. */
  function hostsOf(/** @type {any} */ e) {
    if (!Array.isArray(e.hosts) || !e.hosts.length) return null;
    const el = ui.el;
    return el('ul', { className: 'hosts', attrs: { 'aria-label': 'Hosts tried' } },
      ...e.hosts.map((/** @type {any} */ h) =>
        el('li', { className: h.allowed ? 'allowed' : 'refused' },
          ui.ltr(h.host + ':' + h.port, 'path').node,
          ' ' + (h.allowed ? 'allowed' : 'refused') + ' (' + h.methods.join('/') + (h.requests > 1 ? ' ×' + h.requests : '') +
            (h.allowed ? ', ' + formatBytes(h.bytesSent) + ' out, ' + formatBytes(h.bytesReceived) + ' in' : '') + ')',
        ),
      ),
    );
  }

  function formatBytes(/** @type {number} */ n) {
    return n < 1024 ? n + ' B' : n < 1048576 ? (n / 1024).toFixed(1) + ' KB' : (n / 1048576).toFixed(1) + ' MB';
  }

  function formatMs(/** @type {number} */ ms) {
    return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + ' s';
  }

  /** @param {{entries: any[], remembered: any[]}} m */
  function update(m) {
    data = { entries: Array.isArray(m.entries) ? m.entries : [], remembered: Array.isArray(m.remembered) ? m.remembered : [] };
    if (ui) render();
  }

  /** @type {any} */ (window).GuardedShellHistory = { mount, update };
})();
