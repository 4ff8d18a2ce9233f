import * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalRequest } from '../../core/approval';
import type { ApprovalPresenter, PendingApproval } from './types';

interface Entry {
  readonly request: ApprovalRequest;
  readonly folderName: string;
  readonly since: Date;
  readonly token: vscode.CancellationToken;
  readonly resolve: (d: ApprovalDecision) => void;
}

/**
 * Every approval request from every folder's server, handed to the presenter (the approval panel: one card each,
 * several at once) as it arrives. Knows what is pending for the status bar and the "show pending approvals"
 * command. A request the server withdraws (timeout, cancelled call) leaves the queue at once.
 */
export class ApprovalQueue implements vscode.Disposable {
  private readonly entries: Entry[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private presenter: ApprovalPresenter) {}

  /** Shows the approval panel. */
  reveal(): void {
    this.presenter.reveal();
  }

  get pending(): readonly PendingApproval[] {
    return this.entries.map(({ request, folderName, since }) => ({ request, folderName, since }));
  }

  ask(request: ApprovalRequest, folderName: string, token: vscode.CancellationToken): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      const entry: Entry = { request, folderName, since: new Date(), token, resolve };
      this.entries.push(entry);
      this.changed.fire();
      void this.present(entry);
    });
  }

  private settle(entry: Entry, decision: ApprovalDecision): void {
    const i = this.entries.indexOf(entry);
    if (i < 0) return;
    this.entries.splice(i, 1);
    entry.resolve(decision);
    this.changed.fire();
  }

  private async present(entry: Entry): Promise<void> {
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
