import type { AuditLog } from './audit';
import type { ErrorCode } from './errors';
import type { Verdict } from './verdict';

/**
 * The approval step every tool passes through when the policy says "ask". What is shown to the person is exactly
 * what will happen: the argv of every stage, where, with which isolation, and for a change the unified diff.
 */
export interface ApprovalCommand {
  /** Each stage's argv, as given (nothing interpreted). */
  readonly stages: readonly (readonly string[])[];
  /** Working directory relative to the workspace root ('.' for the root). */
  readonly cwd: string;
  /** The first lines of stdin, when given. */
  readonly stdinPreview?: string;
  readonly stdinFile?: string;
  readonly stdoutFile?: { readonly path: string; readonly append: boolean };
  readonly isolation: string;
  /** Stages (indexes into `stages`) whose program is not on the allowlist: the card says so. */
  readonly notListed?: readonly number[];
  /** Per stage that runs any code given to it (an interpreter, a workspace program …): one plain sentence. */
  readonly runsAnyCode?: readonly { readonly stage: number; readonly note: string }[];
  /**
   * A background start (it runs on after the call, for at most `lifetimeSeconds`; `openInput`: the agent may send it
   * input later, each input judged again), or input sent to a running background command (`inputTo`: its id; the
   * input is `stdinPreview`).
   */
  readonly background?: { readonly lifetimeSeconds?: number; readonly openInput?: boolean; readonly inputTo?: string };
}

/** A host not on the domain list; its card's "always" adds `host` to the allowed domains (user settings). */
export interface ApprovalHost {
  readonly host: string;
  readonly port: number;
  /** CONNECT, GET … */
  readonly method: string;
  /** The command line that tried it (absent for the fetch tool). */
  readonly command?: string;
}

/** `undo`: restoring the kept previous content of an earlier change (src/core/files/undo.ts). */
export type ChangeKind = 'edit' | 'write' | 'copy' | 'move' | 'delete' | 'mkdir' | 'rmdir' | 'undo';

export interface ApprovalChange {
  readonly kind: ChangeKind;
  /** Paths relative to the root: the file changed, or source and destination. */
  readonly files: readonly string[];
  /** Unified diff of exactly what will be written (byte-for-byte what lands), when the change has content. */
  readonly diff?: string;
  /** Full proposed content, for opening the change in a diff editor. */
  readonly proposed?: string;
  readonly original?: string;
}

/**
 * A previewed command's effect (src/core/effects): it ran against a copy-on-write view of the workspace, and what it
 * changed waits for Apply (approve) or Discard (deny). Nothing of it is in the workspace yet.
 */
export interface ApprovalEffect {
  /** The request id of the command that made it (its history entry). */
  readonly requestId: string;
  /** The command, each stage's argv as given. */
  readonly stages: readonly (readonly string[])[];
  readonly cwd: string;
  /** How the command ended (`ok`, `failed`, `timeout` …) and its exit code. */
  readonly outcome: string;
  readonly exitCode: number | null;
  /** The first of its output (the rest goes to the agent with the result). */
  readonly stdout: string;
  readonly stderr: string;
  /** Every file and what happens to it (`not applied` ones with the reason). */
  readonly files: readonly EffectFileChange[];
  /** Files beyond the listed ones. */
  readonly more: number;
  /** Unified diff of the text files; binary and large files named with their sizes; `.git` counted. */
  readonly diff: string;
  /** What a preview cannot see: said on every card. */
  readonly limits: string;
  /** The one text file of the effect, for a diff editor. */
  readonly original?: string;
  readonly proposed?: string;
}

export interface EffectFileChange {
  readonly path: string;
  readonly change: string;
  readonly detail?: string;
}

export interface ApprovalRequest {
  readonly id: string;
  readonly tool: string;
  /** The rule that made the verdict "ask", and why. */
  readonly rule: string;
  readonly reason: string;
  readonly command?: ApprovalCommand;
  readonly change?: ApprovalChange;
  /** A previewed command's effect: approve = Apply, deny = Discard. */
  readonly effect?: ApprovalEffect;
  readonly fetch?: { readonly url: string };
  /** A host a running command (or the fetch tool) wants to reach that is not on the domain list (network: domains). */
  readonly network?: ApprovalHost;
  /** Exact command line used for "always allow" / session approvals (argv joined by spaces). */
  readonly key: string;
  /**
   * For a command: the rules "Always allow" offers, most specific first (the exact line, then an argv prefix with
   * a trailing `*`). The person may edit one before saving; it must still cover this request.
   */
  readonly rules?: readonly string[];
  /** Who made the call, when the transport knows (the VS Code panel explains a double prompt with it). */
  readonly client?: CallingClient;
}

/**
 * The MCP client that made a call: its clientInfo name, and whether the tool was annotated read-only when it was
 * called (a client such as VS Code then asks nobody itself; otherwise it may already have asked the person).
 */
export interface CallingClient {
  readonly name: string;
  readonly readOnlyHint: boolean;
}

export type ApprovalOption = 'once' | 'session' | 'timed' | 'always' | 'all';

export interface ApprovalDecision {
  readonly approved: boolean;
  /** Optional reason given by the person; returned to the agent on denial. */
  readonly reason?: string;
  /** Who decided: 'user', 'timeout', 'unavailable', 'session-rule', 'elicitation' … */
  readonly by: string;
  readonly option?: ApprovalOption;
  /** With option `always`: the command rule the person saved (edited or as offered); absent means the exact line. */
  readonly rule?: string;
}

/** What an approver may need of the call besides the request itself. */
export interface ApprovalCall {
  /**
   * The transport's id of the request this call answers (MCP: the tools/call id). MCP elicitation sends its
   * question on that request's own response stream: over Streamable HTTP a server request that does not name its
   * related request goes to the optional standalone GET stream and is DROPPED when the client has not opened it
   * (the call would then wait for the approval timeout).
   */
  readonly relatedRequestId?: string | number;
}

export interface Approver {
  /** Short name for logs and results ('vscode', 'elicitation', 'none'). */
  readonly kind: string;
  /** Resolves with the decision; an aborted signal withdraws the request (resolves as not approved). */
  approve(request: ApprovalRequest, signal?: AbortSignal, call?: ApprovalCall): Promise<ApprovalDecision>;
}

/** The approver when nobody can be asked: every "ask" becomes a denial that says so. */
export const unavailableApprover: Approver = {
  kind: 'none',
  approve: async () => ({
    approved: false,
    by: 'unavailable',
    reason: 'This request needs approval, but no approver is connected (start the server from VS Code, use --approver web for the local approval page, use a client that supports MCP elicitation, or choose --mode auto).',
  }),
};

export type GateOutcome =
  | { readonly allowed: true; readonly approvedBy?: string; readonly option?: ApprovalOption; readonly rule?: string; readonly waitedMs: number }
  | {
      readonly allowed: false;
      readonly code: ErrorCode;
      readonly reason: string;
      readonly rule: string;
      readonly waitedMs: number;
      /** Who said no, when an approver was asked (absent for a plain deny verdict). */
      readonly deniedBy?: string;
    };

/**
 * Turns a verdict into go / no-go: deny stops, allow passes, ask waits for the approver. The request is built
 * lazily so an allowed call pays nothing for a diff it does not need.
 */
export async function gate(
  verdict: Verdict,
  approver: Approver,
  buildRequest: () => ApprovalRequest | Promise<ApprovalRequest>,
  signal?: AbortSignal,
  call?: ApprovalCall,
): Promise<GateOutcome> {
  if (verdict.kind === 'deny') return { allowed: false, code: verdict.code, reason: verdict.reason, rule: verdict.rule, waitedMs: 0 };
  if (verdict.kind === 'allow') return { allowed: true, waitedMs: 0 };
  const started = Date.now();
  let decision: ApprovalDecision;
  try {
    decision = await approver.approve(await buildRequest(), signal, call);
  } catch (e) {
    decision = { approved: false, by: 'error', reason: `The approver failed: ${(e as Error).message}` };
  }
  const waitedMs = Date.now() - started;
  // A call cancelled while its card was open must not run because someone clicked Approve a moment later.
  if (signal?.aborted) return { allowed: false, code: 'APPROVAL_DENIED', reason: 'The request was cancelled while waiting for approval.', rule: verdict.rule, waitedMs, deniedBy: 'cancelled' };
  if (decision.approved) return { allowed: true, approvedBy: decision.by, ...(decision.option && { option: decision.option }), ...(decision.rule !== undefined && { rule: decision.rule }), waitedMs };
  const code: ErrorCode = decision.by === 'unavailable' ? 'APPROVAL_UNAVAILABLE' : 'APPROVAL_DENIED';
  const reason = decision.reason
    ? decision.reason
    : decision.by === 'timeout'
      ? 'Nobody approved the request in time.'
      : 'The request was denied.';
  return { allowed: false, code, reason, rule: verdict.rule, waitedMs, deniedBy: decision.by };
}

/**
 * One audit event per decision an approver made (approved or denied: who decided, which option, how long it
 * took). Nothing is recorded when nobody was asked (a plain allow or deny verdict).
 */
export function recordDecision(audit: AuditLog, tool: string, requestId: string, gated: GateOutcome, subject: Record<string, unknown>): void {
  const decidedBy = gated.allowed ? gated.approvedBy : gated.deniedBy;
  if (decidedBy === undefined) return;
  audit.record({
    event: 'approval_audit',
    tool,
    request_id: requestId,
    result_type: gated.allowed ? 'approved' : 'approval_denied',
    decided_by: decidedBy,
    ...(gated.allowed ? { option: gated.option ?? 'once', ...(gated.rule !== undefined && { rule: gated.rule }) } : { rejection_reason: gated.reason }),
    approval_ms: gated.waitedMs,
    ...subject,
  });
}
