import { describe, expect, it } from 'vitest';
import type { IsolationProbe } from '../../../../src/core/isolation/types';
import { isolationOutcomeOf } from '../../../../src/core/isolationState';
import { parsePolicy, type PolicyInput } from '../../../../src/core/policy';
import { isolationFor } from '../../../../src/server/isolation';

/**
 * Where the egress proxy is wired, and what the person is told where it cannot be: `domains` without a sandbox
 * cannot bind commands to the list (a warning says so: start-up line, status bar, first result all show it).
 */
const bwrap: IsolationProbe = { kind: 'bwrap', available: true, path: '/usr/bin/bwrap', version: '0.8.0' };
const none: IsolationProbe = { kind: 'bwrap', available: false, reason: 'bwrap is not installed' };
const policy = (over: Partial<PolicyInput>) => parsePolicy({ root: '/tmp', isolation: 'auto', ...over });

describe('the egress proxy in the isolation state', () => {
  it('is wired into bubblewrap for every network but allow (domains: the list; fetch, deny: refusing with a message)', () => {
    for (const network of ['domains', 'fetch', 'deny'] as const) expect(isolationFor(policy({ network }), bwrap, {}, () => '/usr/bin/perl').proxy, network).toEqual({ perl: '/usr/bin/perl' });
    expect(isolationFor(policy({ network: 'allow' }), bwrap, {}, () => '/usr/bin/perl').proxy).toBeUndefined();
  });

  it('without a sandbox, domains cannot bind commands: no proxy, and a warning that says commands reach every host', () => {
    const s = isolationFor(policy({ network: 'domains' }), none, {}, () => '/usr/bin/perl');
    expect(isolationOutcomeOf(s)).toBe('unsandboxed');
    expect(s.proxy).toBeUndefined();
    expect(s.warning).toMatch(/network: domains cannot be enforced on commands without a sandbox: they reach every host, as with network: fetch/);
    // Other networks keep the usual no-sandbox warning only.
    expect(isolationFor(policy({ network: 'fetch' }), none, {}, () => '/usr/bin/perl').warning).not.toMatch(/domains/);
  });

  it('without perl the bridge cannot run: domains says so (commands reach no host); isolation required still runs them', () => {
    const s = isolationFor(policy({ network: 'domains', isolation: 'required' }), bwrap, {}, () => undefined);
    expect(s.proxy).toBeUndefined();
    expect(s.denial).toBeUndefined();
    expect(s.warning).toMatch(/needs perl/);
  });

  it('a denied isolation stays a denial, with nothing added', () => {
    const s = isolationFor(policy({ network: 'domains', isolation: 'required' }), none, {}, () => '/usr/bin/perl');
    expect(s.denial).toMatch(/Isolation is required/);
    expect(s.warning).toBeUndefined();
  });
});
