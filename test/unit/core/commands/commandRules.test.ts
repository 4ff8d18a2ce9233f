import { describe, expect, it } from 'vitest';
import { parseRule, ruleCoverage, ruleCoversRequest, suggestRules } from '../../../../src/core/commands/commandRules';
import { commandKey, parseCommand } from '../../../../src/core/commands/parse';

const req = (argv: string[]) => ({ parsed: parseCommand(argv), key: commandKey(argv) });

describe('command rules ("Always allow", autoApprove)', () => {
  it('parses exact and prefix rules, with quotes as command keys write them', () => {
    expect(parseRule('npm test *')).toEqual({ rule: { text: 'npm test *', words: ['npm', 'test'], prefix: true } });
    expect(parseRule("echo 'two words'")).toMatchObject({ rule: { words: ['echo', 'two words'], prefix: false } });
    expect(parseRule(`echo "say \\"hi\\""`)).toMatchObject({ rule: { words: ['echo', 'say "hi"'] } });
    expect(parseRule("echo 'it'\\''s'")).toMatchObject({ rule: { words: ['echo', "it's"] } });
    expect(parseRule("ls '*'")).toMatchObject({ rule: { words: ['ls', '*'], prefix: false } });
  });

  it.each([
    ['', /empty/],
    ['*', /names no program/],
    ['git * log', /only stand at the end/],
    ["git 'log", /not closed/],
    ['cat x | wc *', /cannot contain "\|"/],
    ['ls\nrm -rf /', /line break/],
  ])('refuses %j', (text, why) => {
    const r = parseRule(text);
    expect('error' in r && r.error).toMatch(why);
  });

  it('matches whole argv words, never a string prefix', () => {
    const rule = (parseRule('npm test *') as { rule: never }).rule;
    for (const argv of [['npm', 'test'], ['npm', 'test', '--', '-t', 'x']]) expect(ruleCoversRequest(rule, req(argv).parsed, req(argv).key)).toBe(true);
    for (const argv of [['npm', 'testx'], ['npm'], ['npm', 'tes'], ['npmx', 'test']]) expect(ruleCoversRequest(rule, req(argv).parsed, req(argv).key)).toBe(false);
  });

  it('an exact rule covers exactly its line, redirects included', () => {
    const r = req(['echo', 'hi', '>', 'x']);
    // In argv a ">" element IS the redirect; the key quotes it, and a rule may write it either way.
    expect(ruleCoverage(["echo hi '>' x"], r.parsed, r.key).all).toBe(true);
    expect(ruleCoverage(['echo hi > x'], r.parsed, r.key).all).toBe(true);
    expect(ruleCoverage(['echo hi > y'], r.parsed, r.key).all).toBe(false);
    expect(ruleCoverage(['echo *'], r.parsed, r.key)).toEqual({ all: false, stages: [true] });
  });

  it('suggests the exact line and a prefix with up to two subcommand words', () => {
    expect(suggestRules(parseCommand(['git', 'log', '--oneline', '-5']), 'git log --oneline -5')).toEqual(['git log --oneline -5', 'git log *']);
    expect(suggestRules(parseCommand(['npm', 'run', 'test', '--', '-x']), 'k')).toEqual(['k', 'npm run test *']);
    expect(suggestRules(parseCommand(['python3', '-m', 'pytest', '-x']), 'k')).toEqual(['k', 'python3 -m pytest *']);
    expect(suggestRules(parseCommand(['ls', '-la']), 'ls -la')).toEqual(['ls -la', 'ls *']);
    expect(suggestRules(parseCommand(['ls', '|', 'wc']), 'ls | wc')).toEqual(['ls | wc']);
  });
});
