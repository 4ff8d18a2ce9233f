import * as fs from 'node:fs';
import * as path from 'node:path';
import { isToolError, ToolError } from '../errors';
import { relativeTo, resolveInside, type ResolvedPath } from '../paths/confine';
import { checkChangeable, checkReadable, guardFor } from '../paths/guard';
import { checkWritable } from '../paths/protected';
import type { Policy } from '../policy';
import type { Action } from '../modes';
import { decidePlanned } from '../pipeline';
import { deny, type Verdict } from '../verdict';
import { buildChildEnv } from '../exec/env';
import type { DeveloperContext } from '../exec/developer/context';
import { checkListed, missVerdict } from './allowlist';
import { ruleCoverage, suggestRules } from './commandRules';
import { delegationOf, delegationVerdict, type Delegation } from './delegation';
import { judgeCallEnv, perCallEnvAllowlist } from './callEnv';
import { judgeGitConfiguration } from './gitConfig';
import { checkGitLocation, locateGitRepository } from './gitRepo';
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
  /** Per-call environment overrides: reviewed harmless names, or names the operator passes through (callEnv.ts). */
  readonly env?: Readonly<Record<string, string>>;
  /** Every element is data: "|", "<", ">" and ">>" are not operators (cmdshellmcp's tool has no pipelines). */
  readonly literal?: boolean;
  /**
   * Only commands known to be read-only may run (shell_readonly): a stage that is not, or an output redirect, is
   * refused — never asked — with a message naming the tool to use instead.
   */
  readonly readOnlyOnly?: { readonly tool: string; readonly instead?: string };
  /**
   * Start it in the background (src/core/background): the call returns once it started, with a run id; `timeoutSeconds`
   * is then its lifetime, capped by backgroundMaxSeconds. `openInput`: its stdin stays open for input sent later.
   */
  readonly background?: { readonly openInput: boolean };
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
  /** Per stage, why a stage the rules call read-only is not (its git configuration), for the refusal message. */
  readonly readOnlyNotes?: readonly (string | undefined)[];
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
  /** Per stage: how it runs code it is given (an interpreter, a workspace program …), or undefined. */
  readonly delegations: readonly (Delegation | undefined)[];
}

export interface DecideContext {
  /** True when a person already allowed this exact command line for the session / a time box. */
  readonly preApproved?: (key: string) => boolean;
  /** Rules a person saved with "Always allow" in this server's lifetime (before the settings push brings them). */
  readonly sessionRules?: () => readonly string[];
  /**
   * True when the command will run inside a kernel sandbox: then programs that run any code given to them
   * (delegation.ts) are ordinary allowlistable programs. False or absent: they are refused unless the person
   * opted in (allowUnsandboxedCode).
   */
  readonly sandboxed?: boolean;
  /** The server's environment, from which the child's PATH is chosen (default process.env). */
  readonly parentEnv?: NodeJS.ProcessEnv;
  /** The developer's context the command will run with (HOME, toolchain folders on PATH, git identity). */
  readonly developer?: DeveloperContext;
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
  /** Stages (indexes) not on the allowlist that a person is asked about (the card says so). */
  readonly notListed: readonly number[];
  /** What "Always allow" offers, most specific first. */
  readonly suggestedRules: readonly string[];
}

/**
 * Plans a command request and checks every rule except the mode (the pipeline adds the mode table's answer).
 * Pure apart from reading the file system to resolve paths. Never throws: every problem becomes a deny verdict.
 */
export function checkCommand(request: CommandRequest, policy: Policy, context: DecideContext = {}): CheckedCommand {
  const key = Array.isArray(request.command) ? commandKey(request.command, { literal: request.literal === true }) : '';
  const rules = [...policy.autoApprove, ...(context.sessionRules?.() ?? [])];
  try {
    // The per-call environment first: planning builds the child's environment from it (callEnv.ts: harmless names,
    // or names the operator passes through that are not in a refused family).
    const envVerdict = judgeCallEnv(request.env, policy.root, { operatorAllowlist: policy.childEnvAllowlist });
    if (envVerdict) return { key, checks: [envVerdict], actions: [], preApproved: false, notListed: [], suggestedRules: [] };
    const { plan, judged, gitLocations } = planCommand(request, policy, context);
    const coverage = ruleCoverage(rules, plan.parsed, key, context.preApproved);
    const checks: Verdict[] = [];
    const notListed: number[] = [];
    plan.parsed.stages.forEach((stage, i) => {
      const program = plan.programs[i];
      const delegation = plan.delegations[i];
      // First: a program that runs any code needs the sandbox (or the opt-in); that refusal is the one to report.
      if (delegation) checks.push(delegationVerdict(delegation, { sandboxed: context.sandboxed === true, optedIn: policy.allowUnsandboxedCode }));
      const listed = checkListed({ stage, program, delegation, readOnly: plan.readOnlyStages[i] === true, coveredByRule: coverage.stages[i] === true, pathEnv: plan.pathEnv, cwd: plan.cwd.real }, policy);
      if (listed.kind === 'deny' && listed.rule === 'allowlist.not-listed' && program) {
        // A miss: a question where the mode asks about commands, a refusal (saying where it works) elsewhere.
        const miss = missVerdict(stage, delegation, policy);
        if (miss.kind === 'ask') notListed.push(i);
        checks.push(miss);
      } else checks.push(listed);
      // Name sanity and the argument rules by the name as given (a program not found is judged by its name alone).
      // Delegation was judged above, by every name of the program: the rules judge arguments.
      checks.push(judgeCommand(stage, { delegationJudged: true }));
      // Not found: nothing to judge by file, and nothing will be spawned (run.ts reports the error).
      if (!program) return;
      checks.push(judged[i]!); // judgeCommand(stage, { aliases: [program.path, program.real] }), judged once in planCommand
      const git = gitLocations[i];
      if (git) {
        const refused = checkGitLocation(git, plan.cwd.real, policy.root);
        if (refused) checks.push(refused);
      }
    });
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
    return { key, plan, checks, actions, preApproved: coverage.all, notListed, suggestedRules: suggestRules(plan.parsed, key) };
  } catch (e) {
    const verdict = isToolError(e)
      ? deny(e.code, e.rule ?? 'request.invalid', e.message)
      : deny('BAD_REQUEST', 'request.invalid', `The request could not be understood: ${(e as Error).message}`);
    return { key, checks: [verdict], actions: [], preApproved: false, notListed: [], suggestedRules: [] };
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
    allowlist: perCallEnvAllowlist(policy.childEnvAllowlist, request.env),
    ...(policy.safePath !== undefined && { safePath: policy.safePath }),
    ...(request.env && { overrides: { ...request.env } }),
    ...(context.developer && { developer: context.developer }),
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
  const readOnlyNotes: (string | undefined)[] = [];
  const judged: (Verdict | undefined)[] = [];
  const gitLocations: ReturnType<typeof gitStageLocation>[] = [];
  const delegations: (Delegation | undefined)[] = [];
  const spawnArgv = parsed.stages.map((stage, i) => {
    const program = programs[i];
    const aliases = program ? [program.path, program.real] : [];
    // The same file as a never-runnable program on the PATH (a hard link or copy-by-link under another name).
    const twin = program ? forbiddenAliasByIdentity(program.real, childEnv.PATH ?? '', (n) => forbiddenCategory(n) !== undefined) : undefined;
    const delegation = delegationOf({ stage, ...(program && { program }), root: policy.root, ...(twin && { twin }) });
    delegations.push(delegation);
    // Delegation is judged by checkCommand (delegation.ts); the rules here judge the arguments by every name.
    const verdict = program ? judgeCommand(stage, { aliases, delegationJudged: true }) : undefined;
    judged.push(verdict);
    // A program that runs any code given to it is never known to be read-only, whatever its arguments.
    let stageReadOnly = delegation === undefined && verdict !== undefined && isKnownReadOnlyJudged(stage, { aliases }, verdict);
    let gitReadOnly: { filterDrivers: readonly string[] } | undefined;
    const git = program ? gitStageLocation(stage, program, gitEnv) : undefined;
    gitLocations.push(git);
    if (stageReadOnly && git) {
      // Read-only git: the repository this call uses (the own one, or a submodule/worktree git directory inside
      // it) may set only harmless configuration keys, and runs with configuration-driven programs off, every
      // configured filter name included (gitConfig.ts).
      const located = locateGitRepository(git, cwd.real, policy.root);
      const config = 'refused' in located ? undefined : judgeGitConfiguration(located.repo ?? {}, childEnv, policy.root);
      if (config && 'filterDrivers' in config) gitReadOnly = { filterDrivers: config.filterDrivers };
      else stageReadOnly = false;
      if (config && 'notReadOnly' in config) readOnlyNotes[i] = config.notReadOnly;
    }
    readOnlyStages.push(stageReadOnly);
    const prepared = prepareArgv(stage, { aliases, ...(gitReadOnly && { gitReadOnly }) });
    return [program?.path ?? stage[0]!, ...prepared.slice(1)];
  });
  const readOnly = readOnlyStages.every(Boolean);
  const plan = { parsed, cwd, ...(stdinFile && { stdinFile }), ...(stdoutFile && { stdoutFile }), timeoutMs, readOnly, readOnlyStages, ...(readOnlyNotes.length && { readOnlyNotes }), programs, spawnArgv, notFound, pathEnv: childEnv.PATH ?? '', gitEnv, delegations };
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
  const note = plan.readOnlyNotes?.[i];
  const what = plan.programs[i] === undefined
    ? `the program "${stage[0]}" was not found`
    : note !== undefined
      ? `"${commandKey(stage)}" is not read-only here: ${note}`
      : `"${commandKey(stage)}" is not known to be read-only (a program not on the read-only list, or an option that writes or runs a program)`;
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
