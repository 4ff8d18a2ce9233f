import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/core/approval';
import { AuditLog, memorySink } from '../../src/core/audit';
import { unifiedDiff } from '../../src/core/files/diffText';
import { HistoryStore, RememberedList, TIMED_MS } from '../../src/shared/approvalPanel/history';
import { contentSecurityPolicy, panelHtml } from '../../src/shared/approvalPanel/html';
import { MAX_DIFF_LINES, parseUnifiedDiff, toCard } from '../../src/shared/approvalPanel/viewModel';
import { batchKindOf, parseWebviewMessage } from '../../src/shared/webviewProtocol';

/** The panel's pure logic, without VS Code and without a browser. */

const cmd = (id: string, stages: string[][]): ApprovalRequest => ({
  id, tool: 'shell_execute', rule: 'mode.confirm', reason: 'asks', key: stages.map((s) => s.join(' ')).join(' | '),
  command: { stages, cwd: '.', isolation: 'none' },
});

describe('cards from approval requests', () => {
  it('keeps every argv element exactly as sent, and offers all four options for a command', () => {
    const argv = ['printf', '%s\n', '$(rm -rf ~)', 'a b', '\u202E'];
    const c = toCard({ ...cmd('1', [argv, ['wc', '-l']]), command: { stages: [argv, ['wc', '-l']], cwd: 'sub', isolation: 'bwrap', stdinPreview: Array.from({ length: 15 }, (_, i) => `l${i}`).join('\n') } }, 'ws', 5);
    expect(c.command!.stages).toEqual([argv, ['wc', '-l']]);
    expect(c.command!.stdinLines).toHaveLength(10);
    expect(c.command!.stdinMore).toBe(true);
    expect(c.options).toEqual(['once', 'session', 'timed', 'always']);
    expect(c).toMatchObject({ id: '1', folder: 'ws', since: 5, rule: 'mode.confirm' });
  });

  it('a background start says how long it may run and whether its input stays open; an input names its command', () => {
    const start = toCard({ ...cmd('1', [['npm', 'run', 'dev']]), command: { stages: [['npm', 'run', 'dev']], cwd: '.', isolation: 'bwrap', background: { lifetimeSeconds: 3600, openInput: true } } }, 'ws', 5);
    expect(start.command!.background).toEqual({ lifetimeSeconds: 3600, openInput: true });
    const input = toCard({ ...cmd('2', [['cat']]), command: { stages: [['cat']], cwd: '.', isolation: 'bwrap', stdinPreview: 'hello', background: { inputTo: 'b1' } } }, 'ws', 5);
    expect(input.command).toMatchObject({ background: { inputTo: 'b1' }, stdinLines: ['hello'] });
  });

  it('offers only "once" for a file change (the server remembers nothing for changes)', () => {
    const r: ApprovalRequest = { id: 'e', tool: 'writeFile', rule: 'r', reason: '', key: 'writeFile a', change: { kind: 'write', files: ['a'], diff: unifiedDiff('a', 'x\n', 'y\n'), proposed: 'y\n', original: 'x\n' } };
    const c = toCard(r, 'ws', 0);
    expect(c.options).toEqual(['once']);
    expect(c.change).toMatchObject({ added: 1, removed: 1, canOpenDiff: true, files: ['a'] });
  });

  it('a running command\'s host card (network: domains) names the host and offers all four options; a fetch\'s only once', () => {
    const network = { host: 'registry.example.org', port: 443, method: 'CONNECT', command: 'npm install' };
    const c = toCard({ id: 'h', tool: 'shell_execute', rule: 'network.domain.unlisted', reason: 'not listed', key: 'registry.example.org', network }, 'ws', 0);
    expect(c.network).toEqual(network);
    expect(c.options).toEqual(['once', 'session', 'timed', 'always']);
    const f = toCard({ id: 'f', tool: 'fetch', rule: 'network.domain.unlisted', reason: '', key: 'fetch u', fetch: { url: 'https://x.test/' }, network: { host: 'x.test', port: 443, method: 'GET' } }, 'ws', 0);
    expect(f.options).toEqual(['once']);
  });

  it('an effect card: the command, its output, its files and diff, Apply/Discard only (never remembered), not a command batch', () => {
    const r: ApprovalRequest = {
      id: 'c-effect', tool: 'shell_execute', rule: 'effect.preview', reason: 'preview', key: 'sh -c x',
      effect: {
        requestId: 'c', stages: [['sh', '-c', 'x']], cwd: '.', outcome: 'failed', exitCode: 2, stdout: 'out', stderr: 'err',
        files: [{ path: 'a.txt', change: 'modified' }, { path: '.git/hooks', change: 'not applied', detail: 'why' }], more: 3,
        diff: unifiedDiff('a.txt', 'x\n', 'y\n'), limits: 'cannot see', proposed: 'y\n', original: 'x\n',
      },
    };
    const c = toCard(r, 'ws', 0);
    expect(c.options).toEqual(['once']);
    expect(c.command).toBeUndefined();
    expect(c.effect).toMatchObject({ stages: [['sh', '-c', 'x']], exitCode: 2, stdout: 'out', stderr: 'err', more: 3, added: 1, removed: 1, limits: 'cannot see', canOpenDiff: false });
    expect(c.effect!.files[1]).toEqual({ path: '.git/hooks', change: 'not applied', detail: 'why' });
    expect(batchKindOf(r)).toBeUndefined();
  });

  it('cuts a huge diff for the page but counts every added line', () => {
    const after = Array.from({ length: MAX_DIFF_LINES + 50 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const r: ApprovalRequest = { id: 'e', tool: 'writeFile', rule: 'r', reason: '', key: 'k', change: { kind: 'write', files: ['big'], diff: unifiedDiff('big', '', after, { created: true }), proposed: after } };
    const c = toCard(r, 'ws', 0).change!;
    expect(c.diff).toHaveLength(MAX_DIFF_LINES);
    expect(c.added).toBe(MAX_DIFF_LINES + 50);
    expect(c.diffOmitted).toBe(3 + MAX_DIFF_LINES + 50 - MAX_DIFF_LINES); // 2 headers + 1 hunk line + content
  });
});

describe('unified diff parsing', () => {
  it('numbers old and new lines across hunks', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n';
    const after = 'a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n';
    const lines = parseUnifiedDiff(unifiedDiff('f', before, after));
    expect(lines.filter((l) => l.kind === 'del')).toEqual([{ kind: 'del', oldNo: 2, text: 'b' }]);
    expect(lines.filter((l) => l.kind === 'add')).toEqual([{ kind: 'add', newNo: 2, text: 'B' }, { kind: 'add', newNo: 11, text: 'k' }]);
    expect(lines.find((l) => l.kind === 'ctx' && l.text === 'j')).toEqual({ kind: 'ctx', oldNo: 10, newNo: 10, text: 'j' });
  });

  it('treats a removed line that reads "-- x" as a removed line, not as a file header', () => {
    const lines = parseUnifiedDiff(unifiedDiff('sql', '-- comment\n++ y\n', 'kept\n'));
    expect(lines.filter((l) => l.kind === 'del').map((l) => l.text)).toEqual(['-- comment', '++ y']);
    expect(lines.filter((l) => l.kind === 'file')).toHaveLength(2);
  });

  it('shows "no newline at end of file" as a note and numbers a new file from 1', () => {
    const lines = parseUnifiedDiff(unifiedDiff('n', '', 'x\ny', { created: true }));
    expect(lines.slice(2)).toEqual([
      { kind: 'hunk', text: '@@ -0,0 +1,2 @@' },
      { kind: 'add', newNo: 1, text: 'x' },
      { kind: 'add', newNo: 2, text: 'y' },
      { kind: 'note', text: 'No newline at end of file' },
    ]);
  });

  it('stops numbering when the counts do not match (a malformed diff is shown, never guessed)', () => {
    const lines = parseUnifiedDiff('@@ -1,1 +1,1 @@\n-a\nstray\n+b\n');
    expect(lines).toEqual([{ kind: 'hunk', text: '@@ -1,1 +1,1 @@' }, { kind: 'del', oldNo: 1, text: 'a' }, { kind: 'info', text: 'stray' }, { kind: 'info', text: '+b' }]);
  });
});

describe('messages from the page', () => {
  it('accepts well-formed messages and trims the reason', () => {
    expect(parseWebviewMessage({ type: 'decide', id: 'x', approved: false, option: 'once', reason: '  no  ' })).toEqual({ type: 'decide', id: 'x', approved: false, option: 'once', reason: 'no' });
    expect(parseWebviewMessage({ type: 'approveAll', kind: 'commands', ids: ['a', 'b'] })).toEqual({ type: 'approveAll', kind: 'commands', ids: ['a', 'b'] });
    expect(parseWebviewMessage({ type: 'approveAll', kind: 'changes', ids: ['c'] })).toEqual({ type: 'approveAll', kind: 'changes', ids: ['c'] });
    expect(parseWebviewMessage({ type: 'revoke', folder: 'ws', key: 'ls', kind: 'timed' })).toEqual({ type: 'revoke', folder: 'ws', key: 'ls', kind: 'timed' });
  });

  it('drops a half-formed approval (approved as a string, unknown option, missing id) instead of guessing', () => {
    expect(parseWebviewMessage({ type: 'decide', id: 'x', approved: 'true', option: 'once' })).toBeUndefined();
    expect(parseWebviewMessage({ type: 'decide', id: 'x', approved: true, option: 'forever' })).toBeUndefined();
    expect(parseWebviewMessage({ type: 'decide', approved: true, option: 'once' })).toBeUndefined();
    expect(parseWebviewMessage({ type: 'approveAll' })).toBeUndefined();
    expect(parseWebviewMessage({ type: 'approveAll', kind: 'commands', ids: [1] })).toBeUndefined();
    // A batch names its kind: one without (the old "approve everything" message) or with another is dropped.
    expect(parseWebviewMessage({ type: 'approveAll', ids: ['a'] })).toBeUndefined();
    expect(parseWebviewMessage({ type: 'approveAll', kind: 'all', ids: ['a'] })).toBeUndefined();
    expect(parseWebviewMessage({ type: 'approveAll', kind: 'fetch', ids: ['a'] })).toBeUndefined();
    expect(parseWebviewMessage('decide')).toBeUndefined();
    expect(parseWebviewMessage({ type: 'eval', code: '1' })).toBeUndefined();
  });

  it('a Stop names a background command by folder key and an id of its form, nothing else', () => {
    expect(parseWebviewMessage({ type: 'stopBackground', folderKey: 'file:///w', id: 'b12' })).toEqual({ type: 'stopBackground', folderKey: 'file:///w', id: 'b12' });
    for (const bad of [{ id: 'b1' }, { folderKey: 'k', id: 'o1' }, { folderKey: 'k', id: 'b1; rm' }, { folderKey: '', id: 'b1' }, { folderKey: 'k', id: 1 }]) {
      expect(parseWebviewMessage({ type: 'stopBackground', ...bad })).toBeUndefined();
    }
  });
});

describe('the page shell', () => {
  it('allows only its own styles and the scripts carrying this load\'s nonce', () => {
    expect(contentSecurityPolicy('https://x.vscode-cdn.net', 'N0nce')).toBe("default-src 'none'; style-src https://x.vscode-cdn.net; script-src 'nonce-N0nce'; img-src https://x.vscode-cdn.net data:");
    const html = panelHtml({ cspSource: 'https://c', nonce: 'abc', approvalScript: 'https://c/a.js', historyScript: 'https://c/h.js', approvalStyle: 'https://c/a.css', historyStyle: 'https://c/h.css' });
    expect(html.match(/<script /g)).toHaveLength(2);
    expect(html.match(/<script nonce="abc" src="https:\/\/c\/[ah]\.js"><\/script>/g)).toHaveLength(2);
    expect(html).not.toMatch(/style="/);
  });

  it('escapes a URI that tries to break out of its attribute', () => {
    const html = panelHtml({ cspSource: 'c', nonce: 'n', approvalScript: '"><script>x</script>', historyScript: 'h', approvalStyle: 'a', historyStyle: 'b' });
    expect(html).not.toContain('"><script>x');
    expect(html).toContain('&quot;&gt;&lt;script&gt;x');
  });
});

describe('history', () => {
  it('joins an approval and its result into one entry, with exit code, duration and who decided', () => {
    const sink = memorySink();
    const audit = new AuditLog([sink]);
    audit.record({ event: 'approval_audit', tool: 'shell_execute', request_id: 'r1', result_type: 'approved', decided_by: 'user', option: 'session', command: 'ls -la' });
    audit.record({ event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'r1', result_type: 'failed', argv: ['ls', '-la', 'a b'], return_code: 2, duration: 0.25 });
    audit.record({ event: 'server', result_type: 'success', action: 'settings' });
    const h = new HistoryStore();
    for (const r of sink.records) h.addAudit(r, 'ws');
    expect(h.list()).toEqual([
      { requestId: 'r1', folder: 'ws', time: sink.records[1]!.timestamp, tool: 'shell_execute', summary: '"ls" "-la" "a b"', outcome: 'failed', exitCode: 2, durationMs: 250, decidedBy: 'user', option: 'session', hasDiff: false },
    ]);
  });

  it('records a denial from the panel with its reason, and keeps the change for "Open diff"', () => {
    const h = new HistoryStore();
    const r: ApprovalRequest = { id: 'e1', tool: 'editFile', rule: 'r', reason: '', key: 'k', change: { kind: 'edit', files: ['a.txt'], proposed: 'new', original: 'old' } };
    h.noteDecision(r, 'ws', { approved: false, by: 'user', reason: 'not this' }, new Date(0));
    h.addAudit({ timestamp: new Date(1).toISOString(), event: 'file_audit', tool: 'editFile', request_id: 'e1', result_type: 'approval_denied', files: ['a.txt'], rejection_reason: 'not this' }, 'ws');
    expect(h.list()).toEqual([{ requestId: 'e1', folder: 'ws', time: new Date(1).toISOString(), tool: 'editFile', summary: 'a.txt', outcome: 'denied', decidedBy: 'user', reason: 'not this', hasDiff: true }]);
    expect(h.change('e1')).toEqual({ folder: 'ws', files: ['a.txt'], proposed: 'new', original: 'old' });
  });

  it('offers Undo for a change whose previous content was kept, until an Undo of it went through (VS Code panel only)', () => {
    const at = (n: number) => new Date(n).toISOString();
    const feed = (h: HistoryStore) => {
      h.addAudit({ timestamp: at(1), event: 'file_audit', tool: 'writeFile', request_id: 'w1', result_type: 'success', files: ['a.txt'], undoable: true }, 'ws');
      h.addAudit({ timestamp: at(2), event: 'file_audit', tool: 'editFile', request_id: 'e1', result_type: 'success', files: ['b.txt'] }, 'ws');
    };
    const panel = new HistoryStore(undefined, true);
    feed(panel);
    expect(panel.list().map((e) => [e.requestId, e.canUndo === true])).toEqual([['e1', false], ['w1', true]]);
    // A denied Undo leaves it undoable; one that succeeded does not (the Undo itself can be undone in turn).
    panel.addAudit({ timestamp: at(3), event: 'file_audit', tool: 'undo', request_id: 'u1', result_type: 'approval_denied', files: ['a.txt'], undoes: 'w1' }, 'ws');
    expect(panel.list().find((e) => e.requestId === 'w1')!.canUndo).toBe(true);
    panel.addAudit({ timestamp: at(4), event: 'file_audit', tool: 'undo', request_id: 'u2', result_type: 'success', files: ['a.txt'], undoes: 'w1', undoable: true }, 'ws');
    expect(panel.list().map((e) => [e.requestId, e.canUndo === true])).toEqual([['u2', true], ['u1', false], ['e1', false], ['w1', false]]);
    // The standalone page's history has no Undo (its host cannot undo).
    const page = new HistoryStore();
    feed(page);
    expect(page.list().some((e) => e.canUndo)).toBe(false);
    // And the page may only ask for an Undo by a well-formed id.
    expect(parseWebviewMessage({ type: 'undo', id: 'w1' })).toEqual({ type: 'undo', id: 'w1' });
    expect(parseWebviewMessage({ type: 'undo', id: '' })).toBeUndefined();
    expect(parseWebviewMessage({ type: 'undo', id: 7 })).toBeUndefined();
  });

  it('lists the hosts a command tried (from its audit event), and names a host card by host and command', () => {
    const sink = memorySink();
    const audit = new AuditLog([sink]);
    audit.record({ event: 'approval_audit', tool: 'shell_execute', request_id: 'h1', result_type: 'approved', decided_by: 'user', option: 'always', host: 'other.test', port: 443, method: 'CONNECT', command: 'npm install' });
    audit.record({
      event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'c1', result_type: 'success', argv: ['npm', 'install'], return_code: 0, duration: 1,
      network_hosts: [
        { host: 'registry.npmjs.org', port: 443, allowed: true, methods: ['CONNECT'], requests: 2, bytes_sent: 2000, bytes_received: 3_000_000, rule: 'network.domain.listed' },
        { host: 'evil.test', port: 443, allowed: false, methods: ['CONNECT'], requests: 1, bytes_sent: 0, bytes_received: 0, rule: 'network.domain.unlisted', reason: 'not listed' },
      ],
    });
    const h = new HistoryStore();
    for (const r of sink.records) h.addAudit(r, 'ws');
    const [command, card] = h.list();
    expect(command!.hosts).toEqual([
      { host: 'registry.npmjs.org', port: 443, allowed: true, methods: ['CONNECT'], requests: 2, bytesSent: 2000, bytesReceived: 3_000_000 },
      { host: 'evil.test', port: 443, allowed: false, methods: ['CONNECT'], requests: 1, bytesSent: 0, bytesReceived: 0 },
    ]);
    expect(card).toMatchObject({ requestId: 'h1', summary: 'other.test:443 ← npm install', decidedBy: 'user', option: 'always' });
  });

  it('shows a background command running from its start until its end under the same request id, and who stopped it', () => {
    const sink = memorySink();
    const audit = new AuditLog([sink]);
    const argv = ['python3', '-m', 'http.server'];
    audit.record({ event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'r1', result_type: 'success', argv, background: 'b1', background_state: 'started' });
    const h = new HistoryStore();
    h.addAudit(sink.records[0]!, 'ws');
    expect(h.list()[0]).toMatchObject({ requestId: 'r1', outcome: 'running', background: 'b1', summary: '"python3" "-m" "http.server"' });
    audit.record({ event: 'shell_execution_audit', tool: 'shell_background', request_id: 'r2', result_type: 'success', argv, background: 'b1', background_state: 'stop' });
    audit.record({ event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'r1', result_type: 'canceled', background: 'b1', background_state: 'ended', return_code: null, duration: 12.5, stopped_by: 'agent' });
    audit.record({ event: 'shell_execution_audit', tool: 'shell_background', request_id: 'r3', result_type: 'success', background: 'list' });
    for (const r of sink.records.slice(1)) h.addAudit(r, 'ws');
    const [list, end, stop] = [h.list().find((e) => e.requestId === 'r3')!, h.list().find((e) => e.requestId === 'r1')!, h.list().find((e) => e.requestId === 'r2')!];
    expect(end).toMatchObject({ outcome: 'canceled', background: 'b1', stoppedBy: 'agent', durationMs: 12500, summary: '"python3" "-m" "http.server"' });
    expect(stop).toMatchObject({ tool: 'shell_background', outcome: 'success', background: 'stop b1' });
    expect(list).toMatchObject({ summary: 'list of background commands', outcome: 'success' });
    expect(list.background).toBeUndefined();
  });

  it('lists a command with its changes beside file changes; its Apply and its Undo stay on the command\'s own entry', () => {
    const at = (n: number) => new Date(n).toISOString();
    const h = new HistoryStore(undefined, true);
    const run = cmd('c1', [['touch', 'new.txt']]);
    h.noteDecision(run, 'ws', { approved: true, by: 'user', option: 'once' }, new Date(0));
    const effect: ApprovalRequest = {
      id: 'c1-effect', tool: 'shell_execute', rule: 'effect.preview', reason: '', key: 'touch new.txt',
      effect: { requestId: 'c1', stages: [['touch', 'new.txt']], cwd: '.', outcome: 'ok', exitCode: 0, stdout: '', stderr: '', files: [{ path: 'new.txt', change: 'created' }], more: 0, diff: 'New empty file new.txt\n', limits: 'l' },
    };
    h.noteDecision(effect, 'ws', { approved: true, by: 'user', option: 'once' }, new Date(1));
    h.addAudit({ timestamp: at(2), event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'c1', result_type: 'success', argv: ['touch', 'new.txt'], return_code: 0, effect_via: 'preview', effect_outcome: 'applied', changed_files: ['new.txt'], changed_count: 1, undoable: true }, 'ws');
    h.addAudit({ timestamp: at(3), event: 'file_audit', tool: 'writeFile', request_id: 'w1', result_type: 'success', files: ['a.txt'], undoable: true }, 'other');
    const [write, command] = h.list();
    expect(write).toMatchObject({ requestId: 'w1', folder: 'other', canUndo: true });
    expect(command).toMatchObject({ requestId: 'c1', folder: 'ws', summary: '"touch" "new.txt"', outcome: 'success', decidedBy: 'user', effect: 'applied', changes: ['new.txt'], changedCount: 1, canUndo: true });
    expect(h.list()).toHaveLength(2);
    // An Undo of the command that went through leaves nothing to undo on it.
    h.addAudit({ timestamp: at(4), event: 'file_audit', tool: 'undo', request_id: 'u1', result_type: 'success', files: ['new.txt'], undoes: 'c1', undoable: true }, 'ws');
    expect(h.list().find((e) => e.requestId === 'c1')!.canUndo).toBe(false);
  });

  it('a command recorded by a checkpoint is listed with its changes and Undo; a discarded preview with neither', () => {
    const h = new HistoryStore(undefined, true);
    h.addAudit({ timestamp: new Date(1).toISOString(), event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'k1', result_type: 'success', argv: ['npm', 'version', 'patch'], effect_via: 'checkpoint', effect_outcome: 'recorded', changed_files: ['package.json', 'package-lock.json'], changed_count: 2, undoable: true }, 'ws');
    h.addAudit({ timestamp: new Date(2).toISOString(), event: 'shell_execution_audit', tool: 'shell_execute', request_id: 'k2', result_type: 'success', argv: ['make'], effect_via: 'preview', effect_outcome: 'discarded', changed_files: ['out.o'], changed_count: 1 }, 'ws');
    const [discarded, recorded] = h.list();
    expect(recorded).toMatchObject({ effect: 'recorded', changes: ['package.json', 'package-lock.json'], canUndo: true });
    expect(discarded).toMatchObject({ effect: 'discarded', changes: ['out.o'] });
    expect(discarded!.canUndo).toBeUndefined();
  });

  it('keeps only the newest entries', () => {
    const h = new HistoryStore(3);
    for (let i = 0; i < 5; i++) h.addAudit({ timestamp: new Date(i).toISOString(), event: 'fetch_audit', tool: 'fetch', request_id: `f${i}`, result_type: 'success', url: `https://e/${i}` }, 'ws');
    expect(h.list().map((e) => e.requestId)).toEqual(['f4', 'f3', 'f2']);
  });
});

describe('remembered approvals', () => {
  it('lists a 15-minute approval until it expires, and forgets session ones when the folder\'s server restarts', () => {
    let now = 1000;
    const list = new RememberedList(() => now);
    list.grant('ws', 'npm test', 'timed');
    list.grant('ws', 'ls', 'session');
    list.grant('ws', 'make', 'always');
    expect(list.list().map((e) => [e.key, e.kind, e.expiresAt, e.folder])).toEqual([
      ['npm test', 'timed', 1000 + TIMED_MS, 'ws'], ['ls', 'session', undefined, 'ws'], ['make', 'always', undefined, ''],
    ]);
    now += TIMED_MS;
    list.forgetFolder('ws');
    expect(list.list().map((e) => e.key)).toEqual(['make']);
    list.setAlways(['npm run build']);
    expect(list.list().map((e) => e.key)).toEqual(['npm run build']);
    expect(list.revoke('', 'npm run build', 'always')).toBe(true);
    expect(list.list()).toEqual([]);
  });
});
