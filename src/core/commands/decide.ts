import * as fs from 'node:fs';
import * as path from 'node:path';
import { isToolError, ToolError } from '../errors';
import { isInside, relativeTo, resolveInside, type ResolvedPath } from '../paths/confine';
import { checkChangeable, checkReadable, guardFor } from '../paths/guard';
import { checkWritable } from '../paths/protected';
import type { Policy } from '../policy';
import { allow, ask, deny, strictest, type Verdict } from '../verdict';
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

/**
 * THE decision for a command request: syntax, confinement, allowlist, argument rules, mode. Pure apart from
 * reading the file system to resolve paths. Never throws: every problem becomes a deny verdict with a code.
 */
export function decideCommand(request: CommandRequest, policy: Policy, context: DecideContext = {}): CommandDecision {
  const key = Array.isArray(request.command) ? commandKey(request.command, { literal: request.literal === true }) : '';
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
    // The one list of hidden / read-only paths (and the hard-link rule) already when deciding, so nobody is asked
    // to approve a redirect that the open at use time would refuse (issue 12; the open checks again).
    const guardVerdict = checkRedirectsAgainstGuard(plan, policy);
    if (guardVerdict) checks.push(guardVerdict);
    checks.push(modeVerdict(plan, policy, key, context));
    return { verdict: strictest(checks), key, plan };
  } catch (e) {
    if (isToolError(e)) return { verdict: deny(e.code, e.rule ?? 'request.invalid', e.message), key };
    return { verdict: deny('BAD_REQUEST', 'request.invalid', `The request could not be understood: ${(e as Error).message}`), key };
  }
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
  const readOnly = !stdoutFile && parsed.stages.every((s) => isKnownReadOnly(s));
  return { parsed, cwd, ...(stdinFile && { stdinFile }), ...(stdoutFile && { stdoutFile }), timeoutMs, readOnly };
}

function checkRedirectsAgainstGuard(plan: CommandPlan, policy: Policy): Verdict | undefined {
  const g = guardFor(policy);
  const stat = (real: string) => {
    try {
      return fs.statSync(real, { bigint: true });
    } catch {
      return undefined;
    }
  };
  try {
    if (plan.stdinFile) {
      const st = stat(plan.stdinFile.real);
      checkReadable(g, { relative: plan.stdinFile.relative, real: plan.stdinFile.real, ...(st && { st }) });
    }
    if (plan.stdoutFile) {
      const st = stat(plan.stdoutFile.target.real);
      checkChangeable(g, { relative: plan.stdoutFile.target.relative, real: plan.stdoutFile.target.real, ...(st && { st }) }, { inPlace: true });
    }
  } catch (e) {
    if (isToolError(e)) return deny(e.code, e.rule ?? 'path.guard', e.message);
    throw e;
  }
  return undefined;
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

function modeVerdict(plan: CommandPlan, policy: Policy, key: string, context: DecideContext): Verdict {
  const preApproved = policy.autoApprove.includes(key) || (context.preApproved?.(key) ?? false);
  switch (policy.mode) {
    case 'auto':
      return allow('mode.auto');
    case 'readOnly':
      if (plan.stdoutFile) return deny('MODE_READ_ONLY', 'mode.read-only.redirect', 'Read-only mode: output redirects write files and are not allowed.');
      if (!plan.readOnly) return deny('MODE_READ_ONLY', 'mode.read-only.command', `Read-only mode: "${key}" is not a command known to be read-only.`);
      return allow('mode.read-only');
    case 'confirmChanges':
      // Commands known to be read-only run at once; anything that writes (a redirect, or a program not known
      // to be read-only, such as cp or touch) is a change and is confirmed.
      if (plan.readOnly) return allow('mode.confirm-changes.read-only');
      if (preApproved) return allow('approval.remembered');
      if (plan.stdoutFile) return ask('mode.confirm-changes', `The command writes "${plan.stdoutFile.target.relative}".`);
      return ask('mode.confirm-changes', `"${key}" is not known to be read-only, so it may change files.`);
    case 'confirm':
      if (preApproved) return allow('approval.remembered');
      return ask('mode.confirm', 'Every command is confirmed in this mode.');
  }
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
