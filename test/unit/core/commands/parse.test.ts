import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../../src/core/errors';
import { commandKey, parseCommand } from '../../../../src/core/commands/parse';

function parseError(argv: unknown, options?: { literal?: boolean }): ToolError {
  try {
    parseCommand(argv as string[], options);
  } catch (e) {
    expect(e).toBeInstanceOf(ToolError);
    return e as ToolError;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to be rejected`);
}

describe('parseCommand: well-formed requests', () => {
  it.each<[string, string[], object]>([
    ['a single command', ['ls', '-la'], { stages: [['ls', '-la']] }],
    ['a two-stage pipeline', ['seq', '1', '10', '|', 'wc', '-l'], { stages: [['seq', '1', '10'], ['wc', '-l']] }],
    ['a three-stage pipeline', ['cat', 'f', '|', 'sort', '|', 'uniq', '-c'], { stages: [['cat', 'f'], ['sort'], ['uniq', '-c']] }],
    ['an input redirect', ['wc', '-l', '<', 'in.txt'], { stages: [['wc', '-l']], stdinFile: 'in.txt' }],
    ['arguments after an input redirect', ['cat', '<', 'in.txt', '-n'], { stages: [['cat', '-n']], stdinFile: 'in.txt' }],
    ['an output redirect', ['echo', 'hi', '>', 'out.txt'], { stages: [['echo', 'hi']], stdoutFile: { path: 'out.txt', append: false } }],
    ['an appending redirect', ['echo', 'hi', '>>', 'log.txt'], { stages: [['echo', 'hi']], stdoutFile: { path: 'log.txt', append: true } }],
    [
      'input, pipeline and output together',
      ['sort', '<', 'in.txt', '|', 'uniq', '>', 'out.txt'],
      { stages: [['sort'], ['uniq']], stdinFile: 'in.txt', stdoutFile: { path: 'out.txt', append: false } },
    ],
    ['an input redirect after the output redirect', ['sort', '>', 'o', '<', 'i'], { stages: [['sort']], stdinFile: 'i', stdoutFile: { path: 'o', append: false } }],
  ])('parses %s', (_what, argv, expected) => {
    expect(parseCommand(argv)).toEqual(expected);
  });

  it.each([
    ['a|b inside one element', ['echo', 'a|b']],
    ['>file glued to its target', ['echo', '>file']],
    ['<file glued to its target', ['cat', '<file']],
    ['a;b inside one element', ['echo', 'a;b', 'c&&d']],
    ['command substitution', ['echo', '$(id)', '`id`']],
    ['2> (stderr redirect is not an operator)', ['ls', '2>', 'x']],
  ])('keeps %s as plain data (there is no shell to interpret it)', (_what, argv) => {
    const parsed = parseCommand(argv);
    expect(parsed.stages).toEqual([argv]);
    expect(parsed.stdinFile).toBeUndefined();
    expect(parsed.stdoutFile).toBeUndefined();
  });
});

describe('parseCommand: shell list operators as discrete elements (mcp-shell-server refuses them)', () => {
  it.each([
    ['make && make test', ['make', '&&', 'make', 'test'], '&&'],
    ['a semicolon chaining rm', ['echo', ';', 'rm', '-rf', '.'], ';'],
    ['a double pipe ||', ['false', '||', 'rm', '-rf', '.'], '||'],
    ['a background &', ['sleep', '1', '&'], '&'],
    ['an operator in a later pipeline stage', ['ls', '|', 'wc', ';', 'id'], ';'],
  ])('stops %s with an actionable "send two calls"', (_what, argv, op) => {
    const e = parseError(argv);
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.rule).toBe('request.shell-operator');
    expect(e.message).toContain(`"${op}"`);
    expect(e.message).toMatch(/send two calls/i);
  });

  it.each([
    ['find . -exec ls ;', ['find', '.', '-exec', 'ls', ';']],
    ['every -exec of a find', ['find', '.', '-execdir', 'ls', ';', '-ok', 'rm', ';']],
    ['a find called by its path or another name', ['/usr/bin/gfind', '.', '-okdir', 'ls', ';']],
  ])("keeps the \";\" that ends find's %s as find's own terminator (its rule judges -exec), not a list operator", (_what, argv) => {
    expect(parseCommand(argv).stages).toEqual([argv]);
  });

  it.each([
    ['a ";" after a find whose -exec already ended', ['find', '.', '-exec', 'ls', ';', ';', 'id']],
    ['a ";" in a find with no -exec', ['find', '.', ';', 'id']],
    ['a ";" after "-exec" given to another program', ['echo', '-exec', ';', 'id']],
    ['a ";" in the stage after a find', ['find', '.', '-exec', 'ls', '|', 'wc', ';', 'id']],
  ])('still stops %s', (_what, argv) => {
    expect(parseError(argv).rule).toBe('request.shell-operator');
  });

  it('keeps them as data in literal mode', () => {
    expect(parseCommand(['echo', '&&', ';'], { literal: true }).stages).toEqual([['echo', '&&', ';']]);
  });

  it('strips white space around the program name of every stage, like the seed', () => {
    expect(parseCommand(['  ls\t', '-la', '|', ' wc ', '-l']).stages).toEqual([['ls', '-la'], ['wc', '-l']]);
    expect(parseCommand([' echo ', ' x '], { literal: true }).stages).toEqual([['echo', ' x ']]);
  });
});

describe('parseCommand: malformed requests are BAD_REQUEST', () => {
  it.each<[string, unknown, string]>([
    ['an empty argv', [], 'request.empty'],
    ['a non-array', 'ls -la', 'request.empty'],
    ['a non-string element', ['ls', 42], 'request.type'],
    ['a NUL byte in an argument', ['cat', 'a\0b'], 'request.nul'],
    ['a leading |', ['|', 'wc'], 'request.pipeline'],
    ['a trailing |', ['ls', '|'], 'request.pipeline'],
    ['two | in a row', ['ls', '|', '|', 'wc'], 'request.pipeline'],
    ['only a |', ['|'], 'request.pipeline'],
    ['"<" feeding a later stage', ['ls', '|', 'wc', '<', 'in.txt'], 'request.redirect'],
    ['"<" at the start of a later stage', ['ls', '|', '<', 'in.txt', 'wc'], 'request.redirect'],
    ['two input redirects', ['cat', '<', 'a', '<', 'b'], 'request.redirect'],
    ['two output redirects', ['echo', 'x', '>', 'a', '>', 'b'], 'request.redirect'],
    ['">" then ">>"', ['echo', 'x', '>', 'a', '>>', 'b'], 'request.redirect'],
    ['">" without a target', ['echo', 'x', '>'], 'request.redirect'],
    ['">>" without a target', ['echo', 'x', '>>'], 'request.redirect'],
    ['"<" without a target', ['cat', '<'], 'request.redirect'],
    ['">" followed by another operator', ['echo', 'x', '>', '|', 'wc'], 'request.redirect'],
    ['">" followed by ">"', ['echo', 'x', '>', '>', 'f'], 'request.redirect'],
    ['an empty redirect target', ['echo', 'x', '>', ''], 'request.redirect'],
    ['a redirect before any command', ['>', 'out.txt', 'echo', 'x'], 'request.redirect'],
    ['an input redirect before any command', ['<', 'in.txt', 'cat'], 'request.redirect'],
    ['data after the output redirect', ['echo', 'x', '>', 'out.txt', 'extra'], 'request.redirect'],
    ['a pipeline after the output redirect', ['echo', 'x', '>', 'out.txt', '|', 'wc'], 'request.redirect'],
  ])('rejects %s', (_what, argv, rule) => {
    const e = parseError(argv);
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.rule).toBe(rule);
    expect(e.message.length).toBeGreaterThan(10);
  });

  it('names the element where the redirect has no target', () => {
    expect(parseError(['echo', 'x', '>']).message).toContain('element 2');
  });

  it('names the element that follows the output redirect', () => {
    expect(parseError(['echo', 'x', '>', 'o', 'sneaky']).message).toContain('sneaky');
  });
});

describe('parseCommand: literal mode (cmdshell has no pipelines)', () => {
  it('keeps every operator as data in one stage', () => {
    const argv = ['echo', '|', 'rm', '>', 'x', '<', 'y', '>>', 'z'];
    expect(parseCommand(argv, { literal: true })).toEqual({ stages: [argv] });
  });

  it('does not let a literal ">" write a file (no stdoutFile)', () => {
    expect(parseCommand(['echo', 'data', '>', '.bashrc'], { literal: true }).stdoutFile).toBeUndefined();
  });

  it('still rejects an empty argv and NUL bytes', () => {
    expect(parseError([], { literal: true }).rule).toBe('request.empty');
    expect(parseError(['echo', 'a\0'], { literal: true }).rule).toBe('request.nul');
  });
});

describe('commandKey', () => {
  it('joins the argv with single spaces (the form autoApprove rules are written in)', () => {
    expect(commandKey(['git', 'status'])).toBe('git status');
  });

  it('stops an approval of one argument ("x > y") from matching a different request that writes a file (x > y)', () => {
    // Session approvals are keyed by commandKey: two different argvs must never share a key, or approving a
    // harmless `echo "x > y"` would silently pre-approve `echo x > y`, which writes the file y.
    expect(commandKey(['echo', 'x > y'])).not.toBe(commandKey(['echo', 'x', '>', 'y']));
  });

  it('stops an approval of "a b" as one argument from matching two arguments a, b', () => {
    expect(commandKey(['rm', 'a b'])).not.toBe(commandKey(['rm', 'a', 'b']));
  });
});
