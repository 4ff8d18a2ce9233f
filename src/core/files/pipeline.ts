import { randomUUID } from 'node:crypto';
import { gate, recordDecision, type ApprovalRequest, type ChangeKind } from '../approval';
import type { ResultType } from '../audit';
import { isToolError, type ErrorCode } from '../errors';
import type { ResolvedPath } from '../paths/confine';
import { decideFileChange, decideFileRead } from './decide';
import { isDenialCode, type FileCall, type FileDeps, type FileResult } from './types';

/**
 * The one pipeline for file tools, the same shape as the command pipeline: plan (resolve and confine every
 * path) → decide (protected paths, mode) → preview (the exact new content and its diff) → gate (approval sees
 * that diff) → apply → audit. No file tool writes anything any other way.
 */

export interface ChangePreview {
  /** Unified diff of exactly what apply() will write. */
  readonly diff?: string;
  readonly original?: string;
  readonly proposed?: string;
  /** Nothing would change: no approval is asked, and apply() must not write. */
  readonly unchanged?: boolean;
}

export interface ApplyOutcome extends Omit<Partial<FileResult>, 'outcome' | 'message'> {
  readonly message: string;
}

export interface PlannedChange {
  readonly kind: ChangeKind;
  /** Every path the change creates, replaces or removes: each is checked against the protected paths. */
  readonly targets: readonly ResolvedPath[];
  /** Relative paths for the approver, the result and the audit. */
  readonly files: readonly string[];
  /** Computes the new content; runs only after the verdict allowed or asked (a denied change costs nothing). */
  readonly preview?: () => ChangePreview | Promise<ChangePreview>;
  readonly apply: (preview: ChangePreview) => ApplyOutcome | Promise<ApplyOutcome>;
}

export async function runFileChange(deps: FileDeps, call: FileCall, plan: () => PlannedChange | Promise<PlannedChange>): Promise<FileResult> {
  const policy = deps.policy();
  const requestId = call.requestId ?? randomUUID();
  const audit = (result: FileResult, type: ResultType, extra: Record<string, unknown> = {}) =>
    deps.audit.record({
      event: 'file_audit',
      tool: call.tool,
      request_id: requestId,
      result_type: type,
      files: result.files,
      mode: policy.mode,
      ...(result.bytes !== undefined && { bytes: result.bytes }),
      ...(result.changed !== undefined && { changed: result.changed }),
      ...(result.backup !== undefined && { backup: result.backup, backup_deleted: result.backupDeleted === true }),
      ...(result.denial && { error_code: result.denial.code, rejection_reason: result.denial.message, rule: result.denial.rule }),
      ...(result.error && { error_code: result.error.code, error_message: result.error.message, ...(result.error.rule && { rule: result.error.rule }) }),
      ...extra,
    });

  let planned: PlannedChange;
  try {
    planned = await plan();
  } catch (e) {
    const r = failure(e, []);
    audit(r, r.outcome === 'denied' ? 'rejected' : 'failed');
    return r;
  }
  const { files } = planned;
  const verdict = decideFileChange(planned.targets, policy);
  if (verdict.kind === 'deny') {
    const r = denied(verdict.code, verdict.reason, verdict.rule, files);
    audit(r, 'rejected');
    return r;
  }

  let preview: ChangePreview = {};
  try {
    if (planned.preview) preview = await planned.preview();
  } catch (e) {
    const r = failure(e, files);
    audit(r, r.outcome === 'denied' ? 'rejected' : 'failed', { rule: verdict.rule });
    return r;
  }

  const request = (): ApprovalRequest => ({
    id: requestId,
    tool: call.tool,
    rule: verdict.rule,
    reason: verdict.kind === 'ask' ? verdict.reason : '',
    key: `${call.tool} ${files.join(' ')}`,
    change: {
      kind: planned.kind,
      files,
      ...(preview.diff !== undefined && { diff: preview.diff }),
      ...(preview.proposed !== undefined && { proposed: preview.proposed }),
      ...(preview.original !== undefined && { original: preview.original }),
    },
  });
  const gated = preview.unchanged ? ({ allowed: true, waitedMs: 0 } as const) : await gate(verdict, deps.approver(), request, call.signal);
  recordDecision(deps.audit, call.tool, requestId, gated, { files });
  if (!gated.allowed) {
    const r = { ...denied(gated.code, gated.reason, gated.rule, files), ...(preview.diff !== undefined && { diff: preview.diff }) };
    audit(r, gated.code === 'APPROVAL_DENIED' || gated.code === 'APPROVAL_UNAVAILABLE' ? 'approval_denied' : 'rejected', { approval_ms: gated.waitedMs });
    return r;
  }

  try {
    const applied = await planned.apply(preview);
    const r: FileResult = { outcome: 'ok', files, ...applied, ...(gated.approvedBy && { approvedBy: gated.approvedBy }) };
    audit(r, 'success', { rule: verdict.rule, approval_ms: gated.waitedMs, ...(gated.approvedBy && { approved_by: gated.approvedBy }) });
    return r;
  } catch (e) {
    const r = failure(e, files);
    audit(r, r.outcome === 'denied' ? 'rejected' : 'failed', { rule: verdict.rule });
    return r;
  }
}

/** Reads: confinement (inside `run`) is the rule; every read is audited (paths and sizes, never contents). */
export async function runFileRead(deps: FileDeps, call: FileCall, run: () => Omit<FileResult, 'outcome'> | Promise<Omit<FileResult, 'outcome'>>): Promise<FileResult> {
  const requestId = call.requestId ?? randomUUID();
  const verdict = decideFileRead(deps.policy());
  let r: FileResult;
  try {
    r = { outcome: 'ok', ...(await run()) };
  } catch (e) {
    r = failure(e, []);
  }
  deps.audit.record({
    event: 'file_audit',
    tool: call.tool,
    request_id: requestId,
    result_type: r.outcome === 'ok' ? 'success' : r.outcome === 'denied' ? 'rejected' : 'failed',
    files: r.files,
    rule: r.denial?.rule ?? r.error?.rule ?? verdict.rule,
    ...(r.bytes !== undefined && { bytes: r.bytes }),
    ...(r.truncated !== undefined && { truncated: r.truncated }),
    ...(r.denial && { error_code: r.denial.code, rejection_reason: r.denial.message }),
    ...(r.error && { error_code: r.error.code, error_message: r.error.message }),
  });
  return r;
}

function denied(code: ErrorCode, message: string, rule: string, files: readonly string[]): FileResult {
  return { outcome: 'denied', message, files, denial: { code, message, rule } };
}

/** Any exception as a result: ToolErrors keep their code; anything else is an I/O error with its message. */
export function failure(e: unknown, files: readonly string[]): FileResult {
  if (isToolError(e)) {
    if (isDenialCode(e.code)) return denied(e.code, e.message, e.rule ?? 'file.denied', files);
    return { outcome: 'failed', message: e.message, files, error: { code: e.code, message: e.message, ...(e.rule && { rule: e.rule }) } };
  }
  const message = (e as Error)?.message ?? String(e);
  return { outcome: 'failed', message, files, error: { code: 'IO_ERROR', message } };
}
