import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildChildEnv } from '../exec/env';
import { stripPatternAnchors, type Policy } from '../policy';
import { resolveProgram } from './resolve';
import { FORBIDDEN_CATEGORIES, judgeCommand } from './rules';
import { attempt } from '../attempt';

/**
 * Allowlist entries that cannot run without a sandbox: a listed name whose program runs any code given to it
 * (`bash`, `node`, or `editor` when it resolves to vim), and a pattern every match of which is such a program (the
 * seed's `python[0-9.]*`). With a sandbox (or the person's opt-in) every one of them runs. The host reports them once at start and leaves them out of what it advertises to the agent.
 * Pure apart from reading the PATH directories given.
 */
export interface UnrunnableEntry {
  readonly entry: string;
  readonly kind: 'command' | 'pattern';
  readonly reason: string;
}

export interface UnrunnableOptions {
  /**
   * The PATH children get; names are resolved on it and patterns are tried against the programs it holds.
   * Default: the child PATH built from the policy (safePath / pass-through) and `parentEnv`.
   */
  readonly pathEnv?: string;
  /** The server's environment (default process.env), for the default PATH. */
  readonly parentEnv?: NodeJS.ProcessEnv;
  /** Programs that run any code may run here (a sandbox is in force, or the person opted in): none is unrunnable. */
  readonly delegationAllowed?: boolean;
}

type AllowlistPolicy = Pick<Policy, 'allowCommands' | 'allowPatterns'> & Partial<Pick<Policy, 'childEnvAllowlist' | 'safePath'>>;

function childPath(policy: AllowlistPolicy, parentEnv: NodeJS.ProcessEnv): string | undefined {
  return attempt(() => buildChildEnv({ parentEnv, allowlist: policy.childEnvAllowlist ?? [], ...(policy.safePath !== undefined && { safePath: policy.safePath }) }).PATH);
}

/** Why a program name can never run (a COMMAND_FORBIDDEN verdict by any of its names), or undefined. */
function neverRuns(name: string, pathEnv: string | undefined): string | undefined {
  const byName = judgeCommand([name]);
  if (byName.kind === 'deny' && byName.code === 'COMMAND_FORBIDDEN') return byName.reason;
  if (pathEnv !== undefined && !name.includes('/')) {
    const r = resolveProgram(name, { pathEnv, cwd: '/' });
    if (!('notFound' in r)) {
      const byFile = judgeCommand([name], { aliases: [r.path, r.real] });
      if (byFile.kind === 'deny' && byFile.code === 'COMMAND_FORBIDDEN') return `${name} is ${r.real}: ${byFile.reason}`;
    }
  }
  return undefined;
}

function programsOnPath(pathEnv: string | undefined): string[] {
  if (pathEnv === undefined) return [];
  const names = new Set<string>();
  for (const dir of pathEnv.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    for (const n of attempt(() => fs.readdirSync(dir)) ?? []) names.add(n); // a missing PATH entry holds nothing
  }
  return [...names];
}

export function unrunnableAllowlistEntries(policy: AllowlistPolicy, options: UnrunnableOptions = {}): UnrunnableEntry[] {
  const out: UnrunnableEntry[] = [];
  if (options.delegationAllowed) return out;
  const pathEnv = options.pathEnv ?? childPath(policy, options.parentEnv ?? process.env);
  for (const entry of policy.allowCommands) {
    const why = neverRuns(entry, pathEnv);
    if (why) out.push({ entry, kind: 'command', reason: why });
  }
  if (policy.allowPatterns.length === 0) return out;
  const candidates = [...new Set([...Object.values(FORBIDDEN_CATEGORIES).flat(), ...programsOnPath(pathEnv)])];
  for (const entry of policy.allowPatterns) {
    const re = attempt(() => new RegExp(`^(?:${stripPatternAnchors(entry)})$`));
    if (!re) continue; // the policy schema refuses invalid patterns
    const matched = candidates.filter((c) => re.test(c));
    if (matched.length === 0) continue; // matches nothing known: it may name a program installed later
    // Stops at the first match that can run (a broad pattern such as `.*` is decided at once).
    if (!matched.some((c) => neverRuns(c, pathEnv) === undefined)) {
      const shown = matched.slice(0, 6).join(', ') + (matched.length > 6 ? ', …' : '');
      out.push({ entry, kind: 'pattern', reason: `every program it matches runs any code (${shown}): shells, interpreters, wrappers and programs with a shell escape run only inside a sandbox` });
    }
  }
  return out;
}
