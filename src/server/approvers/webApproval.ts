import * as path from 'node:path';
import type { ServerContext } from '../context';
import { startApprovalPage, type ApprovalPage } from '../http/approvalPage';
import { WebApprover } from './web';

export interface WebApproval {
  readonly approver: WebApprover;
  readonly page: ApprovalPage;
  close(): Promise<void>;
}

/**
 * Starts the standalone approval page for one server: the approver, its history fed by the (redacted) audit,
 * and the page's listener. Waiting requests are denied when it closes.
 */
export async function startWebApproval(ctx: ServerContext): Promise<WebApproval> {
  const approver = new WebApprover(path.basename(ctx.policy.root) || ctx.policy.root, () => ctx.policy.approvalTimeoutSeconds * 1000, ctx.remembered, ctx.rules);
  ctx.audit.add(approver.auditSink());
  const page = await startApprovalPage(approver);
  return {
    approver,
    page,
    close: async () => {
      approver.close();
      await page.close();
    },
  };
}
