import { describe, expect, it } from 'vitest';
import { checkAllowlist } from '../../../../src/core/commands/allowlist';

const policy = { allowCommands: ['ls', 'cat', 'echo', '/opt/tools/special'], allowPatterns: ['python[0-9.]*', 'ls|cat'] };

describe('checkAllowlist: names', () => {
  it.each([['ls'], ['cat'], ['echo']])('allows the listed name %s', (name) => {
    expect(checkAllowlist(name, policy)).toEqual({ kind: 'allow', rule: 'allowlist.name' });
  });

  it.each([['rm'], ['sh'], ['LS'], ['ls '], [''], ['l']])('denies the unlisted name %j with COMMAND_NOT_ALLOWED', (name) => {
    expect(checkAllowlist(name, policy)).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED', rule: 'allowlist.not-listed' });
  });

  it('names the command and what is allowed in the denial', () => {
    const v = checkAllowlist('rm', policy);
    expect(v.kind === 'deny' && v.reason).toContain('Command not allowed: rm');
    expect(v.kind === 'deny' && v.reason).toContain('ls, cat, echo');
    expect(v.kind === 'deny' && v.reason).toContain('python[0-9.]*');
  });

  it('denies everything when the allowlist is empty', () => {
    const v = checkAllowlist('ls', { allowCommands: [], allowPatterns: [] });
    expect(v).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
    expect(v.kind === 'deny' && v.reason).toContain('(none)');
  });
});

describe('checkAllowlist: ALLOW_PATTERNS are full matches of the name', () => {
  it.each([['python3'], ['python3.12'], ['python'], ['ls'], ['cat']])('allows %s by pattern', (name) => {
    const v = checkAllowlist(name, { allowCommands: [], allowPatterns: policy.allowPatterns });
    expect(v).toEqual({ kind: 'allow', rule: 'allowlist.pattern' });
  });

  it.each([
    ['lsof', 'a prefix match of `ls`'],
    ['xls', 'a suffix match of `ls`'],
    ['lsx', 'a prefix match inside the alternation `ls|cat`'],
    ['xcat', 'a suffix match inside the alternation `ls|cat`'],
    ['pythonista', 'a prefix match of `python[0-9.]*`'],
    ['mypython3', 'a suffix match of `python[0-9.]*`'],
    ['python3 -c', 'a name with arguments glued on'],
  ])('stops %s (%s)', (name) => {
    expect(checkAllowlist(name, { allowCommands: [], allowPatterns: policy.allowPatterns })).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED' });
  });

  it('stops `lsof` when the only pattern is `ls`', () => {
    expect(checkAllowlist('lsof', { allowCommands: [], allowPatterns: ['ls'] }).kind).toBe('deny');
  });
});

describe('checkAllowlist: commands given as paths', () => {
  it('allows an absolute path whose basename is allowed', () => {
    expect(checkAllowlist('/usr/bin/ls', policy)).toEqual({ kind: 'allow', rule: 'allowlist.path-basename' });
  });

  it('allows an absolute path whose basename matches a pattern', () => {
    expect(checkAllowlist('/usr/bin/python3', policy)).toEqual({ kind: 'allow', rule: 'allowlist.path-basename' });
  });

  it('allows a path that is itself listed', () => {
    expect(checkAllowlist('/opt/tools/special', policy)).toEqual({ kind: 'allow', rule: 'allowlist.name' });
  });

  it('stops an absolute path whose basename is not allowed (/bin/sh)', () => {
    expect(checkAllowlist('/bin/sh', policy)).toMatchObject({ kind: 'deny', rule: 'allowlist.not-listed' });
  });

  it.each([['./ls'], ['bin/ls'], ['../ls'], ['tools/python3'], ['sub\\ls']])(
    'stops a relative path %s that could name a file the agent just wrote in the workspace',
    (name) => {
      expect(checkAllowlist(name, policy)).toMatchObject({ kind: 'deny', code: 'COMMAND_NOT_ALLOWED', rule: 'allowlist.relative-path' });
    },
  );
});
