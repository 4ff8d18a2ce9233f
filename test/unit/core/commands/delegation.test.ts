import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCommand, decideCommand, type DecideContext } from '../../../../src/core/commands/decide';
import { parsePolicy, type PolicyInput } from '../../../../src/core/policy';
import { makeSandbox, write } from '../tempWorkspace';

/**
 * Issue 26: the sandbox, not a list of refused names, is the boundary for code an agent delegates. Programs that run
 * any code given to them (interpreters, shells, package runners, workspace programs) are allowlistable inside a
 * sandbox and refused without one unless the person opted in; a command not on the allowlist becomes a question in
 * the modes that ask. Real temporary workspaces, real programs found on the real PATH.
 */
const SANDBOXED: DecideContext = { sandboxed: true };

function setup(overrides: Partial<PolicyInput> = {}) {
  const s = makeSandbox();
  write(path.join(s.ws, 'install.sh'), '#!/bin/sh\necho installed\n');
  fs.chmodSync(path.join(s.ws, 'install.sh'), 0o755);
  write(path.join(s.ws, 'bin', 'bats'), '#!/bin/sh\necho ok\n');
  fs.chmodSync(path.join(s.ws, 'bin', 'bats'), 0o755);
  write(path.join(s.ws, 'node_modules', 'ava', 'cli.js'), '#!/usr/bin/env node\n');
  fs.chmodSync(path.join(s.ws, 'node_modules', 'ava', 'cli.js'), 0o755);
  fs.mkdirSync(path.join(s.ws, 'node_modules', '.bin'));
  fs.symlinkSync('../ava/cli.js', path.join(s.ws, 'node_modules', '.bin', 'ava'));
  const policy = parsePolicy({ root: s.ws, mode: 'auto', allowCommands: ['ls', 'cat', 'python3', 'node', 'npm', 'bash'], ...overrides });
  return { s, policy, decide: (argv: string[], ctx: DecideContext = {}) => decideCommand({ command: argv }, policy, ctx).verdict };
}

describe('interpreters, shells and package runners: the sandbox is the boundary', () => {
  it.each([
    [['python3', '-c', 'print(1)'], 'forbidden.interpreter'],
    [['node', '-e', '1'], 'forbidden.interpreter'],
    [['bash', '-c', 'id'], 'forbidden.shell'],
  ])('refuses %j without a sandbox, naming the routes that work', (argv, rule) => {
    const { decide } = setup();
    const v = decide(argv);
    expect(v).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN', rule });
    const reason = v.kind === 'deny' ? v.reason : '';
    expect(reason).toContain('guardedShell.isolation');
    expect(reason).toContain('guardedShell.allowUnsandboxedCode');
  });

  it.each([[['python3', '-c', 'print(1)']], [['node', '-e', '1']], [['bash', '-c', 'id']], [['python3', '-m', 'venv', '.venv']]])(
    'runs the listed %j inside a sandbox (auto) and asks for it in confirm',
    (argv) => {
      const { s, policy } = setup();
      expect(decideCommand({ command: argv }, policy, SANDBOXED).verdict.kind).toBe('allow');
      const confirm = parsePolicy({ ...policy, root: s.ws, mode: 'confirm' });
      expect(decideCommand({ command: argv }, confirm, SANDBOXED).verdict).toMatchObject({ kind: 'ask', rule: 'mode.confirm.command' });
    },
  );

  it('is never known to be read-only: confirmChanges asks even for `python3 --version`', () => {
    const { s, policy } = setup();
    const p = parsePolicy({ ...policy, root: s.ws, mode: 'confirmChanges' });
    expect(decideCommand({ command: ['python3', '--version'] }, p, SANDBOXED).verdict.kind).toBe('ask');
    expect(decideCommand({ command: ['python3', '--version'] }, parsePolicy({ ...policy, root: s.ws, mode: 'readOnly' }), SANDBOXED).verdict).toMatchObject({ kind: 'deny', code: 'MODE_READ_ONLY' });
  });

  it('runs them without a sandbox only with the user opt-in allowUnsandboxedCode', () => {
    const { s, policy } = setup();
    const optedIn = parsePolicy({ ...policy, root: s.ws, allowUnsandboxedCode: true });
    expect(decideCommand({ command: ['python3', '-c', 'print(1)'] }, optedIn).verdict.kind).toBe('allow');
  });

  it("accepts mcp-shell-server's own example ALLOW_PATTERNS=python[0-9.]*,node inside a sandbox", () => {
    const { decide } = setup({ allowCommands: [], allowPatterns: ['python[0-9.]*', 'node'] });
    expect(decide(['python3', '-c', 'print(1)'], SANDBOXED).kind).toBe('allow');
    expect(decide(['node', '-e', '1'], SANDBOXED).kind).toBe('allow');
    expect(decide(['python3', '-c', 'print(1)'])).toMatchObject({ kind: 'deny', rule: 'forbidden.interpreter' });
  });

  it('still applies the argument rules of the real program inside a sandbox (find -exec under a listed name)', () => {
    const { decide } = setup({ allowCommands: ['find'] });
    expect(decide(['find', '.', '-exec', 'id', '{}', '+'], SANDBOXED)).toMatchObject({ kind: 'deny', code: 'ARGUMENT_FORBIDDEN' });
  });

  it('refuses a shell hard-linked under a harmless name in a PATH folder (judged by identity) without a sandbox', () => {
    const { s } = setup();
    const bin = path.join(s.outside, 'bin');
    fs.mkdirSync(bin);
    fs.linkSync(fs.realpathSync('/bin/bash'), path.join(bin, 'bash'));
    fs.linkSync(fs.realpathSync('/bin/bash'), path.join(bin, 'harmless'));
    const policy = parsePolicy({ root: s.ws, mode: 'auto', allowCommands: ['harmless'], safePath: bin });
    expect(decideCommand({ command: ['harmless', '-c', 'id'] }, policy).verdict).toMatchObject({ kind: 'deny', rule: 'forbidden.shell' });
    expect(decideCommand({ command: ['harmless', '-c', 'id'] }, policy, SANDBOXED).verdict.kind).toBe('allow');
  });
});

describe('npx and npm exec follow one rule', () => {
  it.each([
    [['npm', 'exec', '--', 'ava']],
    [['npm', 'x', 'ava']],
    [['npm', 'exe', 'ava']], // npm's own abbreviation of exec
    [['npm', '--prefix', 'sub', 'exec', 'ava']],
    [['npm', 'explore', 'ava', '--', 'ls']],
    [['npm', 'init', 'vite']],
    [['npm', 'create', 'vite']],
  ])('%j needs npx on the allowlist, like npx itself, and a sandbox', (argv) => {
    const { s, decide } = setup({ allowCommands: ['npm'] });
    expect(decide(argv)).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN', rule: 'forbidden.package-runner' });
    expect(decide(['npx', 'ava'])).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN', rule: 'forbidden.wrapper' });
    // Inside a sandbox, both are a miss while npx is not listed, and both run once it is.
    expect(decide(argv, SANDBOXED)).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
    expect(decide(['npx', 'ava'], SANDBOXED)).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
    const withNpx = parsePolicy({ root: s.ws, mode: 'auto', allowCommands: ['npm', 'npx'] });
    expect(decideCommand({ command: argv }, withNpx, SANDBOXED).verdict.kind).toBe('allow');
    expect(decideCommand({ command: ['npx', 'ava'] }, withNpx, SANDBOXED).verdict.kind).toBe('allow');
  });

  it.each([[['npm', 'test']], [['npm', 'run', 'lint']], [['npm', 'ci']], [['npm', 'install']], [['npm', '--version']]])(
    '%j is a project script or a package install, not a runner: it runs with npm listed',
    (argv) => {
      const { decide } = setup({ allowCommands: ['npm'] });
      expect(decide(argv).kind).toBe('allow');
    },
  );
});

describe('programs inside the workspace', () => {
  it.each([[['./install.sh']], [['bin/bats', '--tap']], [['node_modules/.bin/ava']]])('refuses %j without a sandbox, naming the opt-in', (argv) => {
    const { decide } = setup({ allowCommands: ['install.sh', 'bin/*', 'node_modules/.bin/*'] });
    const v = decide(argv);
    expect(v).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN', rule: 'allowlist.workspace-program' });
    expect(v.kind === 'deny' && v.reason).toContain('allowUnsandboxedCode');
  });

  it.each([
    [['./install.sh'], './install.sh'],
    [['bin/bats', '--tap'], 'bin/*'],
    [['node_modules/.bin/ava'], 'node_modules/.bin/*'],
  ])('runs %j inside a sandbox when a path glob lists it (%s)', (argv, entry) => {
    const { decide } = setup({ allowCommands: [entry] });
    expect(decide(argv, SANDBOXED).kind).toBe('allow');
  });

  it('lists a workspace program by path only: a bare name never lists a file the agent could write', () => {
    const { decide } = setup({ allowCommands: ['ava', 'bats'] });
    expect(decide(['node_modules/.bin/ava'], SANDBOXED)).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
    expect(decide(['bin/bats'], SANDBOXED)).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
  });

  it('matches the glob from the folder root whatever the working directory', () => {
    const { s, policy } = setup({ allowCommands: ['bin/*'] });
    fs.mkdirSync(path.join(s.ws, 'sub'));
    expect(decideCommand({ command: ['../bin/bats'], directory: 'sub' }, policy, SANDBOXED).verdict.kind).toBe('allow');
  });

  it('asks about an unlisted workspace program in confirm and suggests a rule for it', () => {
    const { s } = setup();
    const policy = parsePolicy({ root: s.ws, mode: 'confirm', allowCommands: ['ls'] });
    const checked = checkCommand({ command: ['bin/bats', '--tap', 'test'] }, policy, SANDBOXED);
    expect(decideCommand({ command: ['bin/bats', '--tap', 'test'] }, policy, SANDBOXED).verdict).toMatchObject({ kind: 'ask', rule: 'allowlist.miss' });
    expect(checked.notListed).toEqual([0]);
    expect(checked.suggestedRules).toEqual(['bin/bats --tap test', 'bin/bats *']);
    expect(checked.plan?.delegations[0]).toMatchObject({ kind: 'workspace-program', what: 'bin/bats' });
  });

  it('refuses workspace path entries that climb out or are empty', () => {
    const { s } = setup();
    for (const bad of ['../x/*', 'bin//x', 'a b/*']) expect(() => parsePolicy({ root: s.ws, allowCommands: [bad] })).toThrow();
    expect(() => parsePolicy({ root: s.ws, allowCommands: ['l*'] })).toThrow(/"\*" and "\?" only in a workspace path/);
  });
});

describe('a miss becomes a question where the mode asks', () => {
  it.each([['confirm'], ['confirmChanges']] as const)('%s: an unlisted command is asked about, saying it is not on the allowlist', (mode) => {
    const { decide } = setup({ mode, allowCommands: ['ls'] });
    const v = decide(['touch', 'x'], SANDBOXED);
    expect(v).toMatchObject({ kind: 'ask', rule: 'allowlist.miss' });
    expect(v.kind === 'ask' && v.reason).toMatch(/^Not on your allowlist: "touch"/);
  });

  it.each([['auto', /auto mode asks nobody/], ['readOnly', /readOnly mode/]] as const)('%s: an unlisted command is refused, saying why and where to allow it', (mode, why) => {
    const { decide } = setup({ mode, allowCommands: ['ls'] });
    const v = decide(['touch', 'x'], SANDBOXED);
    expect(v).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED', rule: 'allowlist.not-listed' });
    expect(v.kind === 'deny' && v.reason).toMatch(why);
    expect(v.kind === 'deny' && v.reason).toContain('guardedShell.allowCommands (--allow)');
  });

  it('never asks about a program that does not exist', () => {
    const { decide } = setup({ mode: 'confirm', allowCommands: ['ls'] });
    expect(decide(['no-such-program-here'], SANDBOXED)).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
  });

  it('never asks about an argument the rules refuse (deny wins over the question)', () => {
    const { decide } = setup({ mode: 'confirm', allowCommands: ['ls'] });
    expect(decide(['find', '.', '-delete'], SANDBOXED)).toMatchObject({ kind: 'deny', code: 'ARGUMENT_FORBIDDEN' });
  });

  it('never asks about a shell without a sandbox (refused before any card)', () => {
    const { decide } = setup({ mode: 'confirm', allowCommands: ['ls'] });
    expect(decide(['sh', '-c', 'id'])).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN' });
  });
});

describe('read-only forms only (allowReadOnlyCommands: git)', () => {
  it.each([[['git', 'status']], [['git', 'log', '--oneline', '-5']], [['git', 'diff']]])('runs %j with git listed for read-only forms only', (argv) => {
    const { s, decide } = setup({ mode: 'auto', allowCommands: [], allowReadOnlyCommands: ['git'] });
    fs.mkdirSync(path.join(s.ws, '.git'));
    expect(decide(argv, SANDBOXED).kind).toBe('allow');
  });

  it('asks about `git commit` in confirm and refuses it in auto, naming the read-only-only setting', () => {
    const { s } = setup();
    const base = { root: s.ws, allowCommands: [], allowReadOnlyCommands: ['git'] };
    const ask = decideCommand({ command: ['git', 'commit', '-m', 'x'] }, parsePolicy({ ...base, mode: 'confirm' }), SANDBOXED).verdict;
    expect(ask).toMatchObject({ kind: 'ask', rule: 'allowlist.miss' });
    expect(ask.kind === 'ask' && ask.reason).toContain('only in read-only forms');
    const refused = decideCommand({ command: ['git', 'commit', '-m', 'x'] }, parsePolicy({ ...base, mode: 'auto' }), SANDBOXED).verdict;
    expect(refused).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
    expect(refused.kind === 'deny' && refused.reason).toContain('guardedShell.allowReadOnlyCommands');
  });
});

describe('saved command rules (autoApprove, "Always allow")', () => {
  it('a prefix rule admits and pre-approves matching commands; others still ask', () => {
    const { decide } = setup({ mode: 'confirm', allowCommands: ['ls'], autoApprove: ['git log *'] });
    expect(decide(['git', 'log'], SANDBOXED).kind).toBe('allow');
    expect(decide(['git', 'log', '--oneline', '-5'], SANDBOXED).kind).toBe('allow');
    expect(decide(['git', 'push'], SANDBOXED)).toMatchObject({ kind: 'ask', rule: 'allowlist.miss' });
    expect(decide(['git', 'logx'], SANDBOXED).kind).toBe('ask');
  });

  it('a prefix rule never covers an output redirect (an exact rule can)', () => {
    const { decide } = setup({ mode: 'confirm', allowCommands: ['ls'], autoApprove: ['echo *', "echo hi '>' x"] });
    expect(decide(['echo', 'a', '>', 'out.txt'], SANDBOXED).kind).toBe('ask');
    expect(decide(['echo', 'a'], SANDBOXED).kind).toBe('allow');
  });

  it('covers a pipeline only when every stage is covered or listed, and pre-approves it only when all are covered', () => {
    const { decide } = setup({ mode: 'confirm', allowCommands: ['wc'], autoApprove: ['git log *'] });
    expect(decide(['git', 'log', '|', 'wc', '-l'], SANDBOXED)).toMatchObject({ kind: 'ask', rule: 'mode.confirm.readOnlyCommand' });
    const both = setup({ mode: 'confirm', allowCommands: [], autoApprove: ['git log *', 'wc *'] });
    expect(both.decide(['git', 'log', '|', 'wc', '-l'], SANDBOXED).kind).toBe('allow');
  });

  it('a quoted "*" is a literal argument, not a wildcard', () => {
    const { decide } = setup({ mode: 'confirm', allowCommands: [], autoApprove: ["ls '*'"] });
    expect(decide(['ls', '*'], SANDBOXED).kind).toBe('allow');
    expect(decide(['ls', '-la'], SANDBOXED).kind).toBe('ask');
  });

  it('refuses malformed rules in the policy, naming the problem', () => {
    const { s } = setup();
    expect(() => parsePolicy({ root: s.ws, autoApprove: ['*'] })).toThrow(/names no program/);
    expect(() => parsePolicy({ root: s.ws, autoApprove: ['git * log'] })).toThrow(/may only stand at the end/);
    expect(() => parsePolicy({ root: s.ws, autoApprove: ["git 'log"] })).toThrow(/not closed/);
  });
});
