import * as fs from 'node:fs';
import * as path from 'node:path';
import { isToolError, ToolError } from '../errors';
import { isInside, relativeTo, resolveInside, type ResolvedPath } from '../paths/confine';
import { checkWritable } from '../paths/protected';
import type { Policy } from '../policy';
import type { Action } from '../modes';
import { decidePlanned } from '../pipeline';
import { allow, deny, type Verdict } from '../verdict';
import { checkAllowlist } from './allowlist';
import { commandKey, parseCommand, type ParsedCommand } from './parse';
import { judgeCommand } from './rules';
import { isKnownReadOnly } from './rules/readonly';

export interface CommandRequest {
  /** argv with optional discrete `|`, `<`, `>`, `>>` elements. */
  readonly command: readonly string[];
  /** Working directory, relative to the workspace root (or absolute inside it). */
  readonly directory?: string;
  readonly stdin?: string;
  readonly timeoutSeconds?: number;
  /** Per-call environment overrides; only names on the child-environment allowlist are accepted. */
  readonly env?: Readonly<Record<string, string>>;
  /** Every element is data: "|", "<", ">" and ">>" are not operators (cmdshellmcp's tool has no pipelines). */
  readonly literal?: boolean;
}

export interface CommandDecision {
  readonly verdict: Verdict;
  /** The exact command line (for auto-approve rules and the approval card). */
  readonly key: string;
  /** Present when parsing and path resolution succeeded (also for ask/deny by mode, for display). */
  readonly plan?: CommandPlan;
}

export interface CommandPlan {
  readonly parsed: ParsedCommand;
  readonly cwd: ResolvedPath;
  readonly stdinFile?: ResolvedPath;
  readonly stdoutFile?: { readonly target: ResolvedPath; readonly append: boolean };
  readonly timeoutMs: number;
  readonly readOnly: boolean;
}

export interface DecideContext {
  /** True when a person already allowed this exact command line for the session / a time box. */
  readonly preApproved?: (key: string) => boolean;
}

export interface CheckedCommand {
  /** The exact command line (for auto-approve rules and the approval card). */
  readonly key: string;
  readonly plan?: CommandPlan;
  /** The rules' verdicts: syntax, confinement, allowlist, argument rules, protected redirect targets. */
  readonly checks: readonly Verdict[];
  /** For the mode table: what the command does. */
  readonly actions: readonly Action[];
  readonly preApproved: boolean;
}

/**
 * Plans a command request and checks every rule except the mode (the pipeline adds the mode table's answer).
 * Pure apart from reading the file system to resolve paths. Never throws: every problem becomes a deny verdict.
 */
export function checkCommand(request: CommandRequest, policy: Policy, context: DecideContext = {}): CheckedCommand {
  const key = Array.isArray(request.command) ? commandKey(request.command, { literal: request.literal === true }) : '';
  const preApproved = policy.autoApprove.includes(key) || (context.preApproved?.(key) ?? false);
  try {
    const plan = planCommand(request, policy);
    const checks: Verdict[] = [];
    for (const stage of plan.parsed.stages) {
      checks.push(checkAllowlist(stage[0]!, policy));
      if (path.isAbsolute(stage[0]!)) checks.push(checkProgramOutsideWorkspace(stage[0]!, policy.root));
      checks.push(judgeCommand(stage));
    }
    if (plan.stdoutFile) {
      const protectedVerdict = checkWritable(plan.stdoutFile.target, policy);
      if (protectedVerdict) checks.push(protectedVerdict);
    }
    // The stages decide between a read-only and another command; a redirect is its own action.
    const actions: Action[] = [plan.readOnly ? 'readOnlyCommand' : 'command', ...(plan.stdoutFile ? (['redirect'] as const) : [])];
    return { key, plan, checks, actions, preApproved };
  } catch (e) {
    const verdict = isToolError(e)
      ? deny(e.code, e.rule ?? 'request.invalid', e.message)
      : deny('BAD_REQUEST', 'request.invalid', `The request could not be understood: ${(e as Error).message}`);
    return { key, checks: [verdict], actions: [], preApproved };
  }
}

/** THE decision for a command request: its rules and the mode table, exactly as the pipeline decides it. */
export function decideCommand(request: CommandRequest, policy: Policy, context: DecideContext = {}): CommandDecision {
  const checked = checkCommand(request, policy, context);
  const verdict = decidePlanned(policy, { ...checked, what: `"${checked.key}"` });
  return { verdict, key: checked.key, ...(checked.plan && { plan: checked.plan }) };
}

function planCommand(request: CommandRequest, policy: Policy): CommandPlan {
  const parsed = parseCommand(request.command, { literal: request.literal === true });
  const cwd = resolveInside(policy.root, request.directory ?? '.', { what: 'working directory' });
  if (!cwd.exists || !fs.statSync(cwd.real).isDirectory()) {
    throw new ToolError('PATH_NOT_FOUND', `The working directory "${request.directory}" does not exist or is not a directory.`, 'request.directory');
  }
  // Redirect targets stay inside the call's working directory (mcp-shell-server's rule), judged by real path.
  let stdinFile: ResolvedPath | undefined;
  if (parsed.stdinFile !== undefined) {
    stdinFile = resolveInside(cwd.real, parsed.stdinFile, { what: 'input redirect' });
    if (!stdinFile.exists || !fs.statSync(stdinFile.real).isFile()) {
      throw new ToolError('PATH_NOT_FOUND', `The input redirect "${parsed.stdinFile}" is not an existing regular file.`, 'redirect.input');
    }
    stdinFile = rootRelative(policy.root, stdinFile);
  }
  let stdoutFile: CommandPlan['stdoutFile'];
  if (parsed.stdoutFile) {
    const target = resolveInside(cwd.real, parsed.stdoutFile.path, { what: 'output redirect' });
    if (target.exists && !fs.statSync(target.real).isFile()) {
      throw new ToolError('BAD_REQUEST', `The output redirect "${parsed.stdoutFile.path}" is not a regular file.`, 'redirect.output');
    }
    stdoutFile = { target: rootRelative(policy.root, target), append: parsed.stdoutFile.append };
  }
  const timeoutMs = effectiveTimeoutSeconds(request.timeoutSeconds, policy) * 1000;
  // The stages alone: a redirect is its own action in the mode table.
  const readOnly = parsed.stages.every((s) => isKnownReadOnly(s));
  return { parsed, cwd, ...(stdinFile && { stdinFile }), ...(stdoutFile && { stdoutFile }), timeoutMs, readOnly };
}

/** Re-expresses a path resolved against the working directory relative to the workspace root (for display). */
function rootRelative(root: string, p: ResolvedPath): ResolvedPath {
  // Already resolved inside the working directory, which is inside the root: no second walk of the disk.
  return { ...p, relative: relativeTo(root, p.real) };
}

/** The client's timeout, clamped to the server's maximum; the default when omitted. */
export function effectiveTimeoutSeconds(requested: number | undefined, policy: Pick<Policy, 'defaultTimeoutSeconds' | 'maxTimeoutSeconds'>): number {
  if (requested === undefined) return policy.defaultTimeoutSeconds;
  if (!Number.isFinite(requested) || requested <= 0) throw new ToolError('BAD_REQUEST', `The timeout must be a positive number of seconds (got ${requested}).`, 'request.timeout');
  return Math.min(requested, policy.maxTimeoutSeconds);
}

/** A program named by absolute path must not live in the workspace (the agent can write there), nor lead into it. */
function checkProgramOutsideWorkspace(program: string, root: string): Verdict {
  let real = path.resolve(program);
  try {
    real = fs.realpathSync.native(program);
  } catch {
    /* missing: the spawn fails with a clear error */
  }
  if (isInside(root, path.resolve(program)) || isInside(root, real)) {
    return deny('COMMAND_NOT_ALLOWED', 'allowlist.workspace-program', `The program "${program}" is inside the workspace; only installed programs can run.`);
  }
  return allow('allowlist.path-outside-workspace');
}
