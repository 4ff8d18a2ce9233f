import { describe, expect, it, vi } from 'vitest';
import { gate, unavailableApprover, type ApprovalDecision, type ApprovalRequest, type Approver } from '../../../src/core/approval';
import { ApprovalMemory } from '../../../src/core/approvalMemory';
import { allow, ask, deny } from '../../../src/core/verdict';

const request: ApprovalRequest = { id: 'r1', tool: 'shell_execute', rule: 'mode.confirm', reason: 'confirm', key: 'touch a' };

function approverSaying(decision: ApprovalDecision): Approver & { calls: ApprovalRequest[] } {
  const calls: ApprovalRequest[] = [];
  return { kind: 'test', calls, approve: async (r) => (calls.push(r), decision) };
}

describe('gate', () => {
  it('stops a denied request without asking anyone and reports its code and rule', async () => {
    const approver = approverSaying({ approved: true, by: 'user' });
    const build = vi.fn(() => request);
    const out = await gate(deny('COMMAND_NOT_ALLOWED', 'allowlist.not-listed', 'Command not allowed: rm'), approver, build);
    expect(out).toEqual({ allowed: false, code: 'COMMAND_NOT_ALLOWED', reason: 'Command not allowed: rm', rule: 'allowlist.not-listed', waitedMs: 0 });
    expect(approver.calls).toHaveLength(0);
    expect(build).not.toHaveBeenCalled();
  });

  it('lets an allowed request through without building an approval request', async () => {
    const build = vi.fn(() => request);
    expect(await gate(allow('mode.auto'), approverSaying({ approved: false, by: 'user' }), build)).toEqual({ allowed: true, waitedMs: 0 });
    expect(build).not.toHaveBeenCalled();
  });

  it('asks the approver for an "ask" verdict and passes when the person approves', async () => {
    const approver = approverSaying({ approved: true, by: 'user', option: 'once' });
    const out = await gate(ask('mode.confirm', 'confirm'), approver, () => request);
    expect(out).toMatchObject({ allowed: true, approvedBy: 'user' });
    expect(approver.calls).toEqual([request]);
  });

  it('hands the abort signal to the approver (a cancelled call withdraws its card)', async () => {
    let seen: AbortSignal | undefined;
    const approver: Approver = { kind: 't', approve: async (_r, s) => ((seen = s), { approved: false, by: 'user' }) };
    const ac = new AbortController();
    await gate(ask('r', 'x'), approver, () => request, ac.signal);
    expect(seen).toBe(ac.signal);
  });

  it('stops the request with APPROVAL_DENIED and the person\'s reason when they say no', async () => {
    const out = await gate(ask('mode.confirm', 'c'), approverSaying({ approved: false, by: 'user', reason: 'not now' }), () => request);
    expect(out).toMatchObject({ allowed: false, code: 'APPROVAL_DENIED', reason: 'not now', rule: 'mode.confirm' });
  });

  it('stops the request when nobody answers in time, with a message that says so', async () => {
    const out = await gate(ask('mode.confirm', 'c'), approverSaying({ approved: false, by: 'timeout' }), () => request);
    expect(out).toMatchObject({ allowed: false, code: 'APPROVAL_DENIED', reason: 'Nobody approved the request in time.' });
  });

  it('gives a default reason for a denial without one', async () => {
    const out = await gate(ask('r', 'c'), approverSaying({ approved: false, by: 'user' }), () => request);
    expect(out).toMatchObject({ allowed: false, reason: 'The request was denied.' });
  });

  it('fails closed with APPROVAL_UNAVAILABLE when no approver can ask anyone', async () => {
    const out = await gate(ask('mode.confirm', 'c'), unavailableApprover, () => request);
    expect(out).toMatchObject({ allowed: false, code: 'APPROVAL_UNAVAILABLE', rule: 'mode.confirm' });
    expect(out.allowed === false && out.reason).toContain('no approver is connected');
  });

  it('fails closed when the approver throws', async () => {
    const broken: Approver = { kind: 'broken', approve: async () => { throw new Error('channel closed'); } };
    const out = await gate(ask('r', 'c'), broken, () => request);
    expect(out).toMatchObject({ allowed: false, code: 'APPROVAL_DENIED' });
    expect(out.allowed === false && out.reason).toContain('channel closed');
  });

  it('fails closed when building the approval request throws (e.g. the diff cannot be made)', async () => {
    const approver = approverSaying({ approved: true, by: 'user' });
    const out = await gate(ask('r', 'c'), approver, () => { throw new Error('cannot read file'); });
    expect(out.allowed).toBe(false);
    expect(approver.calls).toHaveLength(0);
  });

  it('reports how long the person took to decide', async () => {
    const slow: Approver = { kind: 's', approve: () => new Promise((res) => setTimeout(() => res({ approved: true, by: 'user' }), 60)) };
    const out = await gate(ask('r', 'c'), slow, async () => request);
    expect(out.waitedMs).toBeGreaterThanOrEqual(50);
  });
});

describe('ApprovalMemory (injected clock)', () => {
  function clock(start = 1_000_000) {
    let t = start;
    return { now: () => t, advance: (ms: number) => void (t += ms) };
  }

  it('remembers a session approval until it is revoked, however much time passes', () => {
    const c = clock();
    const m = new ApprovalMemory(c.now);
    m.allowForSession('git status');
    c.advance(365 * 24 * 3600 * 1000);
    expect(m.has('git status')).toBe(true);
    expect(m.revoke('git status')).toBe(true);
    expect(m.has('git status')).toBe(false);
    expect(m.revoke('git status')).toBe(false);
  });

  it('stops a timed approval from being used after it expires (15 minutes)', () => {
    const c = clock();
    const m = new ApprovalMemory(c.now);
    m.allowFor('touch a', 15 * 60_000);
    c.advance(15 * 60_000 - 1);
    expect(m.has('touch a')).toBe(true);
    c.advance(1);
    expect(m.has('touch a')).toBe(false);
    c.advance(-10); // the entry is gone: a clock step back does not revive it
    expect(m.has('touch a')).toBe(false);
  });

  it('matches only the exact command line', () => {
    const m = new ApprovalMemory(clock().now);
    m.allowForSession('rm a');
    expect(m.has('rm a')).toBe(true);
    for (const other of ['rm a b', 'rm', 'rm  a', 'RM A', 'rm a ']) expect(m.has(other)).toBe(false);
  });

  it('a later grant replaces an earlier one for the same key', () => {
    const c = clock();
    const m = new ApprovalMemory(c.now);
    m.allowForSession('k');
    m.allowFor('k', 1000);
    c.advance(1000);
    expect(m.has('k')).toBe(false);
  });

  it('lists only approvals that are still valid', () => {
    const c = clock(5000);
    const m = new ApprovalMemory(c.now);
    m.allowForSession('a');
    m.allowFor('b', 100);
    m.allowFor('c', 10_000);
    c.advance(200);
    expect(m.list()).toEqual([
      { key: 'a', grantedAt: 5000 },
      { key: 'c', grantedAt: 5000, expiresAt: 15_000 },
    ]);
  });

  it('forgets everything on revokeAll', () => {
    const m = new ApprovalMemory(clock().now);
    m.allowForSession('a');
    m.allowFor('b', 1000);
    m.revokeAll();
    expect(m.list()).toEqual([]);
    expect(m.has('a')).toBe(false);
  });

  it('uses the real clock by default', () => {
    const m = new ApprovalMemory();
    m.allowFor('x', 60_000);
    expect(m.has('x')).toBe(true);
    m.allowFor('y', 0);
    expect(m.has('y')).toBe(false);
  });
});

describe('saved rules remembered by the server', () => {
  it('stop applying once the settings that hold them no longer list them (removed by hand in settings.json)', () => {
    const m = new ApprovalMemory();
    m.addRule('git log *');
    m.addRule('npm test *');
    m.keepRules(['npm test *', 'ls']);
    expect(m.rules()).toEqual(['npm test *']);
  });
});
