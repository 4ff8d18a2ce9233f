import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../../src/core/policy';
import { commandLimitsText, unrunnableNote } from '../../../../src/server/tools/describe';

describe('what the command tools advertise', () => {
  it('names every allowlist entry; the log names those that cannot run without a sandbox, and none with one', () => {
    const policy = parsePolicy({ root: '/tmp', allowCommands: ['ls', 'bash', 'node'], allowPatterns: ['python[0-9.]*', 'l[s]'] });
    const text = commandLimitsText(policy);
    expect(text).toContain('Allowed: ls bash node.');
    expect(text).toContain('Name patterns: python[0-9.]* l[s].');
    expect(unrunnableNote(policy)).toMatch(/bash .*node .*python\[0-9\.\]\*/s);
    expect(unrunnableNote(policy, true)).toBeUndefined();
    expect(unrunnableNote(parsePolicy({ root: '/tmp', allowCommands: ['bash'], allowUnsandboxedCode: true }))).toBeUndefined();
    expect(unrunnableNote(parsePolicy({ root: '/tmp', allowCommands: ['ls'] }))).toBeUndefined();
  });
});
