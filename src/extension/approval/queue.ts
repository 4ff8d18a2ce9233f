import * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalRequest } from '../../core/approval';
import type { ApprovalPresenter, PendingApproval } from './types';

interface Entry {
  readonly request: ApprovalRequest;
  readonly folderName: string;
  readonly since: Date;
  readonly token: vscode.CancellationToken;
  readonly resolve: (d: ApprovalDecision) => void;
  showing: boolean;
}

/**
 * Every approval request from every folder's server, shown one at a time (modal dialogs do not stack: a second
 * one would hide the first). Knows what is pending for the status bar and the "show pending approvals" command.
 * A request the server withdraws (timeout, cancelled call) leaves the queue at once.
 */
export class ApprovalQueue implements vscode.Disposable {
  private readonly entries: Entry[] = [];
  private busy = false;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private presenter: ApprovalPresenter) {}

  /** Swaps the way people are asked (the approval webview); requests already on screen finish as they are. */
  setPresenter(presenter: ApprovalPresenter): void {
    this.presenter = presenter;
  }

  /** Shows the presenter's own view (the approval panel); false when it has none (modal dialogs). */
  reveal(): boolean {
    if (!this.presenter.reveal) return false;
    this.presenter.reveal();
    return true;
  }

  get pending(): readonly PendingApproval[] {
    return this.entries.map(({ request, folderName, since, showing }) => ({ request, folderName, since, showing }));
  }

  ask(request: ApprovalRequest, folderName: string, token: vscode.CancellationToken): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      const entry: Entry = { request, folderName, since: new Date(), token, resolve, showing: false };
      this.entries.push(entry);
      token.onCancellationRequested(() => {
        if (!entry.showing) this.settle(entry, { approved: false, by: 'withdrawn' });
      });
      this.changed.fire();
      void this.pump();
    });
  }

  private settle(entry: Entry, decision: ApprovalDecision): void {
    const i = this.entries.indexOf(entry);
    if (i < 0) return;
    this.entries.splice(i, 1);
    entry.resolve(decision);
    this.changed.fire();
  }

  private async pump(): Promise<void> {
    if (this.presenter.concurrent) {
      for (const e of this.entries) if (!e.showing) void this.presentOne(e);
      return;
    }
    if (this.busy) return;
    this.busy = true;
    try {
      for (let next = this.entries[0]; next; next = this.entries[0]) {
        next.showing = true;
        this.changed.fire();
        let decision: ApprovalDecision;
        try {
          decision = await this.presenter.present(next.request, next.folderName, next.token);
        } catch (e) {
          decision = { approved: false, by: 'error', reason: `The approval dialog failed: ${(e as Error).message}` };
        }
        this.settle(next, decision);
      }
    } finally {
      this.busy = false;
    }
  }

  private async presentOne(entry: Entry): Promise<void> {
    entry.showing = true;
    this.changed.fire();
    let decision: ApprovalDecision;
    try {
      decision = await this.presenter.present(entry.request, entry.folderName, entry.token);
    } catch (e) {
      decision = { approved: false, by: 'error', reason: `The approval panel failed: ${(e as Error).message}` };
    }
    this.settle(entry, decision);
  }

  /** Denies everything still waiting (the extension is going away). */
  dispose(): void {
    for (const e of [...this.entries]) this.settle(e, { approved: false, by: 'unavailable', reason: 'VS Code is closing.' });
    this.changed.dispose();
  }
}
