import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../../src/core/approval';
import { ApprovalMemory } from '../../src/core/approvalMemory';
import { AuditLog, memorySink } from '../../src/core/audit';
import { controlRuns } from '../../src/core/background/control';
import { readRun } from '../../src/core/background/read';
import { BackgroundRuns } from '../../src/core/background/runs';
import { runCommand, type CommandDeps } from '../../src/core/commands/run';
import { createExecutor } from '../../src/core/exec/executor';
import { NO_ISOLATION } from '../../src/core/isolationState';
import { parsePolicy, type Policy } from '../../src/core/policy';

/**
 * Background commands and the person: the start is the same request a foreground call is (the same card, saying
 * it runs on and for how long), and input sent later is judged again as the command with that stdin, under the
 * policy of that moment: asked where the mode asks, shown on the card, refused where the policy now refuses.
 * Real processes (cat, sleep) on the real executor; the approver answers as a person would.
 */

let ws: string;
const executors = [createExecutor({ concurrency: 2 }), createExecutor({ concurrency: 8, maxQueued: 0 })];
let runs: BackgroundRuns;

beforeAll(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-bg-approval-')));
});
afterEach(async () => {
  await runs?.close('server');
});
afterAll(async () => {
  for (const e of executors) await e.shutdown();
  fs.rmSync(ws, { recursive: true, force: true });
});

function setup(mode: Policy['mode'], answer: (r: ApprovalRequest) => ApprovalDecision) {
  let policy = parsePolicy({ root: ws, mode, isolation: 'none', allowCommands: ['cat', 'sleep', 'sort'] });
  const asked: ApprovalRequest[] = [];
  const approver: Approver = { kind: 'test', approve: async (r) => (asked.push(r), answer(r)) };
  const sink = memorySink();
  runs = new BackgroundRuns(new AuditLog([sink]));
  const deps: CommandDeps = {
    policy: () => policy, executor: executors[0]!, approver: () => approver, audit: new AuditLog([sink]), isolation: () => NO_ISOLATION,
    memory: new ApprovalMemory(), background: { runs, executor: executors[1]!, session: 's' },
  };
  const read = (id: string, wait = 0, until?: string) => readRun(deps, { tool: 'readOutput' }, { runs, session: 's' }, { id, wait, ...(until && { until }) });
  return { deps, asked, audit: sink.records, read, setPolicy: (p: Partial<Policy>) => (policy = parsePolicy({ ...policy, ...p } as never)) };
}

describe('background commands and approvals', () => {
  it('the start card says it runs on, for how long, and with open input; input is asked again, showing it, and a refused input never arrives', async () => {
    const s = setup('confirm', (r) => ({ approved: !(r.command?.stdinPreview ?? '').includes('secret'), by: 'user', reason: 'not that' }));
    const start = await runCommand({ command: ['cat'], background: { openInput: true }, timeoutSeconds: 120 }, s.deps, { tool: 'shell_execute' });
    expect(start.outcome).toBe('started');
    expect(s.asked[0]!.command).toMatchObject({ stages: [['cat']], background: { lifetimeSeconds: 120, openInput: true } });

    const ok = await controlRuns(s.deps, { tool: 'shell_background' }, { id: 'b1', input: 'hello\n' });
    expect(ok.outcome).toBe('ok');
    expect(s.asked[1]!.command).toMatchObject({ stages: [['cat']], stdinPreview: 'hello\n', background: { inputTo: 'b1' } });
    expect(s.asked[1]!.tool).toBe('shell_background');
    expect((await s.read('b1', 5, 'hello')).text).toBe('hello\n');

    const no = await controlRuns(s.deps, { tool: 'shell_background' }, { id: 'b1', input: 'secret\n' });
    expect(no).toMatchObject({ outcome: 'denied', denial: { code: 'APPROVAL_DENIED' } });
    expect(no.message).toMatch(/not that/);
    // Nothing of it reached the command: after a moment its output still has only what was approved.
    await new Promise((r) => setTimeout(r, 300));
    expect(runs.get('s', 'b1')!.log.total).toBe('hello\n'.length);

    // Stopping is never a question, even in confirm.
    const asked = s.asked.length;
    expect((await controlRuns(s.deps, { tool: 'shell_background' }, { id: 'b1', stop: true })).outcome).toBe('ok');
    expect(s.asked).toHaveLength(asked);
    // The audit has the start, the input's decision, the stop and the end under the start's request id.
    const startId = s.audit.find((r) => r.background_state === 'started')!.request_id;
    expect(s.audit.filter((r) => r.request_id === startId).map((r) => r.background_state ?? r.event)).toEqual(['approval_audit', 'started', 'ended']);
    expect(s.audit.some((r) => r.background_state === 'stop' && r.background === 'b1')).toBe(true);
  });

  it('input is judged under the policy of its moment: a command taken off the allowlist takes no more input', async () => {
    const s = setup('auto', () => ({ approved: true, by: 'user' }));
    expect((await runCommand({ command: ['sort'], background: { openInput: true } }, s.deps, { tool: 'shell_execute' })).outcome).toBe('started');
    expect((await controlRuns(s.deps, { tool: 'shell_background' }, { id: 'b1', input: 'b\na\n' })).outcome).toBe('ok');
    // The person takes sort off the allowlist while it runs: its next input is the request "sort with that stdin",
    // which auto now refuses (a miss is not asked in auto).
    s.setPolicy({ allowCommands: ['cat', 'sleep'] });
    const refused = await controlRuns(s.deps, { tool: 'shell_background' }, { id: 'b1', input: 'c\n' });
    expect(refused).toMatchObject({ outcome: 'denied', denial: { code: 'COMMAND_NOT_ALLOWED' } });
    s.setPolicy({ allowCommands: ['cat', 'sleep', 'sort'] });
    expect((await controlRuns(s.deps, { tool: 'shell_background' }, { id: 'b1', input: 'd\n', closeInput: true })).outcome).toBe('ok');
    expect((await s.read('b1', 5)).text).toBe('a\nb\nd\n');
    expect(s.asked).toHaveLength(0);
  });

  it('a start refused by a person starts nothing and keeps no place', async () => {
    const s = setup('confirm', () => ({ approved: false, by: 'user' }));
    const r = await runCommand({ command: ['sleep', '30'], background: { openInput: false } }, s.deps, { tool: 'shell_execute' });
    expect(r).toMatchObject({ outcome: 'denied', denial: { code: 'APPROVAL_DENIED' } });
    expect(runs.list()).toEqual([]);
    expect(runs.counts()).toEqual({ running: 0, kept: 0 });
  });
});
