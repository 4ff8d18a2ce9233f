import type { Approver } from '../../../core/approval';
import type { FileCall, FileDeps } from '../../../core/files/types';
import type { ServerContext } from '../../context';
import type { ToolExtra } from '../callContext';

/** The file pipeline's dependencies for one session: the live policy, the session's approver, the shared audit. */
export function fileDeps(ctx: ServerContext, approver: () => Approver): FileDeps {
  return { policy: () => ctx.policy, approver, audit: ctx.audit };
}

export function fileCall(tool: string, extra: ToolExtra): FileCall {
  return { tool, requestId: `${extra.sessionId ?? 'local'}:${String(extra.requestId)}`, signal: extra.signal };
}
