import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shell, tool, type Advice, type Answer, type Call, type Goal } from './agent';

/**
 * A small bug fix as an agent does it, for any project: the same goals in the same order, filled in from a
 * project's spec (which file holds the bug, how its tests, installs, scripts and lint run). The fixture projects
 * (fixtures.ts) and the real public projects (scripts/agent-job.mjs) are both described this way.
 */

/** A step of a project's own: its calls and the effect that shows it worked. */
export interface StepSpec {
  readonly calls: readonly Call[];
  readonly advised?: readonly Advice[];
  /** undefined when done, else why not. Default: the last call ran and exited 0. */
  readonly effect?: (last: Answer, ws: string) => string | undefined;
}

export interface ProjectSpec {
  readonly name: string;
  /** Names listFiles must show at the root. */
  readonly rootEntries: readonly string[];
  /** The bug: a line of `file` as it is (`bad`) and as the fix makes it (`good`), each one whole line. */
  readonly bug: { readonly file: string; readonly bad: string; readonly good: string; readonly edit: 'replaceInFile' | 'editFile' | 'applyPatch' };
  /** Searches for the bug; the output must contain `expect`. */
  readonly grep: { readonly command: readonly string[]; readonly expect: string };
  /** Goals before the install (e.g. a virtual environment). */
  readonly prepare?: readonly (StepSpec & { readonly id: string; readonly title: string })[];
  readonly install: StepSpec;
  /** Runs the tests: before the fix they fail printing `failMarker`; after it they pass printing `passMarker`. */
  readonly testFail: StepSpec & { readonly failMarker: string | RegExp };
  readonly testPass: StepSpec & { readonly passMarker: string | RegExp };
  readonly script: StepSpec & { readonly title: string };
  readonly oneLiner: StepSpec;
  readonly lint: StepSpec;
  /** The committer the server should give commands (from the person's git configuration), when known. */
  readonly identity?: { readonly name: string; readonly email: string };
}

const text = (a: Answer) => `${a.sc?.stdout ?? ''}${a.sc?.stderr ?? ''}${a.sc?.content ?? ''}` || a.text;
const has = (s: string, m: string | RegExp) => (typeof m === 'string' ? s.includes(m) : m.test(s));
const ranOk = (a: Answer) => (a.sc?.outcome === 'ok' ? undefined : `ended ${a.sc?.outcome}`);

/** The harness's own view of the repository (outside the server): the judge of git effects. */
export function hostGit(ws: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent-gs-agent', GIT_CONFIG_NOSYSTEM: '1' } });
  return r.status === 0 ? r.stdout : `git ${args.join(' ')} failed: ${r.stderr}`;
}

export const outputHas = (m: string | RegExp) => (a: Answer): string | undefined =>
  ranOk(a) ?? (has(text(a), m) ? undefined : `the output lacks ${String(m)}: ${text(a).slice(-300).replace(/\s+/g, ' ')}`);

export const fileExists = (...files: string[]) => (a: Answer, ws: string): string | undefined => {
  const missing = files.filter((f) => !fs.existsSync(path.join(ws, f)));
  return ranOk(a) ?? (missing.length ? `${missing.join(', ')} not there afterwards` : undefined);
};

function editCall(spec: ProjectSpec, ws: string): Call {
  const { file, bad, good, edit } = spec.bug;
  if (edit === 'replaceInFile') return tool('replaceInFile', { file, oldText: bad, newText: good });
  if (edit === 'editFile') {
    // sed: the whole bad line, as a basic regular expression, replaced by the good one.
    const bre = bad.replace(/[\\/.*[\]^$]/g, '\\$&');
    const rep = good.replace(/[\\/&]/g, '\\$&');
    return tool('editFile', { file, script: `s/^${bre}$/${rep}/` });
  }
  // A one-line hunk at the bug's line, as `git diff -U0` would write it.
  const i = fs.readFileSync(path.join(ws, file), 'utf8').split('\n').indexOf(bad);
  return tool('applyPatch', { file, diff: `--- a/${file}\n+++ b/${file}\n@@ -${i + 1} +${i + 1} @@\n-${bad}\n+${good}\n` });
}

/** The goals of the bug fix, in order. `ws` is where the project is (applyPatch's hunk is computed from it). */
export function planFor(spec: ProjectSpec, ws: string): Goal[] {
  const { file, bad, good } = spec.bug;
  const step = (id: string, title: string, s: StepSpec, extra: Partial<Goal> = {}): Goal => ({
    id, title, calls: s.calls, ...(s.advised && { advised: s.advised }), effect: s.effect ?? ((a) => ranOk(a)), ...extra,
  });
  const message = `Fix ${path.basename(file)}: ${good.trim().slice(0, 40)}`;
  const branch = hostGit(ws, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
  const head = hostGit(ws, 'log', '-1', '--format=%h %s').trim();
  const edit = editCall(spec, ws);
  return [
    step('list', 'list the project', { calls: [tool('listFiles', { path: '.' })] }, {
      effect: (a) => {
        const entries: string[] = a.sc?.entries ?? [];
        const missing = spec.rootEntries.filter((e) => !entries.some((x) => x.replace(/\/$/, '') === e));
        return missing.length ? `listFiles did not show ${missing.join(', ')}` : undefined;
      },
    }),
    step('read', `read ${file}`, { calls: [tool('readFile', { file })] }, {
      effect: (a) => (a.sc?.content?.includes(bad) ? undefined : `readFile did not return the line "${bad.trim()}"`),
    }),
    step('git-status', 'git status', { calls: [shell('git', 'status')] }, { effect: outputHas(`On branch ${branch}`) }),
    step('git-log', 'git log', { calls: [shell('git', 'log', '--oneline', '-5')] }, { effect: outputHas(head) }),
    step('grep', 'find the bug with grep', { calls: [shell(...spec.grep.command)] }, { effect: outputHas(spec.grep.expect) }),
    ...(spec.prepare ?? []).map((p) => step(p.id, p.title, p)),
    step('install', 'install the dependencies', spec.install),
    step('test-fail', 'run the tests (they fail)', spec.testFail, { expectFailure: true, effect: (a) => (has(text(a), spec.testFail.failMarker) ? undefined : `the tests did not fail with ${String(spec.testFail.failMarker)}: ${text(a).slice(-300).replace(/\s+/g, ' ')}`) }),
    step('edit', `fix the bug in ${file} (${edit.tool})`, { calls: [edit] }, {
      effect: (a, root) => {
        const now = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
        return a.sc?.outcome !== 'ok' ? `ended ${a.sc?.outcome}` : now.includes(good) && !now.includes(bad) ? undefined : `${file} does not hold the fix`;
      },
    }),
    step('git-diff', 'git diff', { calls: [shell('git', 'diff')] }, {
      effect: (a) => outputHas(`-${bad}`)(a) ?? outputHas(`+${good}`)(a),
    }),
    step('test-pass', 'run the tests again (they pass)', spec.testPass, { effect: outputHas(spec.testPass.passMarker) }),
    step('commit', 'commit the fix', { calls: [shell('git', 'add', file), shell('git', 'commit', '-m', message)] }, {
      effect: (a, root) => {
        const subject = hostGit(root, 'log', '-1', '--format=%s|%an <%ae>').trim();
        if (!subject.startsWith(`${message}|`)) return `the newest commit is "${subject}", not the fix`;
        if (!hostGit(root, 'show', '--name-only', '--format=', 'HEAD').split('\n').includes(file)) return `the commit does not hold ${file}`;
        const who = spec.identity && `${spec.identity.name} <${spec.identity.email}>`;
        return who && !subject.endsWith(`|${who}`) ? `committed as "${subject.split('|')[1]}", not as ${who}` : ranOk(a);
      },
    }),
    step('script', spec.script.title, spec.script),
    step('one-liner', 'an interpreter one-liner', spec.oneLiner),
    step('lint', 'lint', spec.lint),
  ];
}
