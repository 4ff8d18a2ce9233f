import * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalRequest } from '../../core/approval';
import { describeApproval } from './describe';
import type { ApprovalPresenter } from './types';

const APPROVE = 'Approve';

/**
 * Asks with a modal warning dialog: the command (each argv element quoted), where it runs, redirects, and for a
 * change the first lines of its diff. Anything but a click on "Approve" (Cancel, Escape, closing) is a denial.
 */
export class ModalApprovalPresenter implements ApprovalPresenter {
  async present(request: ApprovalRequest, folderName: string, token: vscode.CancellationToken): Promise<ApprovalDecision> {
    if (token.isCancellationRequested) return { approved: false, by: 'withdrawn' };
    const { message, detail } = describeApproval(request, folderName);
    const choice = await vscode.window.showWarningMessage(message, { modal: true, detail }, APPROVE);
    if (token.isCancellationRequested) return { approved: false, by: 'withdrawn', reason: 'The request was withdrawn before the answer arrived.' };
    return choice === APPROVE
      ? { approved: true, by: 'user', option: 'once' }
      : { approved: false, by: 'user', reason: 'The user denied the request in VS Code.' };
  }
}
