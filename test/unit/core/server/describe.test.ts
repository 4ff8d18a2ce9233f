import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../../src/core/policy';
import { commandLimitsText, isolationNote, unrunnableNote } from '../../../../src/server/tools/describe';

describe('what the command tools advertise', () => {
  it('leaves entries that need a sandbox out of "Allowed:"; the sandbox sentence names them, and the log names them only without one', () => {
    const policy = parsePolicy({ root: '/tmp', allowCommands: ['ls', 'bash', 'node'], allowPatterns: ['python[0-9.]*', 'l[s]'] });
    const text = commandLimitsText(policy);
    expect(text).toContain('Allowed: ls.');
    expect(text).toContain('Name patterns: l[s].');
    expect(isolationNote('bwrap', policy)).toBe(' Runs in an OS sandbox, where bash node python[0-9.]* (any code) run too.');
    expect(isolationNote('none', policy)).toMatch(/interpreters, shells and workspace scripts are refused/);
    expect(unrunnableNote(policy)).toMatch(/bash .*node .*python\[0-9\.\]\*/s);
    expect(unrunnableNote(policy, true)).toBeUndefined();
    expect(unrunnableNote(parsePolicy({ root: '/tmp', allowCommands: ['bash'], allowUnsandboxedCode: true }))).toBeUndefined();
    expect(unrunnableNote(parsePolicy({ root: '/tmp', allowCommands: ['ls'] }))).toBeUndefined();
  });
});
