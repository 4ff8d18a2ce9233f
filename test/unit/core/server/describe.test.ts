import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../../src/core/policy';
import { commandLimitsText, unrunnableNote } from '../../../../src/server/tools/describe';

describe('what the command tools advertise', () => {
  it('leaves out allowlist entries that can never run, and the log names them once', () => {
    const policy = parsePolicy({ root: '/tmp', allowCommands: ['ls', 'bash', 'node'], allowPatterns: ['python[0-9.]*', 'l[s]'] });
    const text = commandLimitsText(policy);
    expect(text).toContain('Allowed: ls.');
    expect(text).toContain('Name patterns: l[s].');
    expect(text).not.toMatch(/bash|node|python/);
    expect(unrunnableNote(policy)).toMatch(/bash .*node .*python\[0-9\.\]\*/s);
    expect(unrunnableNote(parsePolicy({ root: '/tmp', allowCommands: ['ls'] }))).toBeUndefined();
  });
});
