import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Approver } from '../../src/core/approval';
import { ApprovalMemory } from '../../src/core/approvalMemory';
import { AuditLog, memorySink, type AuditRecord } from '../../src/core/audit';
import { runCommand, type CommandDeps, type CommandResult } from '../../src/core/commands/run';
import { CheckpointStore, DEFAULT_CHECKPOINT_LIMITS, type CheckpointLimits } from '../../src/core/effects/checkpoint';
import { createExecutor } from '../../src/core/exec/executor';
import type { Executor } from '../../src/core/exec/types';
import { BackupStore } from '../../src/core/files/backupStore';
import { undoChange, UNDO_TOOL } from '../../src/core/files/undo';
import { NO_ISOLATION } from '../../src/core/isolationState';
import { guardFor } from '../../src/core/paths/guard';
import { parsePolicy, type PolicyInput } from '../../src/core/policy';

/**
 * Checkpoints with real programs writing real files, no sandbox (the path every command takes where there is no
 * preview): before the command the store has every file's bytes, afterwards the result names what changed, and the
 * history's Undo (the backup store's entry under the command's request id) restores it.
 */

let executor: Executor;
let base: string;
let ws: string;

beforeAll(() => {
  executor = createExecutor({ concurrency: 2, killGraceMs: 500 });
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-checkpoint-test-')));
  ws = path.join(base, 'ws');
});
afterAll(async () => {
  await executor.shutdown();
  fs.rmSync(base, { recursive: true, force: true });
});
beforeEach(() => {
  for (const d of fs.readdirSync(base)) fs.rmSync(path.join(base, d), { recursive: true, force: true });
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'node_modules', 'dep'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'package.json'), '{ "version": "1.0.0" }\n');
  fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'a\n');
  fs.writeFileSync(path.join(ws, 'node_modules', 'dep', 'index.js'), 'dep\n');
});

interface Setup {
  readonly deps: CommandDeps;
  readonly audit: AuditRecord[];
  readonly backups: BackupStore;
  readonly store: CheckpointStore;
}

function setup(over: Partial<PolicyInput> = {}, limits: CheckpointLimits = DEFAULT_CHECKPOINT_LIMITS): Setup {
  const policy = parsePolicy({ root: ws, mode: 'auto', isolation: 'none', editBackup: 'storage', allowCommands: ['sh'], allowUnsandboxedCode: true, ...over });
  const approver: Approver = { kind: 'test', approve: async () => ({ approved: true, by: 'user' }) };
  const sink = memorySink();
  const backups = new BackupStore(path.join(base, 'backups'));
  const store = new CheckpointStore(path.join(base, 'backups', 'checkpoints'), limits);
  const deps: CommandDeps = {
    policy: () => policy, executor, approver: () => approver, audit: new AuditLog([sink]), isolation: () => NO_ISOLATION,
    memory: new ApprovalMemory(), backups: () => backups, checkpoints: () => store,
  };
  return { deps, audit: sink.records, backups, store };
}

const sh = (s: Setup, script: string, requestId?: string): Promise<CommandResult> =>
  runCommand({ command: ['sh', '-c', script], timeoutSeconds: 30 }, s.deps, { tool: 'shell_execute', ...(requestId && { requestId }) });
const read = (rel: string) => fs.readFileSync(path.join(ws, rel), 'utf8');

describe('checkpoints (no sandbox, real files)', () => {
  it('names what a command changed, and Undo from the history restores the previous bytes exactly', async () => {
    const s = setup();
    const r = await sh(s, 'sed -i "s/1.0.0/1.0.1/" package.json && echo b > src/b.js && rm src/a.js', 'bump-1');
    expect(r.outcome).toBe('ok');
    expect(r.effect).toMatchObject({ via: 'checkpoint', outcome: 'recorded', undoable: true });
    expect(Object.fromEntries(r.effect!.files.map((f) => [f.path, f.change]))).toEqual({ 'package.json': 'modified', 'src/b.js': 'created', 'src/a.js': 'deleted' });
    expect(s.audit.find((a) => a.event === 'shell_execution_audit')).toMatchObject({ effect_via: 'checkpoint', undoable: true, changed_count: 3 });
    expect(read('package.json')).toContain('1.0.1');
    const u = await undoChange({ policy: s.deps.policy, approver: s.deps.approver, audit: s.deps.audit, backups: () => s.backups }, { tool: UNDO_TOOL }, { requestId: 'bump-1' });
    expect(u.outcome, u.message).toBe('ok');
    expect(read('package.json')).toBe('{ "version": "1.0.0" }\n');
    expect(read('src/a.js')).toBe('a\n');
    expect(fs.existsSync(path.join(ws, 'src', 'b.js'))).toBe(false);
  });

  it('records what a person changed between two commands as the second one\'s "before" (its Undo does not bring back stale bytes)', async () => {
    const s = setup();
    await sh(s, 'echo one > src/a.js');
    fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'edited by a person\n');
    await sh(s, 'echo two > src/a.js', 'second');
    const u = await undoChange({ policy: s.deps.policy, approver: s.deps.approver, audit: s.deps.audit, backups: () => s.backups }, { tool: UNDO_TOOL }, { requestId: 'second' });
    expect(u.outcome, u.message).toBe('ok');
    expect(read('src/a.js')).toBe('edited by a person\n');
  });

  it('does not record node_modules (checkpointIgnore) nor .git, and says that an ignored folder was written', async () => {
    fs.mkdirSync(path.join(ws, '.git'));
    const s = setup();
    const r = await sh(s, 'echo x > node_modules/new.js; echo y > .git/HEAD; echo z > src/a.js');
    expect(r.effect!.files.map((f) => f.path)).toEqual(['src/a.js']);
    expect(r.effect!.message).toMatch(/"node_modules" \(checkpointIgnore\) was written too/);
    expect(fs.readdirSync(path.join(base, 'backups', 'checkpoints', 'objects')).length).toBeGreaterThan(0);
  });

  it('a change too big to keep says so in the result (and offers no Undo)', async () => {
    const s = setup({}, { ...DEFAULT_CHECKPOINT_LIMITS, maxFileBytes: 8 });
    fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'more than eight bytes\n');
    const r = await sh(s, 'echo short > src/a.js');
    expect(r.effect).toMatchObject({ outcome: 'not-recorded', undoable: false });
    expect(r.effect!.message).toMatch(/cannot be undone from the history: "src\/a\.js" is too large to keep/);
  });

  it('bounded in files: past the limit there is no checkpoint, and the result says why (the command still runs)', async () => {
    const s = setup({}, { ...DEFAULT_CHECKPOINT_LIMITS, maxFiles: 1 });
    const r = await sh(s, 'echo z > src/a.js');
    expect(r.outcome).toBe('ok');
    expect(r.effect).toMatchObject({ outcome: 'not-recorded', undoable: false });
    expect(r.effect!.message).toMatch(/No checkpoint was kept for this command: the workspace has more than 1 files/);
    expect(read('src/a.js')).toBe('z\n');
  });

  it('no checkpoint without editBackup storage, or with checkpoints off, or for a read-only command', async () => {
    for (const over of [{ editBackup: 'numbered' as const }, { checkpoints: false }]) {
      const r = await sh(setup(over), 'echo z > src/a.js');
      expect(r.effect).toBeUndefined();
    }
    const ro = await runCommand({ command: ['cat', 'package.json'], timeoutSeconds: 30 }, setup({ allowCommands: ['cat'] }).deps, { tool: 'shell_execute' });
    expect(ro.outcome).toBe('ok');
    expect(ro.effect).toBeUndefined();
  });

  it('the store keeps one copy per content and drops what no file uses any more', async () => {
    const s = setup();
    for (let i = 0; i < 5; i++) await sh(s, `echo version-${i}-${'x'.repeat(1000)} > src/a.js`);
    const objects = path.join(base, 'backups', 'checkpoints', 'objects');
    const count = fs.readdirSync(objects).reduce((n, d) => n + fs.readdirSync(path.join(objects, d)).length, 0);
    // package.json, node_modules is not stored, src/a.js's current content: the four older versions are gone.
    expect(count).toBe(2);
    expect(s.store.bytes).toBeLessThan(1200);
  });

  it('a snapshot taken for a command that did not run gives back what it held', async () => {
    const s = setup();
    const taken = await s.store.snapshot(guardFor(s.deps.policy()), []);
    expect('snapshot' in taken).toBe(true);
    if ('snapshot' in taken) s.store.release(taken.snapshot);
  });
});
