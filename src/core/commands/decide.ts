import * as fs from 'node:fs';
import * as path from 'node:path';
import { isToolError, ToolError } from '../errors';
import { isInside, relativeTo, resolveInside, type ResolvedPath } from '../paths/confine';
import { checkChangeable, checkReadable, guardFor } from '../paths/guard';
import { checkWritable } from '../paths/protected';
import type { Policy } from '../policy';
import type { Action } from '../modes';
import { decidePlanned } from '../pipeline';
import { allow, deny, type Verdict } from '../verdict';
import { buildChildEnv } from '../exec/env';
import { checkAllowlist } from './allowlist';
import { judgeCallEnv } from './callEnv';
import { checkGitLocation, filterDriverNames, locateGitRepository } from './gitRepo';
import { commandKey, parseCommand, type ParsedCommand } from './parse';
import { forbiddenAliasByIdentity, resolveProgram, type ResolvedProgram } from './resolve';
import { forbiddenCategory, judgeCommand, prepareArgv } from './rules';
import { gitLocation } from './rules/git';
import { isKnownReadOnlyJudged } from './rules/readonly';
import { attempt } from '../attempt';

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
  /**
   * Only commands known to be read-only may run (shell_readonly): a stage that is not, or an output redirect, is
   * refused — never asked — with a message naming the tool to use instead.
   */
  readonly readOnlyOnly?: { readonly tool: string; readonly instead?: string };
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
  /** Every stage is known to be read-only (rules/readonly.ts); a redirect is judged on its own. */
  readonly readOnly: boolean;
  /** The same, per stage. */
  readonly readOnlyStages: readonly boolean[];
  /**
   * Per stage: the program the PATH lookup found (judged by every name it has), and the argv to spawn — the
   * judged absolute path, then the arguments with the family hardening (sed --sandbox, read-only git).
   * Undefined for a stage whose program was not found: the executor is then not called at all (run.ts
   * reports an execution error; a later lookup could find a program nobody judged).
   */
  readonly programs: readonly (ResolvedProgram | undefined)[];
  /** Per stage, why the program was not found (undefined when it was). */
  readonly notFound: readonly (string | undefined)[];
  /** The PATH the lookup used (the child's). */
  readonly pathEnv: string;
  /** GIT_DIR / GIT_WORK_TREE of the child's environment, which choose the repository like --git-dir/--work-tree. */
  readonly gitEnv: { readonly gitDir?: string; readonly workTree?: string };
  readonly spawnArgv: readonly (readonly string[])[];
}

export interface DecideContext {
  /** True when a person already allowed this exact command line for the session / a time box. */
  readonly preApproved?: (key: string) => boolean;
  /** The server's environment, from which the child's PATH is chosen (default process.env). */
  readonly parentEnv?: NodeJS.ProcessEnv;
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
    const { plan, judged, gitLocations } = planCommand(request, policy, context);
    const checks: Verdict[] = [];
    plan.parsed.stages.forEach((stage, i) => {
      const listed = checkAllowlist(stage[0]!, policy);
      checks.push(listed);
      if (listed.kind === 'allow' && listed.rule === 'allowlist.path-basename') {
        // `/x/ls` is allowed as "ls" only when it IS the ls the PATH lookup finds (not a copy in /tmp).
        checks.push(checkSameAsListed(stage[0]!, plan.programs[i], plan.pathEnv, plan.cwd.real));
      }
      if (path.isAbsolute(stage[0]!)) checks.push(checkProgramOutsideWorkspace(stage[0]!, policy.root));
      checks.push(judgeCommand(stage));
      const program = plan.programs[i];
      // Not found: nothing to judge by file, and nothing will be spawned (run.ts reports the error).
      if (!program) return;
      // The real program: the file the PATH lookup found and its realpath (both from this call's lookup) are
      // judged too, and must not be files the agent could have written.
      checks.push(checkProgramOutsideWorkspace(program.path, policy.root, program.real));
      checks.push(judged[i]!); // judgeCommand(stage, { aliases: [program.path, program.real] }), judged once in planCommand
      // The same file as a never-runnable program on the PATH (a hard link or copy-by-link under another name).
      const twin = forbiddenAliasByIdentity(program.real, plan.pathEnv, (n) => forbiddenCategory(n) !== undefined);
      if (twin) checks.push(judgeCommand([twin, ...stage.slice(1)]));
      const git = gitLocations[i];
      if (git) {
        const refused = checkGitLocation(git, plan.cwd.real, policy.root);
        if (refused) checks.push(refused);
      }
    });
    const envVerdict = judgeCallEnv(request.env, policy.root);
    if (envVerdict) checks.push(envVerdict);
    if (plan.stdoutFile) {
      const protectedVerdict = checkWritable(plan.stdoutFile.target, policy);
      if (protectedVerdict) checks.push(protectedVerdict);
    }
    // The one list of hidden / read-only paths (and the hard-link rule) already when deciding, so nobody is asked
    // to approve a redirect that the open at use time would refuse (issue 12; the open checks again).
    const guardVerdict = checkRedirectsAgainstGuard(plan, policy);
    if (guardVerdict) checks.push(guardVerdict);
    // The stages decide between a read-only and another command; a redirect is its own action.
    const actions: Action[] = [plan.readOnly ? 'readOnlyCommand' : 'command', ...(plan.stdoutFile ? (['redirect'] as const) : [])];
    // After the rules: a form they refuse keeps their own reason (e.g. sed -i points to editFile).
    if (request.readOnlyOnly) {
      const refused = refuseUnlessReadOnly(plan, request.readOnlyOnly);
      if (refused) checks.push(refused);
    }
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

/**
 * The plan, and per stage what planning already judged by the program's every name (so checkCommand does not
 * judge it twice): `judgeCommand(stage, { aliases })` and where git looks for its repository (undefined for a
 * stage whose program was not found / that is not git).
 */
interface PlannedCommand {
  readonly plan: CommandPlan;
  readonly judged: readonly (Verdict | undefined)[];
  readonly gitLocations: readonly ReturnType<typeof gitStageLocation>[];
}

function planCommand(request: CommandRequest, policy: Policy, context: DecideContext): PlannedCommand {
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
  // The child's environment decides the PATH lookup (and which git configuration files exist for it).
  const childEnv = buildChildEnv({
    parentEnv: context.parentEnv ?? process.env,
    allowlist: policy.childEnvAllowlist,
    ...(policy.safePath !== undefined && { safePath: policy.safePath }),
    ...(request.env && { overrides: { ...request.env } }),
  });
  const programs: (ResolvedProgram | undefined)[] = [];
  const notFound: (string | undefined)[] = [];
  for (const stage of parsed.stages) {
    const r = resolveProgram(stage[0]!, { pathEnv: childEnv.PATH ?? '', cwd: cwd.real, ...(childEnv.PATHEXT !== undefined && { pathExt: childEnv.PATHEXT }) });
    programs.push('notFound' in r ? undefined : r);
    notFound.push('notFound' in r ? r.notFound : undefined);
  }
  const gitEnv = { ...(childEnv.GIT_DIR !== undefined && { gitDir: childEnv.GIT_DIR }), ...(childEnv.GIT_WORK_TREE !== undefined && { workTree: childEnv.GIT_WORK_TREE }) };
  // The stages alone: a redirect is its own action in the mode table.
  const readOnlyStages: boolean[] = [];
  const judged: (Verdict | undefined)[] = [];
  const gitLocations: ReturnType<typeof gitStageLocation>[] = [];
  const spawnArgv = parsed.stages.map((stage, i) => {
    const program = programs[i];
    const aliases = program ? [program.path, program.real] : [];
    const verdict = program ? judgeCommand(stage, { aliases }) : undefined;
    judged.push(verdict);
    let stageReadOnly = verdict !== undefined && isKnownReadOnlyJudged(stage, { aliases }, verdict);
    let gitReadOnly: { filterDrivers: readonly string[] } | undefined;
    const git = program ? gitStageLocation(stage, program, gitEnv) : undefined;
    gitLocations.push(git);
    if (stageReadOnly && git) {
      // Read-only git runs with configuration-driven programs off; that needs every filter name configured for
      // the repository this call uses (the own one, or a submodule/worktree git directory inside it).
      const located = locateGitRepository(git, cwd.real, policy.root);
      const filterDrivers = 'refused' in located ? undefined : filterDriverNames(located.repo ?? {}, childEnv);
      if (filterDrivers) gitReadOnly = { filterDrivers };
      else stageReadOnly = false;
    }
    readOnlyStages.push(stageReadOnly);
    const prepared = prepareArgv(stage, { aliases, ...(gitReadOnly && { gitReadOnly }) });
    return [program?.path ?? stage[0]!, ...prepared.slice(1)];
  });
  const readOnly = readOnlyStages.every(Boolean);
  const plan = { parsed, cwd, ...(stdinFile && { stdinFile }), ...(stdoutFile && { stdoutFile }), timeoutMs, readOnly, readOnlyStages, programs, spawnArgv, notFound, pathEnv: childEnv.PATH ?? '', gitEnv };
  return { plan, judged, gitLocations };
}

/**
 * shell_readonly's contract, on the same classification the mode table's read-only-command action uses
 * (plan.readOnly, from rules/readonly.ts): a stage not known to be read-only (an unknown program, a writing or
 * program-running option in any spelling, a program not found) or an output redirect is refused.
 */
function refuseUnlessReadOnly(plan: CommandPlan, only: NonNullable<CommandRequest['readOnlyOnly']>): Verdict | undefined {
  const instead = only.instead ? ` Use ${only.instead} for it (it may ask for approval).` : '';
  if (plan.stdoutFile) {
    return deny('NOT_READ_ONLY', 'tool.read-only-only.redirect', `${only.tool} runs only commands known to be read-only, and an output redirect (">" ${plan.stdoutFile.target.relative}) writes a file.${instead}`);
  }
  const i = plan.readOnlyStages.findIndex((ro) => !ro);
  if (i < 0) return undefined;
  const stage = plan.parsed.stages[i]!;
  const what = plan.programs[i] === undefined ? `the program "${stage[0]}" was not found` : `"${commandKey(stage)}" is not known to be read-only (a program not on the read-only list, or an option that writes or runs a program)`;
  return deny('NOT_READ_ONLY', 'tool.read-only-only.command', `${only.tool} runs only commands known to be read-only; ${what}.${instead}`);
}

function checkRedirectsAgainstGuard(plan: CommandPlan, policy: Policy): Verdict | undefined {
  if (!plan.stdinFile && !plan.stdoutFile) return undefined; // no redirect: nothing to open, no guard to build
  const g = guardFor(policy);
  const stat = (real: string) => attempt(() => fs.statSync(real, { bigint: true }));
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

function checkSameAsListed(name: string, program: ResolvedProgram | undefined, pathEnv: string, cwd: string): Verdict {
  const base = path.basename(name);
  const listed = resolveProgram(base, { pathEnv, cwd });
  if (!program || 'notFound' in listed || listed.real !== program.real) {
    return deny('COMMAND_NOT_ALLOWED', 'allowlist.path-not-the-listed-program', `The program "${name}" is allowed only by its name "${base}", but it is not the file "${base}" names on the PATH${'notFound' in listed ? ' (no such program there)' : ` (${listed.real})`}. Call it as "${base}", or list the path itself.`);
  }
  return allow('allowlist.path-is-listed-program');
}

/** For a git stage (by any of its names), where git will look for its repository; undefined otherwise. */
function gitStageLocation(stage: readonly string[], program: ResolvedProgram, gitEnv: CommandPlan['gitEnv']): ReturnType<typeof gitLocation> {
  const isGit = [stage[0]!, program.path, program.real].some((n) => /^git(-.*)?$/.test(path.basename(n).replace(/\.exe$/i, '').toLowerCase()));
  if (!isGit) return undefined;
  // Dashed programs (git-log) take no global options: their location is the working directory.
  const loc = (/^git-/i.test(path.basename(stage[0]!)) ? undefined : gitLocation(stage.slice(1))) ?? { chdirs: [], bare: false, rest: [] };
  // GIT_DIR / GIT_WORK_TREE in the child's environment (passed through by the operator) count like the options.
  return {
    ...loc,
    ...(loc.gitDir === undefined && gitEnv.gitDir !== undefined && { gitDir: gitEnv.gitDir }),
    ...(loc.workTree === undefined && gitEnv.workTree !== undefined && { workTree: gitEnv.workTree }),
  };
}

/**
 * A program named by absolute path must not live in the workspace (the agent can write there), nor lead into it.
 * `real`: its realpath when this call's PATH lookup has just taken it (resolve.ts, the same realpath), so the file
 * judged here is the one the alias rules judge.
 */
function checkProgramOutsideWorkspace(program: string, root: string, real = attempt(() => fs.realpathSync.native(program)) ?? path.resolve(program)): Verdict {
  // Without `real`: a missing program keeps its resolved name (the spawn fails clearly).
  if (isInside(root, path.resolve(program)) || isInside(root, real)) {
    return deny('COMMAND_NOT_ALLOWED', 'allowlist.workspace-program', `The program "${program}" is inside the workspace; only installed programs can run.`);
  }
  return allow('allowlist.path-outside-workspace');
}
