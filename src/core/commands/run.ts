import { randomUUID } from 'node:crypto';
import { gate, recordDecision, type ApprovalOption, type Approver, type ApprovalRequest } from '../approval';
import type { ApprovalMemory } from '../approvalMemory';
import type { AuditLog, ResultType } from '../audit';
import { isToolError, type ErrorCode } from '../errors';
import { buildChildEnv } from '../exec/env';
import type { ExecOutcome, ExecProgress, Executor, ExecResult, ExecStage } from '../exec/types';
import type { IsolationState } from '../isolationState';
import { guardFor } from '../paths/guard';
import type { Policy } from '../policy';
import { deny, type Verdict } from '../verdict';
import { decideCommand, type CommandDecision, type CommandRequest } from './decide';
import { prepareArgv } from './rules';

export type CommandOutcome = ExecOutcome | 'denied';

/**
 * Added to every child's environment (unless the operator passes these names through): git and friends must never
 * start an editor, a pager or a password prompt — nobody is at a terminal, and an editor is a shell escape.
 */
export const NON_INTERACTIVE_ENV: Readonly<Record<string, string>> = Object.freeze({
  GIT_EDITOR: 'false',
  GIT_SEQUENCE_EDITOR: 'false',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'false',
  SSH_ASKPASS: 'false',
});

/** The structured result every command tool returns (and the audit event mirrors, without the bodies). */
export interface CommandResult {
  readonly outcome: CommandOutcome;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdoutTruncated: boolean;
  readonly stderrTruncated: boolean;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  readonly durationMs: number;
  readonly queueMs: number;
  /** Time spent waiting for a person's decision (not counted against the timeout). */
  readonly approvalMs: number;
  readonly isolation: string;
  readonly approvedBy?: string;
  readonly warning?: string;
  readonly error?: string;
  readonly denial?: { readonly code: ErrorCode; readonly message: string; readonly rule: string };
}

export interface CommandDeps {
  readonly policy: () => Policy;
  readonly executor: Executor;
  readonly approver: () => Approver;
  readonly audit: AuditLog;
  readonly isolation: () => IsolationState;
  readonly memory?: ApprovalMemory;
  readonly parentEnv?: NodeJS.ProcessEnv;
}

export interface CallContext {
  readonly tool: string;
  readonly requestId?: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: ExecProgress) => void;
}

/**
 * The one pipeline for commands: decide → approve → execute → audit. Every command tool calls this and nothing
 * else, so no tool has a private shortcut past the rules.
 */
export async function runCommand(request: CommandRequest, deps: CommandDeps, call: CallContext): Promise<CommandResult> {
  const policy = deps.policy();
  const isolation = deps.isolation();
  const requestId = call.requestId ?? randomUUID();
  const decision = decideCommand(request, policy, { preApproved: (key) => deps.memory?.has(key) ?? false });
  let verdict: Verdict = decision.verdict;
  if (verdict.kind !== 'deny' && isolation.denial) verdict = deny('ISOLATION_UNAVAILABLE', 'isolation.required', isolation.denial);

  let env: Record<string, string> | undefined;
  if (verdict.kind !== 'deny') {
    try {
      env = { ...NON_INTERACTIVE_ENV, ...buildChildEnv({
        parentEnv: deps.parentEnv ?? process.env,
        allowlist: policy.childEnvAllowlist,
        ...(policy.safePath !== undefined && { safePath: policy.safePath }),
        ...(request.env && { overrides: { ...request.env } }),
      }) };
    } catch (e) {
      verdict = deny(isToolError(e) ? e.code : 'BAD_REQUEST', isToolError(e) && e.rule ? e.rule : 'env.not-allowed', (e as Error).message);
    }
  }

  const gated = await gate(verdict, deps.approver(), () => approvalRequest(requestId, call.tool, decision, request, isolation.kind), call.signal);
  const base = auditBase(call.tool, requestId, request, decision, policy, isolation.kind);
  recordDecision(deps.audit, call.tool, requestId, gated, { command: decision.key });
  if (!gated.allowed) {
    deps.audit.record({ ...base, result_type: 'rejected', rejection_reason: gated.reason, error_code: gated.code, rule: gated.rule, approval_ms: gated.waitedMs });
    return denied(gated.code, gated.reason, gated.rule, isolation.kind, gated.waitedMs);
  }
  if (gated.approvedBy) rememberApproval(deps.memory, decision.key, gated.option);

  const plan = decision.plan!;
  let stages: ExecStage[];
  try {
    stages = plan.parsed.stages.map((argv) => {
      const prepared = prepareArgv(argv);
      const stage = { file: prepared[0]!, args: prepared.slice(1) };
      return isolation.wrap ? isolation.wrap(stage, plan.cwd.real) : stage;
    });
  } catch (e) {
    // The sandbox could not confine this call (e.g. a workspace at "/"): fail closed, never run it unwrapped.
    const code = isToolError(e) ? e.code : 'ISOLATION_UNAVAILABLE';
    const message = `The command cannot be sandboxed: ${(e as Error).message}`;
    deps.audit.record({ ...base, result_type: 'rejected', rejection_reason: message, error_code: code, rule: 'isolation.wrap-failed', approval_ms: gated.waitedMs });
    return denied(code, message, 'isolation.wrap-failed', isolation.kind, gated.waitedMs);
  }
  const finishWatch = isolation.watchRun?.();
  const result: ExecResult = await deps.executor.run({
    stages,
    cwd: plan.cwd.real,
    env: env!,
    ...(request.stdin !== undefined && { stdin: request.stdin }),
    ...(plan.stdinFile && { stdinFile: plan.stdinFile.real }),
    ...(plan.stdoutFile && { stdoutFile: { path: plan.stdoutFile.target.real, append: plan.stdoutFile.append } }),
    // Redirects are re-confined when opened, after the approval wait and the queue (issue 12).
    pathGuard: guardFor(policy),
    timeoutMs: plan.timeoutMs,
    outputLimitBytes: policy.outputLimitBytes,
    ...(call.signal && { signal: call.signal }),
    ...(call.onProgress && { onProgress: call.onProgress }),
  });
  const undone = finishWatch?.();
  const warning = [isolation.warning, undone].filter(Boolean).join(' ') || undefined;
  deps.audit.record({
    ...base,
    ...(undone && { isolation_note: undone }),
    result_type: resultType(result.outcome),
    duration: result.durationMs / 1000,
    queue_ms: result.queueMs,
    approval_ms: gated.waitedMs,
    ...(gated.approvedBy && { approved_by: gated.approvedBy }),
    return_code: result.exitCode,
    signal: result.signal,
    stdout_bytes: result.stdoutBytes,
    stderr_bytes: result.stderrBytes,
    stdout_truncated: result.stdoutTruncated,
    stderr_truncated: result.stderrTruncated,
    ...(result.error && { error_type: result.error }),
  });
  return {
    outcome: result.outcome,
    exitCode: result.exitCode,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
    stdoutTruncated: result.stdoutTruncated,
    stderrTruncated: result.stderrTruncated,
    stdoutBytes: result.stdoutBytes,
    stderrBytes: result.stderrBytes,
    durationMs: result.durationMs,
    queueMs: result.queueMs,
    approvalMs: gated.waitedMs,
    isolation: isolation.kind,
    ...(gated.approvedBy && { approvedBy: gated.approvedBy }),
    ...(warning && { warning }),
    ...(result.error && { error: result.error }),
  };
}

/** Minutes an "allow for 15 minutes" approval lasts. */
export const TIMED_APPROVAL_MS = 15 * 60 * 1000;

/**
 * "Allow for this session" and "allow for 15 minutes" are remembered for this exact command line. "Always" is
 * written to the user's settings by the host; it is also remembered for the session so the next identical call
 * does not race the settings push.
 */
function rememberApproval(memory: ApprovalMemory | undefined, key: string, option: ApprovalOption | undefined): void {
  if (!memory) return;
  if (option === 'session' || option === 'always') memory.allowForSession(key);
  else if (option === 'timed') memory.allowFor(key, TIMED_APPROVAL_MS);
}

function denied(code: ErrorCode, message: string, rule: string, isolation: string, approvalMs: number): CommandResult {
  return {
    outcome: 'denied', exitCode: null, signal: null, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false,
    stdoutBytes: 0, stderrBytes: 0, durationMs: 0, queueMs: 0, approvalMs, isolation, denial: { code, message, rule },
  };
}

function resultType(outcome: ExecOutcome): ResultType {
  switch (outcome) {
    case 'ok': return 'success';
    case 'failed': return 'failed';
    case 'timeout': return 'timeout';
    case 'canceled': return 'canceled';
    case 'output_limit': return 'output_limit';
    case 'error': return 'process_error';
  }
}

function auditBase(tool: string, requestId: string, request: CommandRequest, decision: CommandDecision, policy: Policy, isolation: string) {
  const plan = decision.plan;
  const argv = Array.isArray(request.command) ? request.command.map(String) : [];
  return {
    event: 'shell_execution_audit',
    tool,
    request_id: requestId,
    command: argv[0] ?? '',
    argv,
    directory: plan?.cwd.real ?? request.directory ?? policy.root,
    stdin_redirect: plan?.stdinFile?.relative ?? null,
    stdout_redirect: plan?.stdoutFile?.target.relative ?? null,
    stdout_append: plan?.stdoutFile?.append ?? false,
    stdin_given: request.stdin !== undefined,
    ...(request.env && { env: request.env }),
    timeout: plan ? plan.timeoutMs / 1000 : null,
    output_limit: policy.outputLimitBytes,
    mode: policy.mode,
    isolation,
    rule: decision.verdict.rule,
  };
}

function approvalRequest(id: string, tool: string, decision: CommandDecision, request: CommandRequest, isolation: string): ApprovalRequest {
  const plan = decision.plan!;
  const v = decision.verdict;
  return {
    id,
    tool,
    rule: v.rule,
    reason: v.kind === 'ask' ? v.reason : '',
    key: decision.key,
    command: {
      stages: plan.parsed.stages,
      cwd: plan.cwd.relative,
      ...(request.stdin !== undefined && { stdinPreview: request.stdin.split('\n').slice(0, 20).join('\n') }),
      ...(plan.stdinFile && { stdinFile: plan.stdinFile.relative }),
      ...(plan.stdoutFile && { stdoutFile: { path: plan.stdoutFile.target.relative, append: plan.stdoutFile.append } }),
      isolation,
    },
  };
}
