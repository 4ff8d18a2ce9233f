// @ts-check
// The approval panel's page: pending cards (this file) and the history tab (history.js). No framework, no network.
// SAFETY: every piece of request data reaches the DOM through textContent / createTextNode / setAttribute only;
// nothing here ever assigns innerHTML, so an argv element like `<img src=x onerror=…>` is shown, never parsed.
'use strict';
(function () {
  // Two hosts, one page. In VS Code, acquireVsCodeApi is a global `const` in every webview page (not a window
  // property), callable once per load. On the standalone approval page, media/webHost.js (loaded first) provides the
  // same API over HTTP and delivers the host's messages itself (window messages are then ignored: see below).
  /** @type {any} */
  const webHost = /** @type {any} */ (window).GuardedShellWebHost;
  // @ts-ignore
  const vscode = webHost ? webHost.api : acquireVsCodeApi();
  /** @typedef {import('../src/shared/webviewProtocol').WebviewToHost} WebviewToHost */
  /** @typedef {import('../src/shared/webviewProtocol').HostToWebview} HostToWebview */
  /** Every message to the host is checked against the protocol's types (tsconfig.webview.json, run by npm test). @param {WebviewToHost} m */
  const post = (m) => vscode.postMessage(m);
  const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

  /** Mouse and keyboard activations of a card are ignored this long after it appears or moves (see arm()). */
  const ARM_MS = 500;

  // ------------------------------------------------------------------------------------------------ DOM helpers

  /**
   * Creates an element. `props`: className, text (textContent), attrs (setAttribute each), dataset.
   * @param {string} tag
   * @param {{className?: string, text?: string, attrs?: Record<string, string>, dataset?: Record<string, string>} | null} [props]
   * @param {(Node|string|null|undefined|false)[]} children
   */
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    if (props) {
      if (props.className) e.className = props.className;
      if (props.text !== undefined) e.textContent = props.text;
      if (props.attrs) for (const [k, v] of Object.entries(props.attrs)) e.setAttribute(k, v);
      if (props.dataset) for (const [k, v] of Object.entries(props.dataset)) e.dataset[k] = v;
    }
    for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
    return e;
  }

  // ------------------------------------------------------------------------------------------ visible characters

  const NAMED = { 0x0a: '\\n', 0x09: '\\t', 0x0d: '\\r', 0x00: '\\0', 0x1b: '\\e', 0x0b: '\\v', 0x0c: '\\f', 0x08: '\\b', 0x07: '\\a' };
  const hex = (/** @type {number} */ n, /** @type {number} */ w) => n.toString(16).toUpperCase().padStart(w, '0');

  /**
   * The escape shown for a character that would otherwise be invisible or would change how the text around it
   * is displayed (controls, bidirectional overrides and isolates, zero-width and unusual spaces); null for a
   * character shown as itself.
   * @param {number} cp
   */
  function escapeFor(cp) {
    if (cp in NAMED) return NAMED[/** @type {keyof typeof NAMED} */ (cp)];
    if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp <= 0x9f)) return '\\x' + hex(cp, 2);
    if (
      cp === 0x00a0 || cp === 0x00ad || cp === 0x034f || cp === 0x061c || cp === 0x115f || cp === 0x1160 || cp === 0x1680 ||
      cp === 0x180e || (cp >= 0x2000 && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202f) || (cp >= 0x205f && cp <= 0x206f) ||
      cp === 0x3000 || cp === 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0xfeff || cp === 0xffa0 ||
      (cp >= 0xfff0 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe0fff) || (cp >= 0xd800 && cp <= 0xdfff)
    ) return cp > 0xffff ? '\\u{' + hex(cp, 5) + '}' : '\\u' + hex(cp, 4);
    return null;
  }

  /**
   * Appends `s` to `parent` as text, with every invisible or display-changing character shown as an escape in
   * its own marked span. With `spaces`, each ordinary space is a marked `·` (argv chips: a space INSIDE one
   * argument must be visible). Returns whether the text holds characters beyond printable ASCII.
   * @param {HTMLElement} parent
   * @param {string} s
   * @param {{spaces?: boolean}} [opts]
   */
  function appendVisible(parent, s, opts) {
    let run = '';
    let unusual = false;
    const flush = () => {
      if (run) parent.append(document.createTextNode(run));
      run = '';
    };
    for (const ch of s) {
      const cp = /** @type {number} */ (ch.codePointAt(0));
      if (cp > 0x7e) unusual = true;
      const esc = escapeFor(cp);
      if (esc !== null) {
        flush();
        parent.append(el('span', { className: 'esc', text: esc, attrs: { title: 'U+' + hex(cp, 4) } }));
      } else if (cp === 0x20 && opts && opts.spaces) {
        flush();
        parent.append(el('span', { className: 'ws', text: '·', attrs: { title: 'space', 'aria-hidden': 'true' } }), el('span', { className: 'sr-only', text: ' space ' }));
      } else run += ch;
    }
    flush();
    return unusual;
  }

  /** A string as a double-quoted literal with the same escapes: for titles and screen readers. */
  function quoted(/** @type {string} */ s) {
    let out = '"';
    for (const ch of s) {
      const cp = /** @type {number} */ (ch.codePointAt(0));
      const esc = escapeFor(cp);
      out += esc !== null ? esc : ch === '"' ? '\\"' : ch === '\\' ? '\\\\' : ch;
    }
    return out + '"';
  }

  /**
   * A text run that is always laid out left to right and isolated from its neighbours, so right-to-left
   * characters inside it cannot reorder the text around it.
   * @param {string} s
   * @param {string} className
   * @param {{spaces?: boolean}} [opts]
   */
  function ltr(s, className, opts) {
    const b = el('bdi', { className, attrs: { dir: 'ltr' } });
    const unusual = appendVisible(b, s, opts);
    if (s === '') b.append(el('span', { className: 'esc', text: '""', attrs: { title: 'empty argument' } }));
    return { node: b, unusual };
  }

  // -------------------------------------------------------------------------------------------------- the cards

  const cardsList = $('cards');
  const live = $('live');
  /**
   * Batch approval is per kind (commands, file changes) and never acts on the first click: the first click lists
   * exactly what the batch covers; only "Approve these N" in that list approves, and only the cards listed.
   * @type {Record<'commands'|'changes', HTMLButtonElement>}
   */
  const batchButtons = {
    commands: /** @type {HTMLButtonElement} */ ($('approve-commands')),
    changes: /** @type {HTMLButtonElement} */ ($('approve-changes')),
  };
  const batchBox = $('batch-confirm');
  const batchList = $('batch-list');
  const batchTitle = $('batch-title');
  const batchGo = /** @type {HTMLButtonElement} */ ($('batch-go'));
  const batchCancel = /** @type {HTMLButtonElement} */ ($('batch-cancel'));
  /** @type {{kind: 'commands'|'changes', ids: string[]} | null} */
  let batch = null;
  const BATCH_NOUN = { commands: ['command', 'commands'], changes: ['file change', 'file changes'] };
  /** Which batch a card belongs to (a fetch is always decided on its own). @param {any} c */
  const kindOf = (c) => (c && c.command ? 'commands' : c && c.change ? 'changes' : null);
  const noun = (/** @type {'commands'|'changes'} */ k, /** @type {number} */ n) => BATCH_NOUN[k][n === 1 ? 0 : 1];
  const idsOfKind = (/** @type {string} */ k) => [...shown.keys()].filter((id) => kindOf(cardData.get(id)) === k);
  /** @type {Map<string, HTMLElement>} */
  const shown = new Map();
  /** @type {Map<string, any>} */
  const cardData = new Map();
  /** Rules typed into a card's "Always allow" field, kept while the card is shown again (a rule the host refused). @type {Map<string, string>} */
  const typedRules = new Map();
  let announceTimer = 0;

  function announce(/** @type {string} */ text) {
    // Cleared first so the same sentence twice is announced twice.
    live.textContent = '';
    clearTimeout(announceTimer);
    announceTimer = window.setTimeout(() => (live.textContent = text), 50);
  }

  /** @type {Array<{option: import('../src/core/approval').ApprovalOption, approved: boolean, label: string, key: string, className: string, action: string}>} */
  const OPTION_BUTTONS = [
    { option: 'once', approved: true, label: 'Approve', key: 'A', className: 'primary', action: 'approve' },
    { option: 'once', approved: false, label: 'Deny', key: 'D', className: 'danger', action: 'deny' },
    { option: 'session', approved: true, label: 'Allow for this session', key: 'S', className: 'secondary', action: 'session' },
    { option: 'timed', approved: true, label: 'Allow for 15 minutes', key: 'T', className: 'secondary', action: 'timed' },
    { option: 'always', approved: true, label: 'Always allow (rule below)', key: 'L', className: 'secondary', action: 'always' },
  ];

  const KIND_TEXT = { edit: 'Edit', write: 'Write', copy: 'Copy', move: 'Move', delete: 'Delete', mkdir: 'Create folder', rmdir: 'Remove folder', undo: 'Undo' };

  /** One line of "what" for announcements and labels. */
  function summary(/** @type {any} */ c) {
    if (c.command) return c.command.stages.map((/** @type {string[]} */ s) => s.map(quoted).join(' ')).join(' | ');
    if (c.change) return (KIND_TEXT[/** @type {keyof typeof KIND_TEXT} */ (c.change.kind)] || c.change.kind) + ' ' + c.change.files.join(' → ');
    if (c.effect) return 'changes of ' + c.effect.stages.map((/** @type {string[]} */ s) => s.map(quoted).join(' ')).join(' | ');
    if (c.fetch) return 'fetch ' + c.fetch.url;
    if (c.network) return 'reach ' + c.network.host + ':' + c.network.port;
    return c.tool;
  }

  /** A host a running command wants to reach (network: domains), and the command. @param {any} n */
  function renderHost(n) {
    const box = el('div', { className: 'host' },
      el('p', null, el('span', { className: 'label', text: 'Host: ' }), ltr(n.host + ':' + n.port, 'path').node, ' (' + n.method + '), not on the allowed domains'));
    if (n.command !== undefined) box.append(el('p', null, el('span', { className: 'label', text: 'Asked by the running command: ' }), ltr(n.command, 'path').node));
    return box;
  }

  /** @param {any} c  a Card (src/shared/webviewProtocol.ts) */
  function renderCard(c) {
    const titleId = 'card-title-' + shown.size + '-' + Math.random().toString(36).slice(2);
    const li = el('li', { className: 'card', attrs: { tabindex: '0', 'aria-labelledby': titleId }, dataset: { id: c.id } });
    const when = new Date(c.since);
    li.append(
      el('header', { className: 'card-head' },
        el('h2', { className: 'tool', attrs: { id: titleId } }, c.command ? 'Run command' : c.change ? 'Change files' : c.effect ? 'Apply what the command changed' : c.fetch ? 'Fetch URL' : c.network ? 'Reach a host' : 'Request', el('span', { className: 'sr-only', text: ': ' + summary(c) })),
        el('span', { className: 'badge', text: c.tool, attrs: { title: 'MCP tool' } }),
        el('span', { className: 'folder', text: c.folder, attrs: { title: 'Workspace folder' } }),
        el('time', { className: 'since', text: when.toLocaleTimeString(), attrs: { datetime: when.toISOString() } }),
      ),
    );
    if (c.command) li.append(renderCommand(c.command));
    if (c.change) li.append(renderChange(c.change, c.id));
    if (c.effect) li.append(renderEffect(c.effect, c.id));
    if (c.fetch) li.append(el('p', { className: 'fetch' }, 'URL: ', ltr(c.fetch.url, 'path').node));
    if (c.network) li.append(renderHost(c.network));
    const why = el('p', { className: 'why' }, el('span', { className: 'label', text: 'Why asked: ' }));
    appendVisible(why, c.reason || 'the policy asks');
    why.append(' ', el('code', { className: 'rule', text: c.rule, attrs: { title: 'Policy rule' } }));
    li.append(why, renderActions(c));
    return li;
  }

  /** @param {any} cmd */
  function renderCommand(cmd) {
    const box = el('div', { className: 'command' });
    cmd.stages.forEach((/** @type {string[]} */ argv, /** @type {number} */ i) => {
      const name = cmd.stages.length > 1 ? 'Stage ' + (i + 1) + ' of ' + cmd.stages.length : 'Command';
      const stage = el('div', { className: 'stage' });
      if (i > 0) stage.append(el('span', { className: 'pipe', text: '|', attrs: { title: 'stdout of the previous stage goes to this one', 'aria-hidden': 'true' } }));
      const list = el('ol', { className: 'argv', attrs: { role: 'list', 'aria-label': name + ', ' + argv.length + ' argument' + (argv.length === 1 ? '' : 's') } });
      argv.forEach((arg, j) => {
        const { node, unusual } = ltr(arg, 'chip', { spaces: true });
        const item = el('li', { className: 'arg' + (j === 0 ? ' program' : '') + (unusual ? ' unusual' : ''), attrs: { role: 'listitem', title: quoted(arg) } }, node);
        item.dataset.index = String(j);
        if (unusual) item.append(el('span', { className: 'flag', text: '!', attrs: { title: 'Contains characters beyond plain ASCII', 'aria-label': 'contains characters beyond plain ASCII' } }));
        list.append(item);
      });
      stage.append(el('span', { className: 'sr-only', text: name + ': ' }), list);
      box.append(stage);
    });
    const facts = el('dl', { className: 'facts' });
    const fact = (/** @type {string} */ k, /** @type {Node|string} */ v, /** @type {string} */ cls = '') => facts.append(el('dt', { text: k }), el('dd', { className: cls }, v));
    fact('Directory', cmd.cwd === '.' ? 'workspace root' : ltr(cmd.cwd, 'path').node);
    if (cmd.stdinFile !== undefined) fact('stdin from', ltr(cmd.stdinFile, 'path').node);
    if (cmd.stdoutFile) fact(cmd.stdoutFile.append ? 'stdout appended to' : 'stdout replaces', ltr(cmd.stdoutFile.path, 'path').node, 'redirect');
    const none = cmd.isolation === 'none';
    fact('Isolation', none ? '⚠ none: runs with your own permissions' : cmd.isolation, none ? 'warning' : 'ok');
    // A program not on the allowlist, and a program that runs any code: said in words before the decision.
    if (Array.isArray(cmd.notListed) && cmd.notListed.length) {
      const names = cmd.notListed.map((/** @type {number} */ i) => quoted((cmd.stages[i] || [''])[0]));
      box.append(el('p', { className: 'notice not-listed', attrs: { role: 'note' } }, el('strong', { text: 'Not on your allowlist: ' }), names.join(', ') + '. Approving runs it this time; "Always allow" saves a rule.'));
    }
    for (const r of Array.isArray(cmd.runsAnyCode) ? cmd.runsAnyCode : []) {
      const p = el('p', { className: 'notice runs-any-code' + (none ? ' warning' : ''), attrs: { role: 'note' } });
      appendVisible(p, r.note);
      box.append(p);
    }
    box.append(facts);
    if (cmd.background) box.append(renderBackgroundNote(cmd.background));
    if (cmd.stdinLines) {
      const pre = el('pre', { className: 'stdin', attrs: { 'aria-label': 'First lines of stdin' } });
      cmd.stdinLines.forEach((/** @type {string} */ line, /** @type {number} */ i) => {
        if (i) pre.append('\n');
        appendVisible(pre, line);
      });
      if (cmd.stdinMore) pre.append('\n', el('span', { className: 'more', text: '… more lines' }));
      box.append(el('div', { className: 'stdin-box' }, el('span', { className: 'label', text: 'stdin (first lines)' }), pre));
    }
    return box;
  }

  /** What a background start (or input to a running one) means, said before the decision. @param {any} b */
  function renderBackgroundNote(b) {
    const p = el('p', { className: 'notice background-note', attrs: { role: 'note' } });
    if (b.inputTo) {
      p.append(el('strong', { text: 'Input for ' + b.inputTo + ': ' }), 'the running background command reads the stdin below. It is judged as this command started with that input.');
      return p;
    }
    const life = typeof b.lifetimeSeconds === 'number' ? formatSeconds(b.lifetimeSeconds) : 'its lifetime';
    p.append(el('strong', { text: 'Runs in the background: ' }), 'it goes on after this call, until it exits, you or the agent stop it, its session ends, or ' + life + ' pass.');
    if (b.openInput) p.append(' Its input stays open: what the agent sends it later is judged again (and asked about where your mode asks).');
    return p;
  }

  function formatSeconds(/** @type {number} */ s) {
    if (s < 120) return Math.round(s) + ' s';
    if (s < 7200) return Math.round(s / 60) + ' min';
    return (s / 3600).toFixed(s % 3600 ? 1 : 0) + ' h';
  }

  // ------------------------------------------------------------------------------------- background commands

  /** One row per running background command, keyed by folder and id, updated in place (a Stop being clicked stays). */
  const bgRows = new Map();
  let bgAt = Date.now();

  /** @param {any[]} runs  BackgroundView (src/shared/webviewProtocol.ts) */
  function renderBackground(runs) {
    bgAt = Date.now();
    const list = $('background-list');
    const keep = new Set();
    for (const r of runs) {
      const key = r.folderKey + '\n' + r.id;
      keep.add(key);
      let row = bgRows.get(key);
      if (!row) {
        row = bgRow(r);
        bgRows.set(key, row);
        list.append(row.li);
        announce('Running in the background: ' + r.id + ' ' + argvText(r.stages) + '.');
      }
      row.run = r;
      row.lines.replaceChildren();
      row.lines.classList.toggle('empty', r.lastLines.length === 0);
      if (r.lastLines.length === 0) row.lines.textContent = '(no output yet)';
      r.lastLines.forEach((/** @type {string} */ line, /** @type {number} */ i) => {
        if (i) row.lines.append('\n');
        appendVisible(row.lines, line);
      });
      row.ports.textContent = Array.isArray(r.ports) && r.ports.length ? 'listening on ' + r.ports.join(', ') : '';
    }
    for (const [key, row] of bgRows) {
      if (keep.has(key)) continue;
      row.li.remove();
      bgRows.delete(key);
    }
    $('background').hidden = runs.length === 0;
    $('background-title').textContent = 'Running in the background (' + runs.length + ')';
    tickBackground();
  }

  const argvText = (/** @type {string[][]} */ stages) => stages.map((s) => s.map(quoted).join(' ')).join(' | ');

  /** @param {any} r */
  function bgRow(r) {
    const elapsed = el('span', { className: 'since bg-elapsed' });
    const ports = el('span', { className: 'since bg-ports' });
    const lines = el('pre', { className: 'bg-lines', attrs: { 'aria-label': 'Last lines of output of ' + r.id } });
    const stop = el('button', { className: 'danger', text: 'Stop', attrs: { type: 'button', 'aria-label': 'Stop ' + r.id + ': ' + argvText(r.stages) }, dataset: { stop: r.id } });
    stop.addEventListener('click', () => {
      stop.setAttribute('disabled', '');
      stop.textContent = 'Stopping…';
      post({ type: 'stopBackground', folderKey: r.folderKey, id: r.id });
      announce('Stopping ' + r.id + '.');
    });
    const none = r.isolation === 'none';
    const facts = el('dl', { className: 'facts' },
      el('dt', { text: 'Directory' }), el('dd', null, r.cwd === '.' ? 'workspace root' : ltr(r.cwd, 'path').node),
      el('dt', { text: 'Isolation' }), el('dd', { className: none ? 'warning' : 'ok', text: none ? '⚠ none: runs with your own permissions' : r.isolation }),
    );
    if (r.inputOpen) facts.append(el('dt', { text: 'Input' }), el('dd', { text: 'open: the agent may send more' }));
    const li = el('li', { className: 'bg-run', attrs: { 'aria-label': r.id + ' in ' + r.folder + ': ' + argvText(r.stages) }, dataset: { id: r.id } },
      el('header', { className: 'card-head' },
        el('h3', { text: r.id }),
        el('span', { className: 'folder', text: r.folder, attrs: { title: 'Workspace folder' } }),
        elapsed,
        ports,
      ),
      el('p', { className: 'bg-argv' }, ltr(argvText(r.stages), 'path').node),
      facts,
      lines,
      el('div', { className: 'buttons' }, stop),
    );
    return { li, elapsed, ports, lines, stop, run: r };
  }

  /** Elapsed times count on between the host's updates. */
  function tickBackground() {
    for (const row of bgRows.values()) {
      const s = Math.round((row.run.elapsedMs + Date.now() - bgAt) / 1000);
      row.elapsed.textContent = 'running ' + (s < 60 ? s + ' s' : Math.floor(s / 60) + ' min ' + (s % 60) + ' s');
    }
  }
  setInterval(tickBackground, 1000);

  /** @param {any} ch @param {string} id */
  function renderChange(ch, id) {
    const box = el('div', { className: 'change' });
    const files = el('p', { className: 'files' }, el('span', { className: 'kind', text: KIND_TEXT[/** @type {keyof typeof KIND_TEXT} */ (ch.kind)] || ch.kind }), ' ');
    ch.files.forEach((/** @type {string} */ f, /** @type {number} */ i) => {
      if (i) files.append(el('span', { className: 'arrow', text: ' → ', attrs: { 'aria-label': ' to ' } }));
      files.append(ltr(f, 'path').node);
    });
    box.append(files);
    if (ch.diff) {
      box.append(el('p', { className: 'stat' }, el('span', { className: 'added', text: '+' + ch.added }), ' ', el('span', { className: 'removed', text: '−' + ch.removed }), el('span', { className: 'sr-only', text: ' lines added and removed' })));
      box.append(renderDiff(ch.diff, ch.files[0] || ''));
      if (ch.diffOmitted) box.append(el('p', { className: 'more', text: '… ' + ch.diffOmitted + ' more diff lines: open the diff editor to see them all.' }));
    } else if (ch.kind !== 'mkdir' && ch.kind !== 'rmdir') {
      box.append(el('p', { className: 'more', text: 'No content diff for this change: the files above are what it touches.' }));
    }
    if (ch.canOpenDiff) {
      box.append(el('button', { className: 'secondary open-diff', text: 'Open in diff editor', attrs: { type: 'button', 'aria-keyshortcuts': 'O' }, dataset: { action: 'openDiff', key: 'O', id } }));
    }
    return box;
  }

  const EFFECT_OUTCOME = { ok: 'finished (exit status 0)', failed: 'failed', timeout: 'timed out', output_limit: 'stopped at the output limit', canceled: 'was cancelled' };

  /**
   * A previewed command's effect: the command (already run, against a copy-on-write view), how it ended, its output,
   * every file and what happens to it, the diff, and what a preview cannot see. Apply writes exactly this.
   * @param {any} fx @param {string} id
   */
  function renderEffect(fx, id) {
    const box = el('div', { className: 'effect' });
    const line = el('p', { className: 'ran' }, el('span', { className: 'label', text: 'Ran (nothing written yet): ' }));
    fx.stages.forEach((/** @type {string[]} */ argv, /** @type {number} */ i) => {
      if (i) line.append(' | ');
      line.append(ltr(argv.map(quoted).join(' '), 'path').node);
    });
    const ended = EFFECT_OUTCOME[/** @type {keyof typeof EFFECT_OUTCOME} */ (fx.outcome)] || fx.outcome;
    line.append(' — ' + (fx.outcome === 'failed' && fx.exitCode !== null ? 'failed with exit status ' + fx.exitCode : ended));
    box.append(line);
    for (const [name, text] of [['stdout', fx.stdout], ['stderr', fx.stderr]]) {
      if (!text) continue;
      const pre = el('pre', { className: 'output ' + name, attrs: { 'aria-label': 'The command\'s ' + name } });
      appendVisible(pre, text);
      box.append(el('div', { className: 'output-box' }, el('span', { className: 'label', text: name }), pre));
    }
    const list = el('ul', { className: 'effect-files', attrs: { 'aria-label': 'Files the command changed' } });
    for (const f of fx.files) {
      const item = el('li', { className: 'effect-file' + (f.change === 'not applied' ? ' not-applied' : ''), dataset: { change: f.change } },
        el('span', { className: 'kind', text: f.change }), ' ', ltr(f.path, 'path').node);
      if (f.detail !== undefined) item.append(el('span', { className: 'detail' }, f.change === 'renamed' ? ' (from ' : ' (', ltr(f.detail, 'path').node, ')'));
      list.append(item);
    }
    box.append(list);
    if (fx.more) box.append(el('p', { className: 'more', text: '… and ' + fx.more + ' more files.' }));
    if (fx.diff.length) {
      box.append(el('p', { className: 'stat' }, el('span', { className: 'added', text: '+' + fx.added }), ' ', el('span', { className: 'removed', text: '−' + fx.removed }), el('span', { className: 'sr-only', text: ' lines added and removed' })));
      box.append(renderDiff(fx.diff, 'the command\'s changes'));
      if (fx.diffOmitted) box.append(el('p', { className: 'more', text: '… ' + fx.diffOmitted + ' more diff lines.' }));
    }
    box.append(el('p', { className: 'notice limits', attrs: { role: 'note' }, text: fx.limits }));
    if (fx.canOpenDiff) {
      box.append(el('button', { className: 'secondary open-diff', text: 'Open in diff editor', attrs: { type: 'button', 'aria-keyshortcuts': 'O' }, dataset: { action: 'openDiff', key: 'O', id } }));
    }
    return box;
  }

  const SIGN = { add: '+', del: '−', ctx: ' ', hunk: '', file: '', note: '', info: '' };
  const SIGN_WORD = { add: 'added', del: 'removed', ctx: 'unchanged', hunk: '', file: '', note: '', info: '' };

  /** @param {any[]} lines @param {string} file */
  function renderDiff(lines, file) {
    const table = el('table', { className: 'diff' });
    table.append(el('caption', { className: 'sr-only', text: 'Changes to ' + file }));
    table.append(el('thead', { className: 'sr-only' }, el('tr', null, el('th', { text: 'Old line', attrs: { scope: 'col' } }), el('th', { text: 'New line', attrs: { scope: 'col' } }), el('th', { text: 'Change', attrs: { scope: 'col' } }), el('th', { text: 'Text', attrs: { scope: 'col' } }))));
    const body = el('tbody');
    for (const l of lines) {
      const tr = el('tr', { className: 'line ' + l.kind });
      if (l.kind === 'hunk' || l.kind === 'file' || l.kind === 'note' || l.kind === 'info') {
        const td = el('td', { className: 'meta', attrs: { colspan: '4' } });
        appendVisible(td, l.kind === 'note' ? '\\ ' + l.text : l.text);
        tr.append(td);
      } else {
        const code = el('td', { className: 'code' });
        appendVisible(code, l.text);
        tr.append(
          el('td', { className: 'num old', text: l.oldNo === undefined ? '' : String(l.oldNo) }),
          el('td', { className: 'num new', text: l.newNo === undefined ? '' : String(l.newNo) }),
          el('td', { className: 'sign' }, el('span', { text: SIGN[/** @type {keyof typeof SIGN} */ (l.kind)], attrs: { 'aria-hidden': 'true' } }), el('span', { className: 'sr-only', text: SIGN_WORD[/** @type {keyof typeof SIGN} */ (l.kind)] })),
          code,
        );
      }
      body.append(tr);
    }
    table.append(body);
    return el('div', { className: 'diff-scroll', attrs: { tabindex: '0', role: 'region', 'aria-label': 'Diff of ' + file } }, table);
  }

  /** @param {any} c */
  function renderActions(c) {
    const reasonId = 'reason-' + Math.random().toString(36).slice(2);
    const actions = el('div', { className: 'actions', attrs: { role: 'group', 'aria-label': 'Decision' } });
    const reason = el('div', { className: 'reason' },
      el('label', { text: c.effect ? 'Reason if you discard (optional, sent to the agent)' : 'Reason if you deny (optional, sent to the agent)', attrs: { for: reasonId } }),
      el('input', { className: 'reason-input', attrs: { id: reasonId, type: 'text', maxlength: '2000', 'aria-keyshortcuts': 'R', autocomplete: 'off', spellcheck: 'false' } }),
    );
    const buttons = el('div', { className: 'buttons' });
    for (const b of OPTION_BUTTONS) {
      if (b.approved && !c.options.includes(b.option)) continue;
      // A host card's "always" adds the host to the allowed domains, not a command line to the auto-approvals.
      // An effect card approves writing the changes, or drops them.
      const label = b.option === 'always' && c.network ? 'Always allow ' + c.network.host : c.effect ? (b.approved ? 'Apply' : 'Discard') : b.label;
      buttons.append(el('button', { className: b.className, text: label, attrs: { type: 'button', 'aria-keyshortcuts': b.key }, dataset: { action: b.action, key: b.key } }));
    }
    actions.append(reason);
    if (c.options.includes('always') && Array.isArray(c.rules) && c.rules.length) actions.append(renderRule(c));
    actions.append(buttons);
    return actions;
  }

  /**
   * The rule "Always allow" saves: the exact line by default, editable, with the offered alternatives one click away
   * (`git log *`: any further arguments). The host checks that it covers this command before saving it.
   * @param {any} c
   */
  function renderRule(c) {
    const ruleId = 'rule-' + Math.random().toString(36).slice(2);
    const input = el('input', { className: 'rule-input', attrs: { id: ruleId, type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': ruleId + '-help' } });
    /** @type {HTMLInputElement} */ (input).value = typedRules.get(c.id) ?? c.rules[0];
    input.addEventListener('input', () => typedRules.set(c.id, /** @type {HTMLInputElement} */ (input).value));
    const choices = el('span', { className: 'rule-choices' });
    for (const r of c.rules) {
      const b = el('button', { className: 'link rule-choice', attrs: { type: 'button', title: 'Use this rule' }, dataset: { rule: r } });
      b.append(ltr(r, 'chip').node);
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        /** @type {HTMLInputElement} */ (input).value = r;
        typedRules.set(c.id, r);
        input.focus();
      });
      choices.append(b);
    }
    return el('div', { className: 'rule' },
      el('label', { text: 'Rule for "Always allow"', attrs: { for: ruleId } }),
      input,
      el('p', { className: 'hint', attrs: { id: ruleId + '-help' } }, 'An exact command line, or a prefix ending in " *" for any further arguments. Offered: ', choices),
      el('p', { className: 'rule-error', attrs: { role: 'alert' } }),
    );
  }

  /**
   * Makes a card ignore activations for a moment: a card that just appeared or just moved up (one above it was
   * decided) must not receive a click or key press aimed at what was there before.
   * @param {HTMLElement} card
   */
  function arm(card) {
    card.setAttribute('aria-disabled', 'true');
    card.classList.add('arming');
    const t = Number(card.dataset.armTimer || 0);
    if (t) clearTimeout(t);
    card.dataset.armTimer = String(setTimeout(() => {
      card.removeAttribute('aria-disabled');
      card.classList.remove('arming');
      card.dataset.armTimer = '';
    }, ARM_MS));
  }

  /** The batch buttons and the batch's own "Approve these" ignore clicks for a moment after the cards change. */
  function armApproveAll() {
    for (const b of [batchButtons.commands, batchButtons.changes, batchGo]) {
      b.disabled = true;
      const t = Number(b.dataset.armTimer || 0);
      if (t) clearTimeout(t);
      b.dataset.armTimer = String(setTimeout(() => {
        b.dataset.armTimer = '';
        updateCount();
      }, ARM_MS));
    }
  }

  function updateCount() {
    const n = shown.size;
    $('pending-count').textContent = String(n);
    $('empty').hidden = n > 0;
    for (const k of /** @type {Array<'commands'|'changes'>} */ (['commands', 'changes'])) {
      const b = batchButtons[k];
      const m = idsOfKind(k).length;
      b.textContent = 'Approve all ' + m + ' ' + noun(k, m) + '…';
      b.hidden = m === 0;
      if (!b.dataset.armTimer) b.disabled = m === 0;
    }
    if (batch) {
      // A listed card decided or withdrawn meanwhile leaves the list; a new card never joins it.
      batch.ids = batch.ids.filter((id) => shown.has(id));
      if (!batch.ids.length) closeBatch();
      else renderBatch();
    }
    if (!batchGo.dataset.armTimer) batchGo.disabled = !batch;
  }

  /** Shows what a batch covers, in the order of the cards: the exact command lines or the files. */
  function renderBatch() {
    if (!batch) return;
    const n = batch.ids.length;
    batchTitle.textContent = 'Approve these ' + n + ' ' + noun(batch.kind, n) + '?';
    batchGo.textContent = 'Approve these ' + n;
    batchList.replaceChildren(...batch.ids.map((id) => {
      const c = cardData.get(id);
      return el('li', { dataset: { id } }, ltr(summary(c), 'path').node);
    }));
  }

  function openBatch(/** @type {'commands'|'changes'} */ kind) {
    const ids = idsOfKind(kind);
    if (!ids.length) return;
    batch = { kind, ids };
    batchBox.hidden = false;
    renderBatch();
    armApproveAll();
    batchBox.focus();
    announce('Approving ' + ids.length + ' ' + noun(kind, ids.length) + ' needs one more click: the list shows what it covers.');
  }

  function closeBatch() {
    batch = null;
    batchBox.hidden = true;
    batchList.replaceChildren();
  }

  /** @param {any[]} cards */
  function sync(cards) {
    const ids = new Set(cards.map((c) => c.id));
    let moved = false;
    for (const id of [...shown.keys()]) if (!ids.has(id)) moved = removeCard(id) || moved;
    const added = [];
    for (const c of cards) {
      if (shown.has(c.id)) continue;
      const li = renderCard(c);
      shown.set(c.id, li);
      cardData.set(c.id, c);
      cardsList.append(li);
      arm(li);
      added.push(c);
    }
    if (added.length || moved) armApproveAll();
    updateCount();
    if (!added.length) return;
    const where = $('panel-pending').hidden ? ' Open the Pending tab to decide.' : '';
    if (added.length === 1) announce('New approval request from ' + added[0].folder + ': ' + summary(added[0]) + '. ' + shown.size + ' pending.' + where);
    else announce(added.length + ' new approval requests. ' + shown.size + ' pending.' + where);
  }

  /**
   * Removes a card; the cards below it moved up, so they are re-armed. When focus was inside it, focus goes to the
   * list itself (never straight onto the next card, where a second key press would decide a request unread).
   * @param {string} id
   * @returns {boolean} whether a card was removed
   */
  function removeCard(id) {
    const li = shown.get(id);
    if (!li) return false;
    const hadFocus = li.contains(document.activeElement);
    let next = li.nextElementSibling;
    li.remove();
    shown.delete(id);
    cardData.delete(id);
    for (; next; next = next.nextElementSibling) arm(/** @type {HTMLElement} */ (next));
    if (hadFocus) cardsList.focus();
    updateCount();
    return true;
  }

  /**
   * @param {HTMLElement} card
   * @param {string} action
   */
  function act(card, action) {
    const id = card.dataset.id || '';
    const c = cardData.get(id);
    if (!c) return;
    if (card.getAttribute('aria-disabled') === 'true') {
      announce('This card just appeared or moved: try again in a moment.');
      return;
    }
    if (action === 'openDiff') {
      post({ type: 'openDiff', id });
      return;
    }
    const b = OPTION_BUTTONS.find((x) => x.action === action);
    if (!b || (b.approved && !c.options.includes(b.option))) return;
    const input = /** @type {HTMLInputElement|null} */ (card.querySelector('.reason-input'));
    const reason = input ? input.value.trim() : '';
    const ruleInput = /** @type {HTMLInputElement|null} */ (card.querySelector('.rule-input'));
    const rule = b.option === 'always' && ruleInput ? ruleInput.value.trim() : '';
    post({ type: 'decide', id, approved: b.approved, option: b.option, ...(!b.approved && reason ? { reason } : {}), ...(rule ? { rule } : {}) });
    removeCard(id);
    armApproveAll();
    const verb = c.effect ? (b.approved ? 'Applied' : 'Discarded') : !b.approved ? 'Denied' : b.option === 'once' ? 'Approved' : b.option === 'session' ? 'Allowed for this session' : b.option === 'timed' ? 'Allowed for 15 minutes' : 'Always allowed';
    announce(verb + ': ' + summary(c) + '. ' + (shown.size ? shown.size + ' pending: press Tab to reach the next one.' : 'Nothing else is waiting.'));
  }

  cardsList.addEventListener('click', (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    const button = /** @type {HTMLElement|null} */ (target.closest('button[data-action]'));
    const card = /** @type {HTMLElement|null} */ (target.closest('li.card'));
    if (button && card) act(card, button.dataset.action || '');
  });

  cardsList.addEventListener('keydown', (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    const card = /** @type {HTMLElement|null} */ (target.closest('li.card'));
    if (!card) return;
    if (target.classList.contains('reason-input')) {
      // Enter in the reason field denies with that reason; Escape leaves the field (back to the card's keys).
      if (e.key === 'Enter' && !e.repeat) {
        e.preventDefault();
        act(card, 'deny');
      } else if (e.key === 'Escape') {
        e.preventDefault();
        card.focus();
      }
      return;
    }
    // Letter keys act only inside a card, never on a held-down key, never with a modifier (those are VS Code's).
    if (e.repeat || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || e.key.length !== 1) return;
    const key = e.key.toUpperCase();
    if (key === 'R') {
      e.preventDefault();
      /** @type {HTMLElement|null} */ (card.querySelector('.reason-input'))?.focus();
      return;
    }
    const button = /** @type {HTMLElement|null} */ (card.querySelector('button[data-key="' + key + '"]'));
    if (!button) return;
    e.preventDefault();
    act(card, button.dataset.action || '');
  });

  for (const k of /** @type {Array<'commands'|'changes'>} */ (['commands', 'changes'])) {
    batchButtons[k].addEventListener('click', () => {
      if (!batchButtons[k].disabled) openBatch(k);
    });
  }
  batchCancel.addEventListener('click', () => {
    closeBatch();
    updateCount();
    announce('Nothing approved.');
  });
  batchGo.addEventListener('click', () => {
    if (batchGo.disabled || !batch) return;
    // Exactly the cards listed (and still pending); one that arrived after the list opened is not included.
    const { kind, ids } = batch;
    closeBatch();
    post({ type: 'approveAll', kind, ids });
    for (const id of ids) removeCard(id);
    announce('Approved ' + ids.length + ' ' + noun(kind, ids.length) + '.');
  });

  // ------------------------------------------------------------------------------------------------------ tabs

  const tabs = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('[role="tab"]')]);
  const state = vscode.getState() || {};
  /** @param {string} name @param {boolean} [focus] */
  function selectTab(name, focus) {
    for (const t of tabs) {
      const on = t.id === 'tab-' + name;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      $(/** @type {string} */ (t.getAttribute('aria-controls'))).hidden = !on;
      if (on && focus) t.focus();
    }
    vscode.setState({ ...(vscode.getState() || {}), tab: name });
  }
  for (const t of tabs) {
    t.addEventListener('click', () => selectTab(t.id.slice(4)));
    t.addEventListener('keydown', (e) => {
      const i = tabs.indexOf(t);
      const to = e.key === 'ArrowRight' ? (i + 1) % tabs.length : e.key === 'ArrowLeft' ? (i - 1 + tabs.length) % tabs.length : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : -1;
      if (to < 0) return;
      e.preventDefault();
      selectTab(tabs[to].id.slice(4), true);
    });
  }
  selectTab(state.tab === 'history' ? 'history' : 'pending');

  // -------------------------------------------------------------------------------------------------- messages

  // ------------------------------------------------------------------------------------- double-prompt notice

  /**
   * VS Code asked before a call that now has a card here too: explain once how to let this panel be the only gate
   * (the host decides when, approvalPanel/doublePrompt.ts, and remembers "Got it").
   * @param {import('../src/shared/webviewProtocol').DoublePromptNotice | undefined} n
   */
  function renderNotice(n) {
    const box = $('notice');
    if (!n || typeof n.app !== 'string' || !Array.isArray(n.servers)) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    if (!box.hidden) return; // already shown: keep the person's place (and focus) in it
    const names = n.servers.map((s) => '“Always Allow Tools from ' + s + '”').join(' or ');
    const gotIt = el('button', { className: 'secondary', text: 'Got it', attrs: { type: 'button', id: 'notice-dismiss' } });
    gotIt.addEventListener('click', () => {
      box.hidden = true;
      box.replaceChildren();
      post({ type: 'dismissNotice' });
    });
    box.replaceChildren(
      el('h2', { className: 'batch-title', text: n.app + ' asked you first', attrs: { id: 'notice-title' } }),
      el('p', { className: 'why', text: 'You confirmed this call in ' + n.app + '’s own dialog, and Guarded Shell asks again here. ' +
        'To make this panel the only gate, choose ' + names + ' from the menu beside Allow in ' + n.app + '’s confirmation ' +
        '(older versions: “Always Allow” for each tool). Guarded Shell still asks here for everything its mode asks ' +
        '(in mode auto: nothing); read-only tools such as shell_readonly and readFile never needed either. ' +
        'To undo it: the command “Chat: Manage Tool Approval”.' }),
      el('div', { className: 'buttons' }, gotIt),
    );
    box.hidden = false;
    announce(n.app + ' asked you first: see the note above the cards.');
  }

  /** @type {any} */
  const history = /** @type {any} */ (window).GuardedShellHistory;
  if (history) history.mount($('panel-history'), { post, announce, el, ltr, vscode });

  /** @param {HostToWebview | null} m */
  function onHostMessage(m) {
    if (!m || typeof m !== 'object') return;
    switch (m.type) {
      case 'show':
        if (Array.isArray(m.cards)) sync(m.cards);
        renderNotice(m.notice);
        break;
      case 'withdraw':
        if (typeof m.id === 'string' && shown.has(m.id)) {
          const c = cardData.get(m.id);
          removeCard(m.id);
          armApproveAll();
          announce('Withdrawn: ' + summary(c) + (m.why ? ' (' + m.why + ')' : '') + '.');
        }
        break;
      case 'history':
        if (history) history.update(m);
        break;
      case 'focusTab':
        selectTab(m.tab === 'history' ? 'history' : 'pending', true);
        break;
      case 'background':
        if (Array.isArray(m.runs)) renderBackground(m.runs);
        break;
      case 'ruleRejected': {
        // The host kept the card (it is shown again by the 'show' before this): say why, where the rule is typed.
        const li = shown.get(m.id);
        const error = li && li.querySelector('.rule-error');
        if (error) error.textContent = m.why;
        const input = /** @type {HTMLInputElement|null} */ (li ? li.querySelector('.rule-input') : null);
        if (input) input.focus();
        announce('The rule was not saved: ' + m.why);
        break;
      }
    }
  }
  // On the web page the host's messages come only from the shim's own stream, never from window.postMessage.
  if (webHost) webHost.listen(onHostMessage);
  else window.addEventListener('message', (event) => onHostMessage(event.data));

  updateCount();
  post({ type: 'ready' });
})();
