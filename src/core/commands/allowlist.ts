import * as path from 'node:path';
import { settingLabel } from '../config/registry';
import { isWorkspaceGlobEntry, workspaceGlobOf } from '../config/values';
import { missAnswer, modesOf } from '../modes';
import { globToRegExp } from '../paths/glob';
import { stripPatternAnchors, type Policy } from '../policy';
import { allow, ask, deny, type Verdict } from '../verdict';
import type { Delegation } from './delegation';
import { resolveProgram, type ResolvedProgram } from './resolve';

/**
 * The allowlist: is this stage's program one the person listed? A program is listed by
 * - its name in `allowCommands`, or a full match of one of `allowPatterns`;
 * - for a program inside the workspace, a path glob relative to the folder (`node_modules/.bin/*`, `bin/bats`):
 *   a bare name never lists a workspace file (the agent could write one called `ls`);
 * - for a program called by a path outside the workspace, that path listed, or its base name listed when it IS the
 *   program that name finds on the PATH (not a copy in /tmp);
 * - for a program in `allowReadOnlyCommands`, the stage being known to be read-only (`git log`, not `git commit`);
 * - a saved command rule (`autoApprove`, "Always allow") covering the stage.
 * Equivalent spellings are listed as one program: `npm exec` runs packages as `npx` does, so it needs `npx`.
 * Anything else is a miss (`allowlist.not-listed`): decide.ts turns it into a question or a refusal (missVerdict).
 */

type ListPolicy = Pick<Policy, 'allowCommands' | 'allowPatterns' | 'allowReadOnlyCommands'>;

export interface ListedInput {
  readonly stage: readonly string[];
  readonly program?: ResolvedProgram;
  readonly delegation?: Delegation;
  /** The stage is known to be read-only (rules/readonly.ts). */
  readonly readOnly: boolean;
  /** A saved command rule covers this stage. */
  readonly coveredByRule: boolean;
  readonly pathEnv: string;
  readonly cwd: string;
}

export function checkListed(input: ListedInput, policy: ListPolicy): Verdict {
  if (input.coveredByRule) return allow('allowlist.rule');
  const d = input.delegation;
  if (d?.kind === 'workspace-program') {
    return matchesWorkspaceEntry(d.workspacePath!, policy.allowCommands) ? allow('allowlist.workspace-path') : notListed(d.what);
  }
  const name = d?.listedAs ?? input.stage[0]!;
  const byName = listedByName(name, input, policy);
  if (byName) return byName;
  if (input.readOnly && policy.allowReadOnlyCommands.includes(path.basename(name))) return allow('allowlist.read-only');
  return notListed(name);
}

function notListed(name: string): Verdict {
  return deny('COMMAND_NOT_ALLOWED', 'allowlist.not-listed', `Command not allowed: ${name} is not on the allowlist.`);
}

/**
 * The allowlist by NAME alone: listed, or a full match of a pattern; an absolute path by itself or by its base name
 * (`allowlist.path-basename`: the caller then checks it is the program that name finds, see listedByName). A
 * relative path is never listed by name: it is a workspace program (path-glob entries) or resolved to a path.
 */
export function checkAllowlist(name: string, policy: Pick<Policy, 'allowCommands' | 'allowPatterns'>): Verdict {
  if (policy.allowCommands.includes(name)) return allow('allowlist.name');
  const isPath = name.includes('/') || name.includes('\\');
  const base = isPath ? path.basename(name) : name;
  if (isPath && !path.isAbsolute(name)) {
    return deny('COMMAND_NOT_ALLOWED', 'allowlist.relative-path', `The command "${name}" is a relative path; it is listed only by a workspace path entry (such as "${name.replace(/^(\.\/)+/, '')}") in ${settingLabel('allowCommands')}.`);
  }
  if (policy.allowCommands.includes(base) || matchesPattern(base, policy.allowPatterns)) return allow(isPath ? 'allowlist.path-basename' : 'allowlist.pattern');
  return deny('COMMAND_NOT_ALLOWED', 'allowlist.not-listed', `Command not allowed: ${name}. Allowed: ${policy.allowCommands.join(', ') || '(none)'}${policy.allowPatterns.length ? `; patterns: ${policy.allowPatterns.join(', ')}` : ''}.`);
}

function listedByName(name: string, input: ListedInput, policy: ListPolicy): Verdict | undefined {
  // A relative path outside the workspace is judged as the absolute path it resolves to.
  const byName = checkAllowlist(input.program && /[/\\]/.test(name) && !path.isAbsolute(name) ? input.program.path : name, policy);
  if (byName.kind === 'deny') return undefined;
  if (byName.rule !== 'allowlist.path-basename') return byName;
  // A path listed by its base name only when it is the very program that name finds on the PATH.
  const base = path.basename(name);
  const listed = resolveProgram(base, { pathEnv: input.pathEnv, cwd: input.cwd });
  if (!input.program || 'notFound' in listed || listed.real !== input.program.real) {
    return deny('COMMAND_NOT_ALLOWED', 'allowlist.path-not-the-listed-program', `The program "${name}" is allowed only by its name "${base}", but it is not the file "${base}" names on the PATH${'notFound' in listed ? ' (no such program there)' : ` (${listed.real})`}. Call it as "${base}", or list the path itself.`);
  }
  return allow('allowlist.path-is-listed-program');
}

export function matchesWorkspaceEntry(relative: string, entries: readonly string[]): boolean {
  return entries.some((e) => isWorkspaceGlobEntry(e) && globToRegExp(workspaceGlobOf(e)).test(relative));
}

const compiled = new Map<string, RegExp>();

function matchesPattern(name: string, patterns: readonly string[]): boolean {
  for (const p of patterns) {
    let re = compiled.get(p);
    if (!re) {
      // Anchors written by the operator (`^cmd[0-9]+$`) are the full match this is anyway.
      re = new RegExp(`^(?:${stripPatternAnchors(p)})$`);
      compiled.set(p, re);
    }
    if (re.test(name)) return true;
  }
  return false;
}

/** What a person would add to allowCommands to list this stage (a workspace path, or the program name). */
export function entryFor(stage: readonly string[], delegation: Delegation | undefined): string {
  if (delegation?.kind === 'workspace-program') return delegation.workspacePath!;
  return delegation?.listedAs ?? stage[0]!;
}

/**
 * A miss as the mode has it (modes.ts missAnswer): a question naming what is missing where the mode asks about
 * commands; elsewhere a refusal that says why nobody was asked and where to allow it.
 */
export function missVerdict(stage: readonly string[], delegation: Delegation | undefined, policy: Pick<Policy, 'mode' | 'allowCommands' | 'allowPatterns' | 'allowReadOnlyCommands'>): Verdict {
  const name = stage[0]!;
  const entry = entryFor(stage, delegation);
  const readOnlyOnly = policy.allowReadOnlyCommands.includes(path.basename(entry));
  const what = delegation?.listedAs
    ? `"${delegation.what}" runs packages as ${delegation.listedAs} does, and ${delegation.listedAs} is not on your allowlist`
    : readOnlyOnly
      ? `${entry} is on your allowlist only in read-only forms (${settingLabel('allowReadOnlyCommands')}), and this is not one`
      : `${delegation?.kind === 'workspace-program' ? `the workspace program "${entry}"` : `"${name}"`} is not on your allowlist`;
  if (missAnswer(policy.mode) === 'ask') {
    return ask('allowlist.miss', `Not on your allowlist: ${what}. Allow it once, for this session, or always with a rule you can edit.`);
  }
  const why = modesOf(policy.mode).includes('readOnly')
    ? 'readOnly mode runs only allowlisted commands known to be read-only and asks nobody'
    : 'auto mode asks nobody, so a command not on the allowlist is refused';
  const allowed = `Allowed: ${policy.allowCommands.join(', ') || '(none)'}${policy.allowPatterns.length ? `; patterns: ${policy.allowPatterns.join(', ')}` : ''}${policy.allowReadOnlyCommands.length ? `; read-only forms of: ${policy.allowReadOnlyCommands.join(', ')}` : ''}.`;
  const route = readOnlyOnly
    ? `To allow other forms, add "${entry}" to ${settingLabel('allowCommands')}, or a rule such as "${[name, stage[1]].filter(Boolean).join(' ')} *" to ${settingLabel('autoApprove')}, in your user settings.`
    : `To allow it, add "${entry}" to ${settingLabel('allowCommands')} in your user settings, or a rule such as "${name} *" to ${settingLabel('autoApprove')}; or use a mode that asks (confirm, confirmChanges).`;
  return deny('COMMAND_NOT_ALLOWED', 'allowlist.not-listed', `Command not allowed: ${name} (${what}; ${why}). ${allowed} ${route}`);
}
