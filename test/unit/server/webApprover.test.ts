import { describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalRequest } from '../../../src/core/approval';
import { ApprovalMemory } from '../../../src/core/approvalMemory';
import { WebApprover } from '../../../src/server/approvers/web';
import type { Card, HostToWebview } from '../../../src/shared/webviewProtocol';

/**
 * The standalone page's approver without HTTP: what a page message can decide. The page is less trusted than the
 * server: a message naming a card it was not shown, an option it was not offered, or a card of another kind than
 * the batch it confirmed decides nothing.
 */

const command = (id: string, argv: string[]): ApprovalRequest => ({ id, tool: 'shell_execute', rule: 'mode.confirm', reason: '', key: argv.join(' '), command: { stages: [argv], cwd: '.', isolation: 'none' } });
const change = (id: string, file: string): ApprovalRequest => ({ id, tool: 'writeFile', rule: 'mode.confirm', reason: '', key: `writeFile ${file}`, change: { kind: 'write', files: [file], diff: '', proposed: 'x' } });

function setup(timeoutMs = 60_000) {
  const approver = new WebApprover('ws', () => timeoutMs, new ApprovalMemory());
  const seen: HostToWebview[] = [];
  approver.subscribe((m) => seen.push(m));
  const cards = (): Card[] => {
    const shows = seen.filter((m): m is Extract<HostToWebview, { type: 'show' }> => m.type === 'show');
    return [...(shows.at(-1)?.cards ?? [])];
  };
  return { approver, seen, cards };
}

const settled = async (p: Promise<ApprovalDecision>) => Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 20))]);

describe('WebApprover', () => {
  it('gives every card a fresh random id, so a guessable request id decides nothing', async () => {
    const { approver, cards } = setup();
    const p = approver.approve(command('sess:1', ['ls']));
    const [c] = cards();
    expect(c!.id).not.toBe('sess:1');
    expect(c!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(approver.receive({ type: 'decide', id: 'sess:1', approved: true, option: 'once' })).toBe(false);
    expect(await settled(p)).toBe('pending');
    expect(approver.receive({ type: 'decide', id: c!.id, approved: true, option: 'once' })).toBe(true);
    expect(await p).toEqual({ approved: true, by: 'web', option: 'once' });
  });

  it('offers "always" only with a rule store, and saves only a rule that covers the command', async () => {
    const saved: string[] = [];
    const approver = new WebApprover('ws', () => 60_000, new ApprovalMemory(), { list: () => saved, save: (r) => void saved.push(r), remove: () => undefined });
    const seen: HostToWebview[] = [];
    approver.subscribe((m) => seen.push(m));
    const p = approver.approve({ ...command('1', ['git', 'log', '-5']), rules: ['git log -5', 'git log *'] });
    const shows = () => seen.filter((m): m is Extract<HostToWebview, { type: 'show' }> => m.type === 'show');
    const [c] = shows().at(-1)!.cards;
    expect(c!.options).toEqual(['once', 'session', 'timed', 'always']);
    expect(c!.rules).toEqual(['git log -5', 'git log *']);
    // A rule that does not cover the command: refused, the card stays and the page hears why.
    expect(approver.receive({ type: 'decide', id: c!.id, approved: true, option: 'always', rule: 'git push *' })).toBe(false);
    expect(seen.at(-1)).toEqual({ type: 'ruleRejected', id: c!.id, why: expect.stringContaining('does not cover this command') });
    expect(await settled(p)).toBe('pending');
    expect(approver.receive({ type: 'decide', id: c!.id, approved: true, option: 'always', rule: 'git log *' })).toBe(true);
    expect(await p).toEqual({ approved: true, by: 'web', option: 'always', rule: 'git log *' });
    approver.close();
  });

  it('refuses an option it did not offer (no "always" without a rule store; only "once" for a file change)', async () => {
    const { approver, cards } = setup();
    const pc = approver.approve(command('1', ['ls']));
    const pf = approver.approve(change('2', 'a.txt'));
    const [cc, cf] = cards();
    expect(cc!.options).toEqual(['once', 'session', 'timed']);
    expect(cf!.options).toEqual(['once']);
    expect(approver.receive({ type: 'decide', id: cc!.id, approved: true, option: 'always' })).toBe(false);
    expect(approver.receive({ type: 'decide', id: cf!.id, approved: true, option: 'session' })).toBe(false);
    expect(await settled(pc)).toBe('pending');
    expect(await settled(pf)).toBe('pending');
    approver.receive({ type: 'decide', id: cf!.id, approved: false, option: 'once', reason: 'no' });
    expect(await pf).toEqual({ approved: false, by: 'web', reason: 'no' });
    approver.close();
    expect((await pc).approved).toBe(false);
  });

  it('a batch approves only the listed cards of its own kind: a file change smuggled into a command batch stays pending', async () => {
    const { approver, cards } = setup();
    const p1 = approver.approve(command('1', ['ls']));
    const p2 = approver.approve(change('2', 'a.txt'));
    const p3 = approver.approve(command('3', ['pwd']));
    const [c1, c2] = cards();
    expect(approver.receive({ type: 'approveAll', kind: 'commands', ids: [c1!.id, c2!.id] })).toBe(true);
    expect(await p1).toEqual({ approved: true, by: 'web', option: 'all' });
    expect(await settled(p2)).toBe('pending');
    expect(await settled(p3)).toBe('pending'); // not listed
    expect(cards().map((c) => c.command ? 'command' : 'change')).toEqual(['change', 'command']);
    approver.close();
    expect((await p2).approved).toBe(false);
    expect((await p3).approved).toBe(false);
  });

  it('withdraws a card when the wait times out or the client cancels, and denies it', async () => {
    const { approver, seen } = setup(30);
    expect(await approver.approve(command('1', ['ls']))).toMatchObject({ approved: false, by: 'timeout' });
    expect(seen.some((m) => m.type === 'withdraw' && m.why === 'timed out')).toBe(true);
    const { approver: a2, seen: s2 } = setup();
    const ac = new AbortController();
    const p = a2.approve(command('2', ['ls']), ac.signal);
    ac.abort();
    expect(await p).toMatchObject({ approved: false, by: 'cancelled' });
    expect(s2.some((m) => m.type === 'withdraw')).toBe(true);
    expect(a2.pendingCount()).toBe(0);
  });
});
