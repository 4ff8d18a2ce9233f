import * as path from 'node:path';
import { settingLabel } from '../config/registry';
import { isInside } from '../paths/confine';
import { allow, deny, type Verdict } from '../verdict';
import type { ResolvedProgram } from './resolve';
import { baseCommandName, forbiddenCategory, namesToJudge } from './rules';
import type { ForbiddenCategory } from './rules/forbidden';

/**
 * Programs that run code they are GIVEN, whatever their arguments say: shells, interpreters, wrappers that start
 * another command, programs with a shell escape (rules/forbidden.ts lists them by name), package runners that
 * fetch and run a package by name (`npx`, `npm exec`, `pnpm dlx`, `uv tool run` …), and programs inside the
 * workspace (`./x.sh`, `bin/x`, `node_modules/.bin/x`), which the agent can write.
 *
 * Argument rules cannot bound what such a program does. The kernel sandbox can: with one in force they are ordinary
 * allowlistable programs (asked for like any command, the card saying that they run any code, inside the
 * sandbox). Without a sandbox they are refused unless the person opted in at user scope (`allowUnsandboxedCode`).
 */

export type DelegationKind = ForbiddenCategory | 'package-runner' | 'workspace-program';

export interface Delegation {
  readonly kind: DelegationKind;
  /** The name it is judged by (`python3`, `npm exec`, `bin/bats`). */
  readonly what: string;
  /**
   * The program name the allowlist must allow for this stage when it is not the program itself: `npm exec` runs
   * packages exactly as `npx` does, so both spellings need `npx` (one rule for equivalent spellings).
   */
  readonly listedAs?: string;
  /** Root-relative path of a workspace program (what path-glob allowlist entries and rules are matched against). */
  readonly workspacePath?: string;
}

export const DELEGATION_TEXT: Readonly<Record<DelegationKind, string>> = {
  shell: 'a shell, which runs any command given to it',
  interpreter: 'an interpreter, which runs any code given in its arguments, files or input',
  wrapper: 'a wrapper whose job is to start another command',
  'shell-escape': 'an interactive program that can start other commands',
  'package-runner': 'a package runner, which fetches and runs any package or command by name',
  'workspace-program': 'a program inside the workspace, which the agent can write',
};

/** Examples per kind, for the docs' boundary table (scripts/reference.ts). */
export const DELEGATION_EXAMPLES: Readonly<Record<DelegationKind, string>> = {
  shell: '`bash script.sh`, `sh -c …`',
  interpreter: '`python3 -m pytest`, `python3 -m venv .venv`, `node -e …`',
  wrapper: '`npx ava`, `env X=1 make`, `timeout 60 make test`, `xargs`',
  'shell-escape': '`less`, `vim`, `ssh`, `psql`',
  'package-runner': '`npm exec -- ava` / `npm x` (as `npx`), `pnpm dlx`, `uv run`, `poetry run`',
  'workspace-program': '`./install.sh`, `bin/bats`, `node_modules/.bin/ava`, `.venv/bin/pytest`',
};

export const DELEGATION_KINDS = Object.keys(DELEGATION_TEXT) as DelegationKind[];

/**
 * Subcommands of package managers that run a named package or any command. Everything NOT in `known` is treated
 * as a runner: npm expands abbreviations (`npm exe` is `npm exec`), pnpm and yarn run an unknown word as a
 * script or a package binary, and option values can stand before the subcommand; an allowlist of subcommands
 * cannot leak where a list of runner spellings would. `equivalent`: the runner program these forms are.
 */
interface RunnerFamily {
  readonly known: ReadonlySet<string>;
  readonly runners: ReadonlySet<string>;
  readonly equivalent?: string;
}

const set = (s: string) => new Set(s.split(/\s+/).filter(Boolean));

const RUNNER_FAMILIES: Readonly<Record<string, RunnerFamily>> = {
  // npm's commands and aliases (npm 11 lib/utils/cmd-list.js) minus exec/x, explore, init/create (an initializer
  // is a package it runs). Typos npm also accepts are not listed: they count as runners (asked, never assumed safe).
  npm: {
    known: set(`access adduser audit bugs cache ci completion config dedupe deprecate diff dist-tag docs doctor edit
      explain fund get help help-search hook install install-ci-test install-test link ll login logout ls org outdated
      owner pack ping pkg prefix profile prune publish query rebuild repo restart root run run-script sbom search set
      shrinkwrap star stars start stop team test token undeprecate uninstall unpublish unstar update version view
      whoami i it cit u up c s se tst t ddp v why la ic ln list rb rm r un unlink remove add upgrade isntall
      clean-install clean-install-test in ins inst insta instal`),
    runners: set('exec x explore init create innit'),
    equivalent: 'npx',
  },
  pnpm: {
    known: set(`install i add update up upgrade remove rm uninstall un link ln unlink import rebuild rb prune fetch
      install-test it dedupe test t run start audit list ls ll outdated why licenses publish pack store root bin
      config c patch patch-commit deploy doctor setup env`),
    runners: set('dlx exec create'),
    equivalent: 'pnpx',
  },
  yarn: {
    known: set(`install add remove up upgrade test run info why pack publish version config cache dedupe audit npm
      init constraints set plugin explain link unlink rebuild`),
    runners: set('dlx exec create node workspace workspaces'),
  },
  uv: {
    known: set('pip venv sync lock add remove tree python version init build publish export cache self help auth format'),
    runners: set('run tool'),
    equivalent: 'uvx',
  },
  poetry: { known: set('install add remove update lock show build publish check config env init new version export search source self about list'), runners: set('run shell') },
  pipenv: { known: set('install uninstall lock sync update clean graph check requirements verify --version'), runners: set('run shell') },
};

/** The first word that is not an option: the subcommand a package manager will (at most) act on. */
function subcommand(args: readonly string[]): string | undefined {
  return args.find((a) => !a.startsWith('-'));
}

function runnerForm(names: readonly string[], args: readonly string[]): Delegation | undefined {
  for (const n of names) {
    const base = baseCommandName(n);
    const fam = RUNNER_FAMILIES[base];
    if (!fam) continue;
    const sub = subcommand(args);
    if (sub === undefined) return undefined; // `npm --version`, `npm` alone: usage text
    if (fam.known.has(sub) && !fam.runners.has(sub)) return undefined;
    return { kind: 'package-runner', what: `${base} ${sub}`, ...(fam.equivalent && { listedAs: fam.equivalent }) };
  }
  return undefined;
}

export interface DelegationInput {
  /** The stage's argv as given. */
  readonly stage: readonly string[];
  /** What the PATH lookup found (undefined: not found, nothing will run). */
  readonly program?: ResolvedProgram;
  /** The workspace root (real path). */
  readonly root: string;
  /** A never-runnable name the program's file also has (a hard link found by identity, resolve.ts). */
  readonly twin?: string;
}

/** How a stage delegates code, or undefined when it runs a program judged by its arguments alone. */
export function delegationOf(input: DelegationInput): Delegation | undefined {
  const { stage, program, root } = input;
  const name = stage[0]!;
  const inWorkspace = program ? [program.path, program.real].find((p) => isInside(root, p)) : undefined;
  if (inWorkspace !== undefined) {
    const rel = path.relative(root, program!.path);
    const shown = isInside(root, program!.path) ? rel.split(path.sep).join('/') : path.relative(root, inWorkspace).split(path.sep).join('/');
    return { kind: 'workspace-program', what: shown, workspacePath: shown };
  }
  const names = namesToJudge(name, program ? [program.path, program.real] : []);
  for (const n of [...names, ...(input.twin ? [input.twin] : [])]) {
    const category = forbiddenCategory(n);
    if (category) return { kind: category, what: baseCommandName(n) };
  }
  return runnerForm(names, stage.slice(1));
}

/** The rule id of a refused delegation (kept from the never-runnable names: `forbidden.shell` …). */
export function delegationRule(kind: DelegationKind): string {
  return kind === 'workspace-program' ? 'allowlist.workspace-program' : `forbidden.${kind}`;
}

/**
 * Inside a sandbox (or with the person's opt-in) a delegating program is allowed by this rule; without one it is
 * refused, naming the routes that work: a sandbox, the opt-in, or the project's own script.
 */
export function delegationVerdict(d: Delegation, where: { readonly sandboxed: boolean; readonly optedIn: boolean }): Verdict {
  if (where.sandboxed) return allow('delegation.sandboxed');
  if (where.optedIn) return allow('delegation.unsandboxed-opt-in');
  const script = d.kind === 'interpreter' || d.kind === 'package-runner' || d.kind === 'workspace-program'
    ? ' Or run it through a project script whose program is on your allowlist (npm test, make test).'
    : '';
  return deny(
    'COMMAND_FORBIDDEN',
    delegationRule(d.kind),
    `"${d.what}" is ${DELEGATION_TEXT[d.kind]}, so it runs only inside a sandbox, and commands here run without one. ` +
      `It works with a sandbox: ${settingLabel('isolation')} "auto" or "required" where bubblewrap (Linux) can run. ` +
      `Or set ${settingLabel('allowUnsandboxedCode')} in your user settings to run such programs without a sandbox, with your own permissions.${script}`,
  );
}

/** One line for an approval card: the stage runs any code, and where. */
export function delegationNote(d: Delegation, sandbox: string): string {
  return sandbox === 'none'
    ? `"${d.what}" is ${DELEGATION_TEXT[d.kind]}: it runs any code WITHOUT a sandbox, with your own permissions (allowUnsandboxedCode is on).`
    : `"${d.what}" is ${DELEGATION_TEXT[d.kind]}: it runs any code, inside the sandbox (${sandbox}): it can change this folder but not your home folder or system.`;
}
