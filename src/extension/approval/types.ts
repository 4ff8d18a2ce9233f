import type * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalRequest } from '../../core/approval';

/**
 * How a person is asked. The approval webview (webview/presenter.ts) implements it; another way of asking
 * replaces it by implementing this interface, without touching the queue, the server or the protocol.
 */
export interface ApprovalPresenter {
  /**
   * Shows one request and resolves with the person's decision. `token` is cancelled when the server withdraws the
   * request (timeout, cancelled call): the presenter should close what it shows; its answer is then ignored.
   */
  present(request: ApprovalRequest, folderName: string, token: vscode.CancellationToken): Promise<ApprovalDecision>;
  /** Brings the presenter's own view forward (the approval panel). */
  reveal(): void;
}

/** One request waiting for a decision, as the status bar and the pending-approvals list see it. */
export interface PendingApproval {
  readonly request: ApprovalRequest;
  readonly folderName: string;
  readonly since: Date;
}
