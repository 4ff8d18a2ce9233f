import { describe, expect, it } from 'vitest';
import { timeoutAdvice } from '../../../src/server/tools/commandResult';

describe('timeout advice', () => {
  const policy = { defaultTimeoutSeconds: 30, maxTimeoutSeconds: 300 };

  it('names the maximum when the call had less (its own timeout or the default)', () => {
    expect(timeoutAdvice(undefined, { outcome: 'timeout' }, policy)).toBe('Note: it had 30 s. If it needs longer, call again with "timeout" up to 300 (seconds).');
    expect(timeoutAdvice(60, { outcome: 'timeout' }, policy)).toContain('it had 60 s');
  });

  it('says nothing at the maximum (a clamped request included) or when the command did not time out', () => {
    expect(timeoutAdvice(300, { outcome: 'timeout' }, policy)).toBeUndefined();
    expect(timeoutAdvice(1000, { outcome: 'timeout' }, policy)).toBeUndefined();
    expect(timeoutAdvice(undefined, { outcome: 'timeout' }, { defaultTimeoutSeconds: 300, maxTimeoutSeconds: 300 })).toBeUndefined();
    expect(timeoutAdvice(undefined, { outcome: 'failed' }, policy)).toBeUndefined();
  });
});
