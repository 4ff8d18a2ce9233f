import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { CallingClient } from '../../core/approval';
import type { CallContext } from '../../core/commands/run';

/** The SDK's handler extra, plus the calling client as registerTools knows it from the session. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification> & { readonly client?: CallingClient };

/**
 * The per-call context from the SDK's handler extra: the abort signal (client cancellation), the request id for the
 * audit, and progress notifications when the client sent a progress token.
 */
export function callContext(tool: string, extra: ToolExtra): CallContext {
  const token = extra._meta?.progressToken;
  return {
    tool,
    ...(extra.client && { client: extra.client }),
    requestId: `${extra.sessionId ?? 'local'}:${String(extra.requestId)}`,
    // For elicitation: its question goes on this request's own response stream (approval.ts ApprovalCall).
    relatedRequestId: extra.requestId,
    signal: extra.signal,
    ...(token !== undefined && {
      onProgress: (p) => {
        const seconds = Math.round(p.elapsedMs / 1000);
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: seconds, message: `${seconds} s elapsed, ${p.stdoutBytes + p.stderrBytes} bytes of output` },
          })
          .catch(() => {
            /* the client may be gone; the command's own cancellation handles that */
          });
      },
    }),
  };
}
