import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../../src/core/approval';
import { ApprovalMemory } from '../../src/core/approvalMemory';
import { AuditLog, memorySink, type AuditRecord } from '../../src/core/audit';
import { runCommand, type CommandDeps, type CommandResult } from '../../src/core/commands/run';
import { CheckpointStore } from '../../src/core/effects/checkpoint';
import { probeOverlay, type OverlayProbe } from '../../src/core/effects/overlay';
import { createExecutor } from '../../src/core/exec/executor';
import type { Executor } from '../../src/core/exec/types';
import { BackupStore } from '../../src/core/files/backupStore';
import { undoChange, UNDO_TOOL } from '../../src/core/files/undo';
import { probeIsolation } from '../../src/core/isolation/probe';
import type { IsolationProbe } from '../../src/core/isolation/types';
import { parsePolicy, type PolicyInput } from '../../src/core/policy';
import { isolationFor } from '../../src/server/isolation';
import { describeWith, has } from '../helpers/needs';

/**
 * Command preview with the real things: real bubblewrap, the real overlayfs mount step, real programs, real files.
 * A command the mode asks about runs against the copy-on-write view; its effect comes back as one card (this test's
 * approver plays the person: it looks at the folder while the card is open, edits it, applies or discards); Apply
 * writes through the file tools' writer. Each test is named after what it guarantees or the attack it stops.
 */

let probe: IsolationProbe;
let overlay: OverlayProbe;
let executor: Executor;
let base: string;
let ws: string;
let outside: string;

beforeAll(async () => {
  if (!has('bubblewrap', 'overlay')) return;
  probe = await probeIsolation('linux');
  overlay = await probeOverlay();
  if (!overlay.available) throw new Error(overlay.reason);
  executor = createExecutor({ concurrency: 2, killGraceMs: 500 });
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-preview-test-')));
  ws = path.join(base, 'ws');
  outside = path.join(base, 'outside');
});

afterAll(async () => {
  await executor?.shutdown();
  if (overlay?.available) overlay.staging.dispose();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

beforeEach(() => {
  if (!base) return;
  for (const d of [ws, outside]) fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(ws, 'tracked.txt'), 'one\ntwo\nthree\n');
  fs.writeFileSync(path.join(ws, 'src', 'a.js'), 'export const a = 1;\n');
  fs.writeFileSync(path.join(ws, 'src', 'b.js'), 'export const b = 2;\n');
  fs.writeFileSync(path.join(ws, 'image.bin'), Buffer.from([0, 1, 2, 3, 255]));
});

type Answer = (r: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

interface Setup {
  readonly deps: CommandDeps;
  readonly effects: ApprovalRequest[];
  readonly audit: AuditRecord[];
  readonly backups: BackupStore;
}

function setup(answer: Answer, over: Partial<PolicyInput> = {}): Setup {
  const policy = parsePolicy({
    root: ws, mode: 'confirm', isolation: 'required', commandPreview: 'asked', editBackup: 'storage',
    allowCommands: ['sh', 'touch', 'cp', 'mv', 'rm', 'mkdir', 'chmod', 'ln', 'git', 'printf', 'true'], ...over,
  });
  const isolation = isolationFor(policy, probe, {}, () => undefined, overlay);
  const effects: ApprovalRequest[] = [];
  // The command's own card is approved; the effect card is this test's person.
  const approver: Approver = { kind: 'test', approve: async (r) => (r.effect ? (effects.push(r), answer(r)) : { approved: true, by: 'user' }) };
  const sink = memorySink();
  const backups = new BackupStore(path.join(base, 'backups'));
  const deps: CommandDeps = {
    policy: () => policy, executor, approver: () => approver, audit: new AuditLog([sink]), isolation: () => isolation,
    memory: new ApprovalMemory(), backups: () => backups,
  };
  return { deps, effects, audit: sink.records, backups };
}

const run = (s: Setup, command: string[]): Promise<CommandResult> => runCommand({ command, timeoutSeconds: 30 }, s.deps, { tool: 'shell_execute' });
const apply: Answer = () => ({ approved: true, by: 'user' });
const read = (rel: string) => fs.readFileSync(path.join(ws, rel), 'utf8');

/** The pending copy of `name` in a view's upper layer below the staging folder. */
function findStaged(dir: string, name: string): string | undefined {
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name === name && e.parentPath.includes(`${path.sep}upper`)) return path.join(e.parentPath, e.name);
  }
  return undefined;
}

/** Every entry of the folder with its type, mode and bytes: "byte-identical" means this is equal. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (rel: string) => {
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(path.join(root, p));
      if (st.isDirectory()) {
        out[p] = `dir ${(st.mode & 0o7777).toString(8)}`;
        visit(p);
      } else if (st.isSymbolicLink()) out[p] = `link ${fs.readlinkSync(path.join(root, p))}`;
      else out[p] = `file ${(st.mode & 0o7777).toString(8)} ${fs.readFileSync(path.join(root, p)).toString('base64')}`;
    }
  };
  visit('');
  return out;
}

describeWith('bubblewrap', 'overlay')('command preview (real bubblewrap, real overlayfs)', () => {
  it('shows a created file and a rewritten tracked file as one card before anything is written; Apply lands exactly those bytes', async () => {
    const before = tree(ws);
    let seenWhileOpen: Record<string, string> | undefined;
    const s = setup(() => {
      seenWhileOpen = tree(ws);
      return { approved: true, by: 'user' };
    });
    const touched = await run(s, ['touch', 'new.txt']);
    expect(touched.outcome).toBe('ok');
    expect(s.effects).toHaveLength(1);
    expect(seenWhileOpen).toEqual(before);
    expect(s.effects[0]!.effect!.files).toEqual([{ path: 'new.txt', change: 'created' }]);
    expect(touched.effect).toMatchObject({ via: 'preview', outcome: 'applied', undoable: true });
    expect(fs.readFileSync(path.join(ws, 'new.txt')).length).toBe(0);

    const rewritten = await run(s, ['sh', '-c', 'printf "one\\nTWO\\nthree\\nfour\\n" > tracked.txt.tmp && mv tracked.txt.tmp tracked.txt']);
    expect(rewritten.outcome).toBe('ok');
    const card = s.effects[1]!.effect!;
    expect(card.files).toEqual([{ path: 'tracked.txt', change: 'modified' }]);
    expect(card.diff).toBe('--- a/tracked.txt\n+++ b/tracked.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four\n');
    expect(card.limits).toMatch(/outside/);
    expect(read('tracked.txt')).toBe('one\nTWO\nthree\nfour\n');
    expect(fs.existsSync(path.join(ws, 'tracked.txt.tmp'))).toBe(false);
  });

  it('Discard leaves the folder byte-identical, whatever the command did', async () => {
    const before = tree(ws);
    const s = setup(() => ({ approved: false, by: 'user', reason: 'not now' }));
    const r = await run(s, ['sh', '-c', 'echo x >> tracked.txt; rm -rf src; mkdir src; echo new > src/c.js; chmod 700 image.bin; ln -s tracked.txt link; touch made.txt']);
    expect(r.outcome).toBe('ok');
    expect(r.effect).toMatchObject({ outcome: 'discarded', undoable: false });
    expect(r.effect!.message).toContain('not now');
    expect(tree(ws)).toEqual(before);
  });

  it('lists deletions, a folder removed and made again (opaque), a rename, a mode change, a link and a binary file by name', async () => {
    const s = setup(apply);
    const r = await run(s, ['sh', '-c', 'rm -rf src && mkdir src && echo fresh > src/c.js && mv tracked.txt moved.txt && chmod 755 image.bin && ln -s moved.txt link && printf "\\0\\1" > blob.bin']);
    expect(r.outcome).toBe('ok');
    const card = s.effects[0]!.effect!;
    const files = Object.fromEntries(card.files.map((f) => [f.path, f.detail ? `${f.change} ${f.detail}` : f.change]));
    expect(files).toEqual({
      'blob.bin': 'created', 'image.bin': 'mode', link: 'link created moved.txt', 'moved.txt': 'renamed tracked.txt',
      'src/a.js': 'deleted', 'src/b.js': 'deleted', 'src/c.js': 'created',
    });
    expect(card.diff).toContain('Binary file blob.bin: created, 2 bytes');
    expect(card.diff).toContain('Mode of image.bin: 644 -> 755');
    expect(card.diff).not.toContain('\u0000');
    expect(tree(ws)).toMatchObject({ 'moved.txt': expect.stringMatching(/^file 644 /), link: 'link moved.txt', 'src/c.js': expect.any(String) });
    expect(fs.existsSync(path.join(ws, 'src', 'a.js'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 'tracked.txt'))).toBe(false);
    expect(fs.statSync(path.join(ws, 'image.bin')).mode & 0o777).toBe(0o755);
  });

  it('a file edited in the folder while the card is open is a conflict: shown, never overwritten, and nothing else is written', async () => {
    const s = setup(() => {
      fs.writeFileSync(path.join(ws, 'tracked.txt'), 'edited by the person\n');
      return { approved: true, by: 'user' };
    });
    const r = await run(s, ['sh', '-c', 'echo four >> tracked.txt; touch other.txt']);
    expect(r.effect).toMatchObject({ outcome: 'conflict', undoable: false });
    expect(r.effect!.conflicts).toEqual([{ path: 'tracked.txt', why: 'it was changed in the workspace after the command ran' }]);
    expect(read('tracked.txt')).toBe('edited by the person\n');
    expect(fs.existsSync(path.join(ws, 'other.txt'))).toBe(false);
  });

  it('Undo from the backup store restores the bytes an applied effect replaced', async () => {
    const s = setup(apply);
    const before = tree(ws);
    const requestId = 'cmd-undo-1';
    const r = await runCommand({ command: ['sh', '-c', 'echo four >> tracked.txt; rm src/a.js; echo c > src/c.js'], timeoutSeconds: 30 }, s.deps, { tool: 'shell_execute', requestId });
    expect(r.effect).toMatchObject({ outcome: 'applied', undoable: true });
    expect(s.audit.find((a) => a.event === 'shell_execution_audit')).toMatchObject({ undoable: true, effect_outcome: 'applied', changed_files: ['src/a.js', 'src/c.js', 'tracked.txt'] });
    const u = await undoChange({ policy: s.deps.policy, approver: s.deps.approver, audit: s.deps.audit, backups: () => s.backups }, { tool: UNDO_TOOL }, { requestId });
    expect(u.outcome).toBe('ok');
    expect(tree(ws)).toEqual(before);
  });

  it('stops a previewed command from planting a git hook or configuration through Apply', async () => {
    fs.mkdirSync(path.join(ws, '.git'));
    fs.writeFileSync(path.join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const s = setup(apply);
    const r = await run(s, ['sh', '-c', 'mkdir -p .git/hooks && printf "#!/bin/sh\\nid\\n" > .git/hooks/pre-commit; echo "[core]" > .git/config; mkdir -p sub/.git && echo x > sub/.git/config; touch fine.txt']);
    const notApplied = r.effect!.files.filter((f) => f.change === 'not applied').map((f) => f.path);
    expect(notApplied).toEqual(expect.arrayContaining(['.git/hooks', '.git/config', 'sub/.git']));
    expect(fs.existsSync(path.join(ws, '.git', 'hooks'))).toBe(false);
    expect(fs.existsSync(path.join(ws, '.git', 'config'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 'sub', '.git'))).toBe(false);
    expect(fs.existsSync(path.join(ws, 'fine.txt'))).toBe(true);
  });

  it('applies what git writes in .git (objects, index, refs) beside the work tree, so a commit lands whole', async (ctx) => {
    if (!has('git')) return ctx.skip('git is not installed'); // skipped: no git on this machine (.ci/run installs it)
    const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.test', '-C', ws, ...a], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    const s = setup(apply);
    const r = await run(s, ['sh', '-c', 'echo four >> tracked.txt && git -c user.name=T -c user.email=t@example.test commit -q -am second']);
    expect(r.exitCode).toBe(0);
    expect(r.effect!.outcome).toBe('applied');
    expect(s.effects[0]!.effect!.diff).toMatch(/git's internals: \d+ entries in \.git/);
    expect(git('log', '--format=%s').trim().split('\n')).toEqual(['second', 'first']);
    expect(git('status', '--porcelain').trim()).toBe('');
  });

  it('stops Apply from writing through a folder swapped for a link to outside the workspace after the card was shown', async () => {
    const s = setup(() => {
      fs.renameSync(path.join(ws, 'src'), path.join(base, 'src-moved'));
      fs.symlinkSync(outside, path.join(ws, 'src'));
      return { approved: true, by: 'user' };
    });
    const r = await run(s, ['sh', '-c', 'echo planted > src/c.js']);
    expect(r.effect).toMatchObject({ outcome: "failed", undoable: false });
    expect(r.effect!.message).toMatch(/^Nothing was written: .*symbolic link/);
    expect(fs.readdirSync(outside)).toEqual([]);
    fs.rmSync(path.join(base, 'src-moved'), { recursive: true, force: true });
  });

  it('does not apply a setuid bit the command set on a file it made', async () => {
    const s = setup(apply);
    await run(s, ['sh', '-c', 'printf "#!/bin/sh\\n" > tool.sh && chmod 4755 tool.sh']);
    expect(fs.statSync(path.join(ws, 'tool.sh')).mode & 0o7777).toBe(0o755);
  });

  it('a file removed and another made with the same bytes are a rename only one to one, never for empty files', async () => {
    const s = setup(apply);
    fs.writeFileSync(path.join(ws, 'empty.txt'), '');
    const r = await run(s, ['sh', '-c', 'rm empty.txt; touch other.txt; cp src/a.js copy1.js; cp src/a.js copy2.js; rm src/a.js']);
    const files = Object.fromEntries(s.effects[0]!.effect!.files.map((f) => [f.path, f.change]));
    expect(files).toEqual({ 'empty.txt': 'deleted', 'other.txt': 'created', 'copy1.js': 'created', 'copy2.js': 'created', 'src/a.js': 'deleted' });
    expect(r.effect!.outcome).toBe('applied');
  });

  it('stops Apply from writing bytes other than those the card showed (the view\'s copy changed while the card was open)', async () => {
    const s = setup(() => {
      // The card is open: something running as the server's user rewrites the pending copy in the staging folder.
      const staged = findStaged(overlay.available ? overlay.staging.dir : '', 'c.js');
      fs.writeFileSync(staged!, 'not what the card showed\n');
      return { approved: true, by: 'user' };
    });
    const r = await run(s, ['sh', '-c', 'echo shown > src/c.js']);
    expect(s.effects[0]!.effect!.diff).toContain('+shown');
    expect(r.effect).toMatchObject({ outcome: 'failed', undoable: false });
    expect(r.effect!.message).toMatch(/not what the card showed/);
    expect(fs.existsSync(path.join(ws, 'src', 'c.js'))).toBe(false);
  });

  it('a command with an output redirect is not previewed (the server writes the redirect itself): a checkpoint records it', async () => {
    const s = setup(apply, { allowCommands: ['printf'], checkpoints: true });
    const store = new CheckpointStore(path.join(base, 'backups', 'checkpoints'));
    const deps = { ...s.deps, checkpoints: () => store };
    const r = await runCommand({ command: ['printf', 'x', '>', 'out.txt'], timeoutSeconds: 30 }, deps, { tool: 'shell_execute' });
    expect(s.effects).toHaveLength(0);
    expect(fs.readFileSync(path.join(ws, 'out.txt'), 'utf8')).toBe('x');
    expect(r.effect).toMatchObject({ via: 'checkpoint', outcome: 'recorded', files: [{ path: 'out.txt', change: 'created' }] });
  });

  it('a pipeline is not previewed (each stage is a sandbox of its own): it runs, and a checkpoint records it', async () => {
    const s = setup(apply, { allowCommands: ['sh', 'cat'] });
    const store = new CheckpointStore(path.join(base, 'backups', 'checkpoints'));
    const r = await runCommand({ command: ['sh', '-c', 'echo piped > p.txt; echo out', '|', 'cat'], timeoutSeconds: 30 }, { ...s.deps, checkpoints: () => store }, { tool: 'shell_execute' });
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('out\n');
    expect(s.effects).toHaveLength(0);
    expect(r.effect).toMatchObject({ via: 'checkpoint', outcome: 'recorded', files: [{ path: 'p.txt', change: 'created' }] });
  });

  it('a command that changes nothing brings no card', async () => {
    const s = setup(apply);
    const r = await run(s, ['sh', '-c', 'cat tracked.txt > /dev/null; touch -c tracked.txt']);
    expect(r.outcome).toBe('ok');
    expect(s.effects).toHaveLength(0);
    expect(r.effect).toMatchObject({ outcome: 'unchanged' });
  });

  it('a command the mode does not ask about writes directly under "asked" (auto mode)', async () => {
    const s = setup(apply, { mode: 'auto' });
    const r = await run(s, ['touch', 'direct.txt']);
    expect(r.outcome).toBe('ok');
    expect(s.effects).toHaveLength(0);
    expect(fs.existsSync(path.join(ws, 'direct.txt'))).toBe(true);
  });
});
