import { randomUUID } from 'node:crypto';
import type { ApprovalCommand, ApprovalOption, ApprovalRequest } from '../approval';
import { openPortBridge, type PortBridge } from '../background/network';
import type { BackgroundRun } from '../background/run';
import { endOf, lifetimeMs, runSpec, whenStarted, type BackgroundDeps } from '../background/start';
import { abandonEffect, prepareEffect, settleEffect, type CommandEffect, type EffectDeps, type EffectPlan } from '../effects/commandEffects';
import { STEP_FAILED_MARK, STEP_FAILED_STATUS, type OverlayView } from '../effects/overlay';
import type { ApprovalMemory } from '../approvalMemory';
import { isToolError } from '../errors';
import { buildChildEnv } from '../exec/env';
import type { DeveloperContext } from '../exec/developer/context';
import type { SettingsHost } from '../config/settingNames';
import type { SandboxHint } from './sandboxHint';
import { hintForCommand } from './sandboxHintFacts';
import { platformLauncher, type Launcher } from '../exec/launch';
import type { ExecOutcome, ExecProgress, Executor, ExecResult, ExecSpec, ExecStage } from '../exec/types';
import type { IsolationState } from '../isolationState';
import { guardFor } from '../paths/guard';
import { runGuarded, type Denial, type GuardedCall, type GuardedDeps } from '../pipeline';
import type { Policy } from '../policy';
import { deny, type Verdict } from '../verdict';
import { isolationOutcomeOf } from '../isolationState';
import { commandsReachNetwork } from '../modes';
import { parseRule, ruleCoversRequest } from './commandRules';
import { perCallEnvAllowlist } from './callEnv';
import { checkCommand, type CheckedCommand, type CommandPlan, type CommandRequest } from './decide';
import { delegationNote } from './delegation';
import type { Egress } from '../network/egress';
import type { ProxySession } from '../network/proxy';
import { auditedAttempts, type NetworkRecord } from '../network/record';
import { proxyEnv, type ProxyWiring } from '../network/sandboxWiring';
import { hostDecider } from './hostApproval';

/** `started`: a background run started (it goes on; its end is audited under the same request id). */
export type CommandOutcome = ExecOutcome | 'denied' | 'started';

/** Moved beside the child-environment builder, which sets them (one source); named here for older imports. */
export { NON_INTERACTIVE_ENV } from '../exec/env';

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
  /** A limit of the sandbox or of the child environment that explains the failure, and the setting that lifts it. */
  readonly hint?: SandboxHint;
  readonly error?: string;
  readonly denial?: Denial;
  /** The hosts the command tried through the egress proxy (network: domains, fetch or deny in a sandbox). */
  readonly network?: NetworkRecord;
  /** A background run that started: its id (readOutput, shell_background), its lifetime, whether its input is open. */
  readonly background?: { readonly id: string; readonly lifetimeSeconds: number; readonly inputOpen: boolean };
  /** What it changed in the workspace: previewed (applied or discarded) or recorded by a checkpoint (src/core/effects). */
  readonly effect?: CommandEffect;
}

export interface CommandDeps extends GuardedDeps, EffectDeps {
  readonly executor: Executor;
  readonly isolation: () => IsolationState;
  readonly memory?: ApprovalMemory;
  readonly parentEnv?: NodeJS.ProcessEnv;
  /**
   * Keeps a command rule a person saved with "Always allow" where the next start reads it (standalone: the config
   * file). Absent in VS Code, whose extension writes the user setting itself.
   */
  readonly saveRule?: (rule: string) => Promise<void> | void;
  /** The developer's context for the next call (exec/developer/context.ts); absent: none (no HOME, no toolchains). */
  readonly developer?: () => DeveloperContext;
  /** How the person sets settings (VS Code or standalone), so a hint names them that way. */
  readonly settingsHost?: SettingsHost;
  /** Opens the egress proxy of a call, where the isolation wants one (isolation.proxy). */
  readonly egress?: Egress;
  /** Hosts a person allowed beyond one command (keyed by host name). */
  readonly hostMemory?: ApprovalMemory;
  /** Where background runs start (absent: a request for one is refused). */
  readonly background?: BackgroundDeps;
}

/** What a background run changes in the executor's spec (background/start.ts runSpec), and the executor it runs on. */
type SpecOverrides = Partial<ExecSpec> & { readonly executor?: Executor };

export interface CallContext extends GuardedCall {
  readonly onProgress?: (p: ExecProgress) => void;
}

/**
 * Commands on the one guarded pipeline (src/core/pipeline.ts): plan and check (syntax, confinement, allowlist,
 * argument rules, sandbox, child environment) → the mode table → approval → execute (sandboxed) → audit. Every
 * command tool calls this and nothing else, so no tool has a private shortcut past the rules.
 */
export function runCommand(request: CommandRequest, deps: CommandDeps, given: CallContext): Promise<CommandResult> {
  const isolation = deps.isolation();
  // The request id names the command's Undo (its previous bytes in the backup store), and a background run's end
  // is audited later under the same id as its start, so it is fixed here.
  const call = { ...given, requestId: given.requestId ?? randomUUID() };
  let approvalMs = 0;
  const note: { undone?: string } = {}; // what the sandbox had to undo after the run, for the audit
  return runGuarded<CommandResult>(deps, call, {
    event: 'shell_execution_audit',
    refused: (denial, waitedMs) => denied(denial, isolation.kind, waitedMs),
    failed: (e) => denied({ code: isToolError(e) ? e.code : 'EXEC_ERROR', message: (e as Error).message, rule: isToolError(e) && e.rule ? e.rule : 'exec.failed' }, isolation.kind, approvalMs),
    audited: (r) =>
      r.outcome === 'denied'
        ? {}
        : {
            duration: r.durationMs / 1000, queue_ms: r.queueMs, return_code: r.exitCode, signal: r.signal,
            stdout_bytes: r.stdoutBytes, stderr_bytes: r.stderrBytes, stdout_truncated: r.stdoutTruncated, stderr_truncated: r.stderrTruncated,
            ...(r.error && { error_type: r.error }),
            ...(note.undone && { isolation_note: note.undone }),
            ...(r.network && auditedAttempts(r.network)),
            ...(r.background && { background: r.background.id, background_state: 'started', lifetime: r.background.lifetimeSeconds, input_open: r.background.inputOpen }),
            ...(r.effect && auditedEffect(r.effect)),
          },
    plan: (policy) => {
      // One developer context per call (HOME, toolchains, git identity), the same for the PATH lookup and the spawn.
      const developer = deps.developer?.();
      const checked = checkCommand(request, policy, {
        preApproved: (key) => deps.memory?.has(key) ?? false,
        sessionRules: () => deps.memory?.rules() ?? [],
        sandboxed: isolationOutcomeOf(isolation) === 'sandboxed',
        ...(deps.parentEnv && { parentEnv: deps.parentEnv }),
        ...(developer && { developer }),
      });
      const checks = [...checked.checks];
      if (isolation.denial) checks.push(deny('ISOLATION_UNAVAILABLE', 'isolation.required', isolation.denial));
      const room = request.background && backgroundRoom(deps, policy);
      if (room) checks.push(room);
      let env: Record<string, string> | undefined;
      try {
        env = buildChildEnv({
          parentEnv: deps.parentEnv ?? process.env,
          allowlist: perCallEnvAllowlist(policy.childEnvAllowlist, request.env),
          ...(policy.safePath !== undefined && { safePath: policy.safePath }),
          ...(request.env && { overrides: { ...request.env } }),
          ...(developer && { developer }),
          offline: !commandsReachNetwork(policy.network, isolationOutcomeOf(isolation)),
        });
      } catch (e) {
        checks.push(deny(isToolError(e) ? e.code : 'BAD_REQUEST', isToolError(e) && e.rule ? e.rule : 'env.not-allowed', (e as Error).message));
      }
      return {
        ...checked,
        checks,
        what: `"${checked.key}"`,
        subject: auditSubject(request, checked, policy, isolation.kind),
        decisionSubject: { command: checked.key },
        request: (verdict, id) =>
          approvalRequest(id, call.tool, verdict, checked, request, isolation.kind, request.background && { lifetimeSeconds: lifetimeMs(request, policy) / 1000, openInput: request.background.openInput }),
        execute: async (gated) => {
          approvalMs = gated.waitedMs;
          if (gated.approvedBy) await rememberApproval(deps, checked, gated);
          if (request.background) {
            const started = await startBackground(deps, call, request, checked.key, checked.plan!, env!, policy, isolation, gated, note, developer);
            return started.outcome === 'started' && !checked.plan!.readOnly ? { ...started, effect: BACKGROUND_EFFECT } : started;
          }
          const plan = checked.plan!;
          const effectPlan = await prepareEffect(deps, {
            policy, isolation, readOnly: plan.readOnly, redirects: plan.stdoutFile !== undefined, stages: plan.spawnArgv.length,
            asked: gated.approvedBy !== undefined, approver: deps.approver(),
          });
          let r: CommandResult;
          try {
            r = await execute(deps, call, request, checked.key, plan, env!, policy, isolation, gated, note, developer, effectPlan.kind === 'preview' ? effectPlan.view : undefined);
          } catch (e) {
            abandonEffect(effectPlan);
            throw e;
          }
          if (r.outcome === 'denied' || r.outcome === 'error') {
            abandonEffect(effectPlan);
            return r;
          }
          return withEffect(r, deps, policy, effectPlan, call, checked.key, plan);
        },
      };
    },
  });
}

/**
 * The command's effect once it ran (src/core/effects): a previewed one is shown as one card and applied or discarded
 * there; a checkpointed one is kept for Undo. Its note goes to the result either way.
 */
async function withEffect(r: CommandResult, deps: CommandDeps, policy: Policy, effectPlan: EffectPlan, call: CallContext & { requestId: string }, key: string, plan: CommandPlan): Promise<CommandResult> {
  const note = effectPlan.kind === 'none' ? effectPlan.note : undefined;
  if (note) return { ...r, effect: { via: 'checkpoint', outcome: 'not-recorded', files: [], undoable: false, message: note } };
  const effect = await settleEffect(deps, policy, effectPlan, {
    requestId: call.requestId, tool: call.tool, key, stages: plan.parsed.stages, cwd: plan.cwd.relative,
    outcome: r.outcome, exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr,
    ...(call.signal && { signal: call.signal }),
    ask: (request) => deps.approver().approve(call.client ? { ...request, client: call.client } : request, call.signal, call.relatedRequestId !== undefined ? { relatedRequestId: call.relatedRequestId } : undefined),
  });
  return effect ? { ...r, effect } : r;
}

/**
 * A background command runs on after its answer: it is neither previewed (nothing could be applied while it still
 * writes) nor checkpointed (its changes are not known when the call ends), and the agent and the person are told.
 */
const BACKGROUND_EFFECT: CommandEffect = {
  via: 'checkpoint', outcome: 'not-recorded', files: [], undoable: false,
  message: 'A background command is not previewed and its changes are not recorded for Undo: it writes the folder directly while it runs.',
};

/** The audit fields of an effect: paths and counts, never contents. */
function auditedEffect(e: CommandEffect): Record<string, unknown> {
  return {
    effect_via: e.via, effect_outcome: e.outcome, changed_count: e.files.length + (e.more ?? 0),
    changed_files: e.files.slice(0, 100).map((f) => f.path),
    ...(e.undoable && { undoable: true }),
    ...(e.conflicts?.length && { effect_conflicts: e.conflicts.slice(0, 100).map((c) => c.path) }),
    ...(e.decidedBy && { effect_decided_by: e.decidedBy, effect_decision_ms: e.decisionMs }),
  };
}

async function execute(
  deps: CommandDeps, call: CallContext, request: CommandRequest, key: string, plan: CommandPlan, env: Record<string, string>, policy: Policy,
  isolation: IsolationState, gated: { waitedMs: number; approvedBy?: string }, note: { undone?: string }, developer: DeveloperContext | undefined,
  view: OverlayView | undefined, overrides?: SpecOverrides, publishFor?: BackgroundRun,
): Promise<CommandResult> {
  // Without a proxy the call has no network of its own to open or close (and no AbortController to abort: aborting
  // one builds a DOMException: about 4 % of the server's CPU per call in a profile).
  if (!isolation.proxy || !deps.egress) return executeWired(deps, call, request, plan, env, policy, isolation, gated, note, developer, undefined, view, overrides);
  // The call's egress proxy, the only way out of its sandbox; closed (its tunnels cut, an open card withdrawn)
  // once every process of the call is gone. With it, the folder's port bridge (background/network.ts).
  const ended = new AbortController();
  let proxy: ProxySession;
  try {
    proxy = await deps.egress.open({
      decide: hostDecider(policy, deps, {
        tool: call.tool, command: key, signal: ended.signal,
        ...(call.client && { client: call.client }), ...(call.relatedRequestId !== undefined && { relatedRequestId: call.relatedRequestId }),
      }),
      addressPolicy: policy.fetch,
      connectTimeoutMs: policy.fetch.timeoutSeconds * 1000,
    });
  } catch (e) {
    return denied({ code: 'ISOLATION_UNAVAILABLE', message: `The egress proxy could not start: ${(e as Error).message}`, rule: 'isolation.proxy-failed' }, isolation.kind, gated.waitedMs);
  }
  let ports: PortBridge | undefined;
  if (deps.background) {
    try {
      ports = await openPortBridge(deps.background.runs, deps.egress, publishFor);
    } catch (e) {
      await proxy.close();
      return denied({ code: 'ISOLATION_UNAVAILABLE', message: `The port bridge to the background commands could not start: ${(e as Error).message}`, rule: 'isolation.ports-failed' }, isolation.kind, gated.waitedMs);
    }
  }
  const onCancel = (): void => ended.abort();
  call.signal?.addEventListener('abort', onCancel, { once: true });
  try {
    const wiring = { socket: proxy.socketPath, perl: isolation.proxy.perl, ...ports?.wiring };
    const r = await executeWired(deps, call, request, plan, { ...env, ...proxyEnv() }, policy, isolation, gated, note, developer, wiring, view, overrides);
    ended.abort();
    const record = await proxy.close();
    return record.attempts.length ? { ...r, network: record } : r;
  } finally {
    ended.abort();
    call.signal?.removeEventListener('abort', onCancel);
    ports?.close();
    await proxy.close();
  }
}

async function executeWired(
  deps: CommandDeps, call: CallContext, request: CommandRequest, plan: CommandPlan, env: Record<string, string>, policy: Policy,
  isolation: IsolationState, gated: { waitedMs: number; approvedBy?: string }, note: { undone?: string }, developer: DeveloperContext | undefined,
  proxy: ProxyWiring | undefined, view: OverlayView | undefined, overrides: SpecOverrides = {},
): Promise<CommandResult> {
  const launcher = isolation.launcher ?? defaultLauncher();
  let stages: ExecStage[];
  try {
    stages = plan.spawnArgv.map((prepared, i) => {
      // The judged path and hardened argv from decide (no second PATH lookup here), under the name it was called by.
      const stage = { file: prepared[0]!, args: prepared.slice(1), argv0: plan.parsed.stages[i]![0]! };
      return isolation.wrap ? isolation.wrap(stage, plan.cwd.real, proxy, view) : launcher.prepare(stage);
    });
  } catch (e) {
    // The sandbox could not confine this call (e.g. a workspace at "/"): fail closed, never run it unwrapped.
    const code = isToolError(e) ? e.code : 'ISOLATION_UNAVAILABLE';
    return denied({ code, message: `The command cannot be sandboxed: ${(e as Error).message}`, rule: 'isolation.wrap-failed' }, isolation.kind, gated.waitedMs);
  }
  // A previewed command never writes the workspace (its .git included): nothing to undo after it.
  const finishWatch = view ? undefined : isolation.watchRun?.();
  // A stage whose program the PATH lookup did not find is not spawned: a lookup now could find a program that
  // was never judged. Reported as the executor reports a failed spawn.
  const missing = plan.programs.findIndex((p) => p === undefined);
  const { executor = deps.executor, ...override } = overrides;
  const result: ExecResult = missing >= 0 ? notFound(plan.parsed.stages[missing]![0]!, plan.notFound[missing]) : await executor.run({
    stages,
    launcher,
    cwd: plan.cwd.real,
    env,
    // Open input (a background run) carries the call's stdin text as its first input instead.
    ...(request.stdin !== undefined && !override.input && { stdin: request.stdin }),
    ...(plan.stdinFile && { stdinFile: plan.stdinFile.real }),
    ...(plan.stdoutFile && { stdoutFile: { path: plan.stdoutFile.target.real, append: plan.stdoutFile.append } }),
    // Redirects are re-confined when opened, after the approval wait and the queue (issue 12).
    pathGuard: guardFor(policy),
    timeoutMs: plan.timeoutMs,
    outputLimitBytes: policy.outputLimitBytes,
    outputLimitAction: policy.outputLimitAction,
    ...(call.signal && { signal: call.signal }),
    ...(call.onProgress && { onProgress: call.onProgress }),
    ...override,
  });
  const undone = finishWatch?.();
  if (undone) note.undone = undone;
  if (view && result.exitCode === STEP_FAILED_STATUS && result.stderr.includes(STEP_FAILED_MARK)) {
    // The mount step could not make the view: the command did not run.
    return { ...denied({ code: 'ISOLATION_UNAVAILABLE', message: `The command was not run: ${result.stderr.trim()}`, rule: 'effect.view-failed' }, isolation.kind, gated.waitedMs) };
  }
  const warning = [isolation.warning, undone].filter(Boolean).join(' ') || undefined;
  const hint = hintForCommand(
    { outcome: result.outcome, stdout: result.stdout, stderr: result.stderr, ...(result.error && { error: result.error }), isolationKind: isolation.kind, env },
    policy, { ...(developer && { developer }), parentEnv: deps.parentEnv ?? process.env, host: deps.settingsHost ?? 'standalone' },
  );
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
    ...(hint && { hint }),
    ...(result.error && { error: result.error }),
  };
}

/** The plan's check for a background start: a refusal when there is no room under the caps (asked again when it starts). */
function backgroundRoom(deps: CommandDeps, policy: Policy): Verdict | undefined {
  if (!deps.background) return deny('BAD_REQUEST', 'background.unavailable', 'Background commands are not available on this connection.');
  try {
    deps.background.runs.checkRoom(deps.background.session, policy);
    return undefined;
  } catch (e) {
    return deny(isToolError(e) ? e.code : 'LIMIT_REACHED', isToolError(e) && e.rule ? e.rule : 'background.cap', (e as Error).message);
  }
}

/**
 * A background start: the same execute (sandbox, egress proxy, executor) with the run's lifetime, signal, log and
 * input, on the background executor. Answers once its processes started; the run goes on, and its end is
 * recorded (runs.ts) when the executor reports it: every process gone, the proxy closed.
 */
async function startBackground(
  deps: CommandDeps, call: CallContext & { requestId: string }, request: CommandRequest, key: string, plan: CommandPlan, env: Record<string, string>,
  policy: Policy, isolation: IsolationState, gated: { waitedMs: number; approvedBy?: string }, note: { undone?: string }, developer: DeveloperContext | undefined,
): Promise<CommandResult> {
  const bg = deps.background!;
  let run;
  try {
    const place = bg.runs.reserve(bg.session, policy);
    run = place.open({ requestId: call.requestId, tool: call.tool, request, stages: plan.parsed.stages, cwd: plan.cwd.relative, isolation: isolation.kind }, request.background?.openInput === true);
  } catch (e) {
    return denied({ code: isToolError(e) ? e.code : 'LIMIT_REACHED', message: (e as Error).message, rule: isToolError(e) && e.rule ? e.rule : 'background.cap' }, isolation.kind, gated.waitedMs);
  }
  if (run.input && request.stdin !== undefined) run.input.write(request.stdin);
  const lifetime = lifetimeMs(request, policy);
  let started!: () => void;
  const onStart = new Promise<void>((resolve) => (started = resolve));
  // The run's own signal, not the starting call's: the call ends now, the run does not. No progress reports either.
  const runCall: CallContext = { tool: call.tool, requestId: call.requestId, signal: run.signal, ...(call.client && { client: call.client }) };
  const task = execute(deps, runCall, request, key, plan, env, policy, isolation, gated, note, developer, undefined, { executor: bg.executor, ...runSpec(run, lifetime, started) }, run);
  // Once started, only the executor's outcomes can come back (a refusal or a proxy failure happens before any start).
  const early = await whenStarted(task, onStart, (r, e) => run.finish(endOf(r as (CommandResult & { outcome: ExecOutcome }) | undefined, e, note.undone)));
  if (early) {
    // Nothing started: the result says why, and the run is not kept.
    bg.runs.discard(run);
    return early;
  }
  return {
    outcome: 'started', exitCode: null, signal: null, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false, stdoutBytes: 0, stderrBytes: 0,
    durationMs: 0, queueMs: 0, approvalMs: gated.waitedMs, isolation: isolation.kind,
    ...(gated.approvedBy && { approvedBy: gated.approvedBy }),
    ...(isolation.warning && { warning: isolation.warning }),
    background: { id: run.id, lifetimeSeconds: lifetime / 1000, inputOpen: run.input !== undefined },
  };
}

/** A state that names no launcher (tests' NO_ISOLATION) still starts contained: the platform's own, no sandbox. */
let fallback: Launcher | undefined;
const defaultLauncher = (): Launcher => (fallback ??= platformLauncher(null));

function notFound(name: string, why: string | undefined): ExecResult {
  return {
    outcome: 'error', exitCode: null, signal: null, stages: [], stdout: '', stderr: '', stdoutBytes: 0, stderrBytes: 0,
    stdoutTruncated: false, stderrTruncated: false, durationMs: 0, queueMs: 0, error: `spawn ${name} ENOENT: ${why ?? 'not found'}`,
  };
}

/** Minutes an "allow for 15 minutes" approval lasts. */
export const TIMED_APPROVAL_MS = 15 * 60 * 1000;

/**
 * "Allow for this session" and "allow for 15 minutes" are remembered for this exact command line. "Always" saves a
 * command rule (the one the person chose, when it covers this request; else the exact line): remembered for the
 * server's lifetime so the next call does not race the settings push, and kept by `saveRule` where the host does
 * not write it itself (standalone). A save that fails is reported in the audit log, never blocks the approved call.
 */
async function rememberApproval(deps: CommandDeps, checked: CheckedCommand, gated: { option?: ApprovalOption; rule?: string }): Promise<void> {
  const memory = deps.memory;
  if (!memory) return;
  if (gated.option === 'session') memory.allowForSession(checked.key);
  else if (gated.option === 'timed') memory.allowFor(checked.key, TIMED_APPROVAL_MS);
  else if (gated.option === 'always') {
    const rule = alwaysRule(checked, gated.rule);
    memory.addRule(rule);
    try {
      await deps.saveRule?.(rule);
    } catch (e) {
      deps.audit.record({ event: 'server', result_type: 'process_error', action: 'save-rule', rule, error: (e as Error).message });
    }
  }
}

/** The rule to keep for "Always": the person's, when it parses and covers the request it approved. */
export function alwaysRule(checked: Pick<CheckedCommand, 'key' | 'plan'>, chosen: string | undefined): string {
  if (chosen === undefined || !checked.plan) return checked.key;
  const parsed = parseRule(chosen);
  if ('error' in parsed || !ruleCoversRequest(parsed.rule, checked.plan.parsed, checked.key)) return checked.key;
  return chosen;
}

function denied(denial: Denial, isolation: string, approvalMs: number): CommandResult {
  return {
    outcome: 'denied', exitCode: null, signal: null, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false,
    stdoutBytes: 0, stderrBytes: 0, durationMs: 0, queueMs: 0, approvalMs, isolation, denial,
  };
}

/** The audit fields of a command request (mcp-shell-server's names), whether it ran or not. */
function auditSubject(request: CommandRequest, checked: CheckedCommand, policy: Policy, isolation: string) {
  const plan = checked.plan;
  const argv = Array.isArray(request.command) ? request.command.map(String) : [];
  return {
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
    isolation,
  };
}

export function approvalRequest(
  id: string, tool: string, v: Verdict & { kind: 'ask' }, checked: CheckedCommand, request: CommandRequest, isolation: string, background?: ApprovalCommand['background'],
): ApprovalRequest {
  const plan = checked.plan!;
  const runsAnyCode = plan.delegations.flatMap((d, stage) => (d ? [{ stage, note: delegationNote(d, isolation) }] : []));
  return {
    id,
    tool,
    rule: v.rule,
    reason: v.reason,
    key: checked.key,
    rules: checked.suggestedRules,
    command: {
      ...(checked.notListed.length && { notListed: checked.notListed }),
      ...(runsAnyCode.length && { runsAnyCode }),
      stages: plan.parsed.stages,
      cwd: plan.cwd.relative,
      ...(request.stdin !== undefined && { stdinPreview: request.stdin.split('\n').slice(0, 20).join('\n') }),
      ...(plan.stdinFile && { stdinFile: plan.stdinFile.relative }),
      ...(plan.stdoutFile && { stdoutFile: { path: plan.stdoutFile.target.relative, append: plan.stdoutFile.append } }),
      isolation,
      ...(background && { background }),
    },
  };
}
