import { randomUUID } from 'node:crypto';
import { gate, recordDecision, type Approver, type ApprovalRequest, type CallingClient, type GateOutcome } from './approval';
import type { AuditLog, ResultType } from './audit';
import { adviceFor, withAdvice } from './advice';
import { isToolError, ToolError, type ErrorCode } from './errors';
import { modeLabel, modeVerdict, type Action } from './modes';
import type { Policy } from './policy';
import { allow, strictest, type Verdict } from './verdict';

/**
 * THE guarded pipeline every tool runs through: plan → decide (rules + the mode table) → preview → approval →
 * execute → audit. Commands, file changes, reads and fetch differ only in what they plan and execute; the order
 * of the steps, the verdict, the approval and the audit are decided here, once.
 */

export interface GuardedDeps {
  readonly policy: () => Policy;
  readonly approver: () => Approver;
  readonly audit: AuditLog;
}

export interface GuardedCall {
  readonly tool: string;
  /** The client that made the call, passed on to the approver. */
  readonly client?: CallingClient;
  readonly requestId?: string;
  /** The transport's own id of the request, for an approver that asks the same client (approval.ts ApprovalCall). */
  readonly relatedRequestId?: string | number;
  readonly signal?: AbortSignal;
}

export interface Denial {
  readonly code: ErrorCode;
  readonly message: string;
  readonly rule: string;
}

/** The family every tool result belongs to. */
export interface GuardedResult {
  readonly outcome: string;
  readonly denial?: Denial;
  readonly approvedBy?: string;
}

/** A request once its paths are resolved and its rules checked, before anything runs. */
export interface Planned<R> {
  /** What the request does, for the mode table (the strictest answer wins). */
  readonly actions: readonly Action[];
  /** The rules' verdicts (allowlist, arguments, protected paths, network, sandbox …). */
  readonly checks: readonly Verdict[];
  /** Names the request in the mode's reason: `"rm x"`, `this change`. */
  readonly what: string;
  /** A person already allowed exactly this request (remembered, auto-approved): the mode's "ask" passes. */
  readonly preApproved?: boolean;
  /** Fields of every audit event of this request (argv, files, url …; never contents). */
  readonly subject: Record<string, unknown>;
  /** What the approval audit names, when it differs from `subject` (a command's whole line). */
  readonly decisionSubject?: Record<string, unknown>;
  /** Runs after an allow or ask verdict, before the approval (computes the diff). `skipApproval`: nothing would change. */
  preview?(): Promise<{ readonly skipApproval?: boolean } | void>;
  /** What the approver is shown. */
  request(verdict: Verdict & { kind: 'ask' }, id: string): ApprovalRequest | Promise<ApprovalRequest>;
  /** Does it; a refusal found only now (e.g. the sandbox cannot wrap it) comes back as a denied result. */
  execute(gated: Extract<GateOutcome, { allowed: true }>): Promise<R>;
}

export interface Guarded<R extends GuardedResult> {
  readonly event: 'shell_execution_audit' | 'file_audit' | 'fetch_audit' | 'output_audit';
  plan(policy: Policy): Planned<R> | Promise<Planned<R>>;
  /** The result of a request that did not run: refused by a rule, the mode or a person; `extra` keeps e.g. the diff. */
  refused(denial: Denial, waitedMs: number): R;
  /** The result of an exception (a ToolError keeps its code). */
  failed(e: unknown): R;
  /** Audit fields of a result (sizes, exit codes …; never contents). */
  audited(r: R): Record<string, unknown>;
}

/** The verdict for a planned request: its rules and the mode table, strictest wins. Pure; also used by decideCommand. */
export function decidePlanned(policy: Pick<Policy, 'mode'>, p: Pick<Planned<unknown>, 'actions' | 'checks' | 'what' | 'preApproved'>): Verdict {
  let mode = modeVerdict(policy.mode, p.actions, p.what);
  if (mode.kind === 'ask' && p.preApproved) mode = allow('approval.remembered');
  return strictest([...p.checks, mode]);
}

export async function runGuarded<R extends GuardedResult>(deps: GuardedDeps, call: GuardedCall, g: Guarded<R>): Promise<R> {
  const policy = deps.policy();
  const requestId = call.requestId ?? randomUUID();
  let subject: Record<string, unknown> = {};
  const audit = (r: R, type: ResultType, extra: Record<string, unknown> = {}): R => {
    deps.audit.record({
      event: g.event, tool: call.tool, request_id: requestId, mode: modeLabel(policy.mode), ...subject, result_type: type,
      ...(r.denial && { error_code: r.denial.code, rejection_reason: r.denial.message, rule: r.denial.rule }),
      ...g.audited(r), ...extra,
    });
    return r;
  };
  const failed = (e: unknown, extra: Record<string, unknown> = {}) => {
    // A rule's refusal thrown as an error gets the same policy-true advice as a verdict's (advice.ts).
    const advised = isToolError(e) && adviceFor(e.rule, policy) ? new ToolError(e.code, withAdvice(e.message, e.rule, policy), e.rule) : e;
    const r = g.failed(advised);
    return audit(r, resultType(r), extra);
  };

  let planned: Planned<R>;
  try {
    planned = await g.plan(policy);
  } catch (e) {
    return failed(e);
  }
  subject = planned.subject;
  const verdict = decidePlanned(policy, planned);
  if (verdict.kind === 'deny') return audit(g.refused({ code: verdict.code, message: withAdvice(verdict.reason, verdict.rule, policy), rule: verdict.rule }, 0), 'rejected', { rule: verdict.rule });

  let skipApproval = false;
  try {
    skipApproval = (await planned.preview?.())?.skipApproval === true;
  } catch (e) {
    return failed(e, { rule: verdict.rule });
  }

  const gated = skipApproval
    ? ({ allowed: true, waitedMs: 0 } as const)
    : await gate(verdict, deps.approver(), async () => withClient(await planned.request(verdict as Verdict & { kind: 'ask' }, requestId), call.client), call.signal, call.relatedRequestId !== undefined ? { relatedRequestId: call.relatedRequestId } : undefined);
  recordDecision(deps.audit, call.tool, requestId, gated, planned.decisionSubject ?? subject);
  if (!gated.allowed) {
    const asked = gated.deniedBy !== undefined;
    return audit(g.refused({ code: gated.code, message: gated.reason, rule: gated.rule }, gated.waitedMs), asked ? 'approval_denied' : 'rejected', {
      rule: gated.rule,
      approval_ms: gated.waitedMs,
    });
  }

  const decided = { rule: verdict.rule, approval_ms: gated.waitedMs, ...(gated.approvedBy && { approved_by: gated.approvedBy }) };
  let r: R;
  try {
    r = await planned.execute(gated);
  } catch (e) {
    return failed(e, decided);
  }
  return audit(r, resultType(r), r.denial ? { ...decided, rule: r.denial.rule } : decided);
}

function withClient(request: ApprovalRequest, client: CallingClient | undefined): ApprovalRequest {
  return client ? { ...request, client } : request;
}

function resultType(r: GuardedResult): ResultType {
  switch (r.outcome) {
    case 'ok': return 'success';
    case 'started': return 'success'; // a background run: its end is recorded under the same request id
    case 'denied': return 'rejected';
    case 'error': return 'process_error';
    default: return r.outcome as ResultType;
  }
}

/**
 * An exception as the result family's fields: a ToolError with a denial code is a denial (the rules said no),
 * any other ToolError keeps its code, anything else is an I/O error with its message.
 */
export function problemOf(e: unknown, isDenial: (code: ErrorCode) => boolean, fallbackRule: string, prefix = ''):
  | { outcome: 'denied'; message: string; denial: Denial }
  | { outcome: 'failed'; message: string; error: { code: ErrorCode; message: string; rule?: string } } {
  if (isToolError(e)) {
    if (isDenial(e.code)) return { outcome: 'denied', message: e.message, denial: { code: e.code, message: e.message, rule: e.rule ?? fallbackRule } };
    return { outcome: 'failed', message: e.message, error: { code: e.code, message: e.message, ...(e.rule && { rule: e.rule }) } };
  }
  const message = prefix + ((e as Error)?.message ?? String(e));
  return { outcome: 'failed', message, error: { code: 'IO_ERROR', message } };
}
