import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalRequest } from '../../../core/approval';
import type { AuditRecord } from '../../../core/audit';
import { batchKindOf, parseWebviewMessage, type BackgroundView, type DoublePromptNotice, type HostToWebview, type RememberedKind, type WebviewToHost } from '../../../shared/webviewProtocol';
import type { ApprovalPresenter } from '../types';
import { HistoryStore, RememberedList } from '../../../shared/approvalPanel/history';
import { panelHtml } from '../../../shared/approvalPanel/html';
import type { StopBackgroundResult, UndoResult } from '../../../shared/protocol';
import { ProposedContentProvider } from './proposedContent';
import { optionsFor, toCard } from '../../../shared/approvalPanel/viewModel';
import { alwaysRuleProblem } from '../../../shared/approvalPanel/alwaysRule';
import { doublePromptNotice } from '../../../shared/approvalPanel/doublePrompt';

const SECTION = 'guardedShell';
const AUTO_APPROVE = 'autoApprove';
const ALLOWED_DOMAINS = 'domains.allowed';

export interface WebviewPresenterOptions {
  /** The extension's folder: the page's scripts and styles are served from its `media/` only. */
  readonly extensionUri: vscode.Uri;
  readonly log?: vscode.LogOutputChannel;
  /** Forgets a session or 15-minute approval in a folder's server; resolves true when it was remembered there. */
  readonly revoke?: (folder: string, key: string) => Promise<boolean>;
  /** Every folder's name whose server may remember a key (an "always" revocation clears it in each). */
  readonly folders?: () => readonly string[];
  /** Asks a folder's server to undo one earlier change (its request id) from the kept backup. */
  readonly undo?: (folder: string, requestId: string) => Promise<UndoResult>;
  /** The one-time double-prompt explanation: whether the person dismissed it (extension globalState), and how to remember that. */
  readonly notice?: { readonly dismissed: () => boolean; readonly dismiss: () => Thenable<void> };
  /** Stops a background command of a folder (by the folder's key): the panel's Stop. */
  readonly stopBackground?: (folderKey: string, id: string) => Promise<StopBackgroundResult>;
}

interface Pending {
  readonly request: ApprovalRequest;
  readonly folder: string;
  readonly since: number;
  readonly resolve: (d: ApprovalDecision) => void;
  readonly cancel: vscode.Disposable;
}

/**
 * Asks in ONE webview panel: every pending request is a card, several at once (the queue hands each over as it
 * arrives). Closing the panel denies what is pending; a request the server
 * withdraws disappears. The panel's second tab is the history (audit events + decisions) with the remembered
 * approvals and their Revoke buttons.
 */
export class WebviewApprovalPresenter implements ApprovalPresenter, vscode.Disposable {
  /** Tells the queue to present every request at once instead of one after another. */
  readonly history = new HistoryStore(undefined, true);
  readonly remembered = new RememberedList();
  private panel: vscode.WebviewPanel | undefined;
  private pageReady = false;
  private readonly pending = new Map<string, Pending>();
  private readonly proposed = new ProposedContentProvider();
  private readonly disposables: vscode.Disposable[] = [this.proposed];
  private historyTimer: NodeJS.Timeout | undefined;
  /** The double-prompt note last sent to the page (for the extension's own tests). */
  notice: DoublePromptNotice | undefined;
  /** Every folder's background commands running now, as the page lists them. */
  private background: readonly BackgroundView[] = [];

  constructor(private readonly options: WebviewPresenterOptions) {
    this.loadAlways();
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.${AUTO_APPROVE}`)) {
          this.loadAlways();
          this.scheduleHistory();
        }
      }),
    );
  }

  present(request: ApprovalRequest, folderName: string, token: vscode.CancellationToken): Promise<ApprovalDecision> {
    if (token.isCancellationRequested) return Promise.resolve({ approved: false, by: 'withdrawn' });
    let id = request.id;
    for (let n = 2; this.pending.has(id); n++) id = `${request.id}#${n}`; // ids are the servers' UUIDs; never merge two
    return new Promise<ApprovalDecision>((resolve) => {
      const cancel = token.onCancellationRequested(() => {
        this.settle(id, { approved: false, by: 'withdrawn', reason: 'The request was withdrawn before anyone decided.' });
        this.post({ type: 'withdraw', id, why: 'the server withdrew it (the call was cancelled or nobody answered in time)' });
      });
      this.pending.set(id, { request, folder: folderName, since: Date.now(), resolve, cancel });
      this.showPanel();
      this.postCards();
      // The person just clicked Undo in the history: bring its card (the diff of what Undo restores) to the front.
      if (request.change?.kind === 'undo') this.post({ type: 'focusTab', tab: 'pending' });
    });
  }

  /** An audit record from a folder's server (already redacted), for the history tab. */
  addAudit(record: AuditRecord, folder: string): void {
    this.history.addAudit(record, folder);
    this.scheduleHistory();
    // Apply found files changed since the card was made: nothing was written. Said where the person is looking.
    if (record.event === 'shell_execution_audit' && record.effect_outcome === 'conflict') {
      const files = Array.isArray(record.effect_conflicts) ? record.effect_conflicts.map(String) : [];
      void vscode.window.showWarningMessage(`Guarded Shell (${folder}): the command's changes were not applied: ${files.map((f) => `"${f}"`).join(', ') || 'files'} changed in the folder after it ran, and are never overwritten. Nothing was written.`);
    }
  }

  /** A folder's server started again: it forgot its session and 15-minute approvals. */
  serverRestarted(folder: string): void {
    this.remembered.forgetFolder(folder);
    this.scheduleHistory();
  }

  /** The folders' background commands running now (the servers say when this changes): listed with Stop. */
  setBackground(runs: readonly BackgroundView[]): void {
    this.background = runs;
    this.post({ type: 'background', runs });
  }

  /** Opens (or brings forward) the panel on one of its tabs. */
  reveal(tab: 'pending' | 'history' = 'pending'): void {
    this.showPanel(false);
    this.post({ type: 'focusTab', tab });
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  // ------------------------------------------------------------------------------------------------------ panel

  private showPanel(preserveFocus = true): void {
    if (this.panel) {
      // Never steal focus for a new request: keys typed in the editor must not land on a card.
      if (!this.panel.visible) this.panel.reveal(undefined, preserveFocus);
      return;
    }
    const media = vscode.Uri.joinPath(this.options.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      'guardedShell.approvals',
      'Guarded Shell: Approvals',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus },
      { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [media], enableCommandUris: false, enableFindWidget: true },
    );
    this.panel = panel;
    this.pageReady = false;
    panel.iconPath = vscode.Uri.joinPath(media, 'icon.png');
    const asUri = (file: string) => panel.webview.asWebviewUri(vscode.Uri.joinPath(media, file)).toString();
    panel.webview.html = panelHtml({
      cspSource: panel.webview.cspSource,
      nonce: randomBytes(18).toString('base64'),
      approvalScript: asUri('approval.js'),
      historyScript: asUri('history.js'),
      approvalStyle: asUri('approval.css'),
      historyStyle: asUri('history.css'),
    });
    panel.webview.onDidReceiveMessage((m: unknown) => void this.onMessage(m));
    panel.onDidDispose(() => {
      if (this.panel !== panel) return;
      this.panel = undefined;
      this.pageReady = false;
      // Closing the panel is an answer: nobody is looking, so nothing pending may run.
      for (const id of [...this.pending.keys()]) this.settle(id, { approved: false, by: 'user', reason: 'The approval panel was closed.' });
    });
  }

  private post(m: HostToWebview): void {
    if (this.panel && this.pageReady) void this.panel.webview.postMessage(m);
  }

  private postCards(): void {
    const cards = [...this.pending.entries()].map(([id, p]) => ({ ...toCard(p.request, p.folder, p.since), id }));
    if (this.panel) this.panel.title = cards.length ? `Guarded Shell: ${cards.length} pending` : 'Guarded Shell: Approvals';
    const notice = this.options.notice && doublePromptNotice(this.pending.values(), vscode.env.appName, this.options.notice.dismissed());
    this.notice = notice;
    this.post({ type: 'show', cards, ...(notice && { notice }) });
  }

  private scheduleHistory(): void {
    if (this.historyTimer) return;
    // Audit events come in bursts (one per request and per decision): one update per burst is enough.
    this.historyTimer = setTimeout(() => {
      this.historyTimer = undefined;
      this.postHistory();
    }, 150);
  }

  private postHistory(): void {
    this.post({ type: 'history', entries: this.history.list(), remembered: this.remembered.list() });
  }

  // --------------------------------------------------------------------------------------------------- messages

  private async onMessage(raw: unknown): Promise<void> {
    const m = parseWebviewMessage(raw);
    if (!m) {
      this.options.log?.warn('approval panel: ignored a malformed message from the page');
      return;
    }
    try {
      await this.handle(m);
    } catch (e) {
      this.options.log?.error(`approval panel: ${(e as Error).message}`);
      void vscode.window.showErrorMessage(`Guarded Shell: ${(e as Error).message}`);
    }
  }

  private async handle(m: WebviewToHost): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.pageReady = true;
        this.postCards();
        this.postHistory();
        this.post({ type: 'background', runs: this.background });
        return;
      case 'decide': {
        const p = this.pending.get(m.id);
        if (!p) return; // already answered, withdrawn, or never shown: nothing to decide
        if (!m.approved) {
          this.settle(m.id, { approved: false, by: 'user', option: 'once', ...(m.reason && { reason: m.reason }) });
          return;
        }
        // The page offers only what the host allows for this request; anything else is refused, not downgraded.
        if (!optionsFor(p.request).includes(m.option)) {
          this.options.log?.warn(`approval panel: option "${m.option}" is not offered for ${p.request.tool}; the card stays`);
          return;
        }
        // "Always allow" saves the rule the person chose (as offered or edited), only when it covers this request.
        // A host card's "always" adds the host to the domain list instead (no command rule).
        const rule = m.option === 'always' && !p.request.network ? (m.rule ?? p.request.key) : undefined;
        const problem = rule !== undefined ? alwaysRuleProblem(p.request, rule) : undefined;
        if (problem) {
          this.postCards(); // the card stays (the page took it away when the button was pressed)
          this.post({ type: 'ruleRejected', id: m.id, why: problem });
          return;
        }
        this.settle(m.id, { approved: true, by: 'user', option: m.option, ...(rule !== undefined && { rule }) });
        if (m.option === 'session' || m.option === 'timed') this.remembered.grant(p.folder, p.request.key, m.option);
        if (m.option === 'always') await (p.request.network ? this.addAllowedDomain(p.request.network.host) : this.addAlways(rule!));
        this.scheduleHistory();
        return;
      }
      case 'approveAll':
        // Only cards of the kind the person confirmed: a command id in a "file changes" batch stays pending.
        for (const id of m.ids) {
          const p = this.pending.get(id);
          if (p && batchKindOf(p.request) === m.kind) this.settle(id, { approved: true, by: 'user', option: 'all' });
        }
        return;
      case 'openDiff':
        await this.openDiff(m.id);
        return;
      case 'revoke':
        await this.revoke(m.folder, m.key, m.kind);
        return;
      case 'undo':
        await this.undo(m.id);
        return;
      case 'dismissNotice':
        await this.options.notice?.dismiss();
        this.postCards();
        return;
      case 'stopBackground': {
        // Only a command this panel lists: the page cannot name another folder's or an invented one.
        if (!this.background.some((r) => r.folderKey === m.folderKey && r.id === m.id)) return;
        if (!this.options.stopBackground) throw new Error('stopping needs the server connection, which is not available');
        const r = await this.options.stopBackground(m.folderKey, m.id);
        this.options.log?.info(`stop of background command ${m.id}: ${r.message}`);
        if (!r.stopped) void vscode.window.showWarningMessage(`Guarded Shell: ${r.message}`);
        return;
      }
    }
  }

  private settle(id: string, decision: ApprovalDecision): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.cancel.dispose();
    this.history.noteDecision(p.request, p.folder, decision);
    p.resolve(decision);
    this.postCards();
    this.scheduleHistory();
  }

  // ------------------------------------------------------------------------------------- always / revoke / diff

  private autoApproveList(): string[] {
    const v = vscode.workspace.getConfiguration(SECTION).inspect<string[]>(AUTO_APPROVE)?.globalValue;
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  }

  private loadAlways(): void {
    this.remembered.setAlways(this.autoApproveList());
  }

  /** "Always allow": the rule goes to the USER's settings (a workspace cannot loosen the policy). */
  private async addAlways(key: string): Promise<void> {
    const list = this.autoApproveList();
    if (list.includes(key)) return;
    await vscode.workspace.getConfiguration(SECTION).update(AUTO_APPROVE, [...list, key], vscode.ConfigurationTarget.Global);
    this.options.log?.info(`"${key}" added to the user setting guardedShell.autoApprove`);
  }

  /** "Always allow this host" (a running command's card, network: domains): the USER's allowed domains. */
  private async addAllowedDomain(host: string): Promise<void> {
    const v = vscode.workspace.getConfiguration(SECTION).inspect<string[]>(ALLOWED_DOMAINS)?.globalValue;
    const list = Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
    if (list.includes(host)) return;
    await vscode.workspace.getConfiguration(SECTION).update(ALLOWED_DOMAINS, [...list, host], vscode.ConfigurationTarget.Global);
    this.options.log?.info(`"${host}" added to the user setting guardedShell.domains.allowed`);
  }

  private async revoke(folder: string, key: string, kind: RememberedKind): Promise<void> {
    if (kind === 'always') {
      const list = this.autoApproveList();
      if (list.includes(key)) {
        await vscode.workspace.getConfiguration(SECTION).update(AUTO_APPROVE, list.filter((k) => k !== key), vscode.ConfigurationTarget.Global);
      }
      // The servers also remembered it for their session (so the next call did not race the settings push).
      const folders = this.options.folders?.() ?? [];
      await Promise.all(folders.map((f) => this.options.revoke?.(f, key).catch(() => false)));
    } else if (this.options.revoke) {
      await this.options.revoke(folder, key);
    } else {
      throw new Error('revoking needs the server connection, which is not available');
    }
    this.remembered.revoke(folder, key, kind);
    this.options.log?.info(`approval revoked (${kind}${folder ? `, ${folder}` : ''}): ${key}`);
    this.postHistory();
  }

  /** Undo from the history: only an entry the history offers it for; the server's pipeline decides the rest. */
  private async undo(requestId: string): Promise<void> {
    const entry = this.history.list().find((e) => e.requestId === requestId);
    if (!entry?.canUndo) return;
    if (!this.options.undo) throw new Error('undoing needs the server connection, which is not available');
    const r = await this.options.undo(entry.folder, requestId);
    this.options.log?.info(`undo of ${requestId} (${entry.folder}): ${r.outcome}: ${r.message}`);
    if (r.outcome === 'ok') void vscode.window.showInformationMessage(`Guarded Shell: ${r.message}`);
    else void vscode.window.showWarningMessage(`Guarded Shell: Undo ${r.outcome === 'denied' ? 'was not done' : 'failed'}: ${r.message}`);
  }

  private async openDiff(id: string): Promise<void> {
    const p = this.pending.get(id);
    const fx = p?.request.effect;
    const change = p?.request.change
      ? { folder: p.folder, files: p.request.change.files, proposed: p.request.change.proposed, original: p.request.change.original, kind: p.request.change.kind }
      : fx && p
        ? { folder: p.folder, files: fx.files.map((f) => f.path), proposed: fx.proposed, original: fx.original }
        : this.history.change(id);
    if (!change || change.proposed === undefined) throw new Error('this change has no content to show in a diff editor');
    const kind = 'kind' in change ? change.kind : undefined;
    // Copy and move write the last path (the destination); every other change writes the first.
    const file = (kind === 'copy' || kind === 'move' ? change.files[change.files.length - 1] : change.files[0]) ?? 'file';
    const right = this.proposed.put(id, 'proposed', file, change.proposed);
    const left = this.currentSide(id, change.folder, file, change.original);
    // Another column than the panel's, so the card (and its buttons) stays in view beside the diff.
    const viewColumn = this.panel?.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
    await vscode.commands.executeCommand('vscode.diff', left, right, `${file} ↔ proposed (Guarded Shell)`, { preview: true, viewColumn });
  }

  /**
   * The left side: the file as it is on disk when that is exactly what the server read (so the editor shows what
   * the card shows); otherwise the content the server read, as a read-only document.
   */
  private currentSide(id: string, folderName: string, file: string, original: string | undefined): vscode.Uri {
    const folder = vscode.workspace.workspaceFolders?.find((f) => f.name === folderName);
    if (folder && folder.uri.scheme === 'file') {
      const abs = path.join(folder.uri.fsPath, file);
      try {
        if (original !== undefined && fs.readFileSync(abs, 'utf8') === original) return vscode.Uri.file(abs);
      } catch {
        /* missing or unreadable: show what the server read */
      }
    }
    return this.proposed.put(id, 'original', file, original ?? '');
  }

  dispose(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, { approved: false, by: 'unavailable', reason: 'VS Code is closing.' });
    if (this.historyTimer) clearTimeout(this.historyTimer);
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
