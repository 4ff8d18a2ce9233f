import type { ApprovalEffect, ApprovalRequest, Approver } from '../approval';
import type { BackupStore, KeptFile } from '../files/backupStore';
import type { IsolationState } from '../isolationState';
import { workspaceReadOnly } from '../modes';
import { isInside } from '../paths/confine';
import type { Policy } from '../policy';
import { applyEffect, keptFiles, type Conflict } from './apply';
import type { CheckpointStore, Snapshot } from './checkpoint';
import { describeEffect } from './describe';
import { EffectRules } from './gitRule';
import { readEffect } from './inventory';
import { removeTree, type OverlayTools, type OverlayView, type Staging } from './overlay';
import type { EffectFile } from './types';

/**
 * What a command does to the workspace, around its run (src/core/commands/run.ts):
 *  - preview: it runs against a copy-on-write view (overlay.ts); afterwards its changes are one card (the diff, its
 *    output), and only Apply writes them, through the file tools' writer (apply.ts); Discard drops them;
 *  - checkpoint: it writes the workspace directly, and a content-addressed store (checkpoint.ts) tells afterwards
 *    what it changed, kept in the backup store so that the history can undo it;
 *  - neither (a read-only command, backups not kept, no store): nothing is recorded.
 */

export interface EffectDeps {
  readonly backups?: () => BackupStore | undefined;
  readonly checkpoints?: () => CheckpointStore | undefined;
}

/** What the result and the audit say about the command's effect. */
export interface CommandEffect {
  readonly via: 'preview' | 'checkpoint';
  /**
   * preview: `applied`, `discarded`, `conflict` (nothing written: files changed meanwhile), `failed` (written in
   * part: `files` says what), `unchanged` (no change); checkpoint: `recorded`, `unchanged`, `not-recorded`.
   */
  readonly outcome: 'applied' | 'discarded' | 'conflict' | 'failed' | 'unchanged' | 'recorded' | 'not-recorded';
  readonly files: readonly EffectFile[];
  /** Files not listed in `files`. */
  readonly more?: number;
  /** preview: the diff that was shown. */
  readonly diff?: string;
  readonly conflicts?: readonly Conflict[];
  /** The history can undo it (its previous bytes are kept). */
  readonly undoable: boolean;
  /** One sentence for the person and the agent. */
  readonly message: string;
  /** Who decided the card, and how long it took (preview). */
  readonly decidedBy?: string;
  readonly decisionMs?: number;
}

/** Said on every effect card and in the docs: what the copy-on-write view does not show. */
export const PREVIEW_LIMITS =
  'The preview shows what the command changed inside this folder. It does not show what it did outside it (its private HOME\'s caches), what it sent or fetched over the network, or anything a process would do later (none outlives the call). A file changed in the folder while the command ran is shown as the command left it.';

export type EffectPlan =
  | { readonly kind: 'preview'; readonly view: OverlayView; readonly tools: OverlayTools }
  | { readonly kind: 'checkpoint'; readonly store: CheckpointStore; readonly snapshot: Snapshot }
  | { readonly kind: 'none'; readonly note?: string };

export interface EffectCall {
  readonly policy: Policy;
  readonly isolation: IsolationState;
  /** The command only reads (its rules say so): nothing to preview or record. */
  readonly readOnly: boolean;
  /** The server writes an output redirect itself, into the real folder. */
  readonly redirects: boolean;
  /** Stages of the pipeline: each is a sandbox of its own, and one view cannot be mounted twice. */
  readonly stages: number;
  /** A person approved this call on a card (not a remembered approval or a rule: those chose not to be asked). */
  readonly asked: boolean;
  readonly approver: Approver;
}

/** Why a command is not previewed, or undefined when it is. */
export function previewRefusal(c: EffectCall): string | undefined {
  const p = c.policy;
  if (p.commandPreview === 'off' || c.readOnly || workspaceReadOnly(p.mode)) return 'off';
  if (p.commandPreview === 'asked' && !c.asked) return 'off';
  const support = c.isolation.preview;
  if (!support) return 'previewing needs the bubblewrap sandbox';
  if ('unavailable' in support) return support.unavailable;
  if (c.redirects) return 'the server writes an output redirect into the folder itself';
  if (c.stages > 1) return 'each stage of a pipeline is a sandbox of its own, and one view cannot be shared by them';
  if (c.approver.kind === 'none') return 'nobody can be asked to apply it';
  if (isInside(p.root, support.staging.dir)) return 'the folder for copy-on-write views is inside the workspace';
  return undefined;
}

/**
 * Said once at start (the CLI's stderr, VS Code's output): previews are wanted, the sandbox runs, but no view can be
 * made here, and why. Otherwise approved commands silently run in the folder (checkpointed for Undo) with no card.
 */
export function previewUnavailableNote(p: Policy, isolation: IsolationState): string | undefined {
  const support = isolation.preview;
  if (p.commandPreview === 'off' || workspaceReadOnly(p.mode) || !support || !('unavailable' in support)) return undefined;
  return `Command preview is unavailable here (${support.unavailable}): approved commands write the folder directly, checkpointed for Undo where checkpoints are on.`;
}

/** Before the run: a view to run in, a snapshot to compare with, or nothing. */
export async function prepareEffect(deps: EffectDeps, c: EffectCall): Promise<EffectPlan> {
  const refusal = previewRefusal(c);
  const support = c.isolation.preview;
  if (refusal === undefined && support && 'tools' in support) return { kind: 'preview', view: (support.staging as Staging).begin(), tools: support.tools };
  const p = c.policy;
  if (c.readOnly && !c.redirects) return { kind: 'none' };
  if (!p.checkpoints || p.editBackup !== 'storage' || workspaceReadOnly(p.mode)) return { kind: 'none' };
  const backups = deps.backups?.();
  const store = deps.checkpoints?.();
  if (!backups || !store || backups.isInside(p.root) || isInside(p.root, store.dir)) return { kind: 'none' };
  const rules = new EffectRules(p);
  const taken = await store.snapshot(rules.guard(), p.checkpointIgnore);
  if ('skipped' in taken) return { kind: 'none', note: `No checkpoint was kept for this command: ${taken.skipped}.` };
  return { kind: 'checkpoint', store, snapshot: taken.snapshot };
}

/** The run did not happen (refused, could not start): drop what prepareEffect made. */
export function abandonEffect(plan: EffectPlan): void {
  if (plan.kind === 'preview') removeTree(plan.view.dir);
  if (plan.kind === 'checkpoint') plan.store.release(plan.snapshot);
}

/** The command as it ran: the fields its card shows (ApprovalEffect's), and how to ask about it. */
export interface SettleCall extends Pick<ApprovalEffect, 'requestId' | 'stages' | 'cwd' | 'outcome' | 'exitCode' | 'stdout' | 'stderr'> {
  readonly tool: string;
  readonly key: string;
  readonly signal?: AbortSignal;
  /** Asks the person (the approver of the call), with the call's transport details. */
  readonly ask: (request: ApprovalRequest) => Promise<{ approved: boolean; by: string; reason?: string }>;
}

/** Characters of each output stream shown on the card. */
const CARD_OUTPUT_CHARS = 4000;

/** After the run: the preview's card and its Apply or Discard; the checkpoint's changes kept for Undo. */
export async function settleEffect(deps: EffectDeps, policy: Policy, plan: EffectPlan, call: SettleCall): Promise<CommandEffect | undefined> {
  if (plan.kind === 'none') return undefined;
  if (plan.kind === 'checkpoint') return settleCheckpoint(deps, policy, plan, call);
  try {
    return await settlePreview(deps, policy, plan, call);
  } finally {
    removeTree(plan.view.dir);
  }
}

async function settlePreview(deps: EffectDeps, policy: Policy, plan: Extract<EffectPlan, { kind: 'preview' }>, call: SettleCall): Promise<CommandEffect> {
  const rules = new EffectRules(policy);
  const steps = await readEffect(plan.view, policy.root, { perl: plan.tools.perl, guard: rules.guard(), gitRefusal: (rel, creating) => rules.gitRefusal(rel, creating) });
  const d = describeEffect(steps);
  const changes = steps.filter((s) => s.op !== 'skip');
  const base = { via: 'preview' as const, files: d.files, ...(d.more && { more: d.more }), diff: d.diff };
  if (steps.length === 0) return { ...base, outcome: 'unchanged', undoable: false, message: 'The command changed no file in the folder.' };
  if (call.signal?.aborted) return { ...base, outcome: 'discarded', undoable: false, message: 'The call was cancelled: its changes were discarded; the folder is as it was.' };
  const effect: ApprovalEffect = {
    requestId: call.requestId,
    stages: call.stages,
    cwd: call.cwd,
    outcome: call.outcome,
    exitCode: call.exitCode,
    stdout: call.stdout.slice(0, CARD_OUTPUT_CHARS),
    stderr: call.stderr.slice(0, CARD_OUTPUT_CHARS),
    files: d.files,
    more: d.more,
    diff: d.diff,
    limits: PREVIEW_LIMITS,
    ...(d.single && { original: d.single.original, proposed: d.single.proposed }),
  };
  const started = Date.now();
  const decision = await call.ask({
    id: `${call.requestId}-effect`,
    tool: call.tool,
    rule: 'effect.preview',
    reason: changes.length
      ? 'The command ran against a copy-on-write view: nothing is written in the folder yet. Apply writes exactly these changes; Discard drops them.'
      : 'The command ran against a copy-on-write view; none of what it did can be applied (see why below).',
    key: call.key,
    effect,
  });
  const decided = { decidedBy: decision.by, decisionMs: Date.now() - started };
  if (!decision.approved) {
    const why = decision.reason ? ` (${decision.reason})` : '';
    return { ...base, ...decided, outcome: 'discarded', undoable: false, message: `Its changes were discarded${why}: the folder is as it was before the command.` };
  }
  // Applied as one change: its previous bytes are kept first (no backup, no change), as for the file tools.
  const guard = rules.guard();
  const keep = policy.editBackup === 'storage' ? keep4Undo(deps, call, steps) : { kept: false };
  if ('error' in keep) return { ...base, ...decided, outcome: 'failed', undoable: false, message: `Nothing was written: ${keep.error}` };
  const r = applyEffect(guard, steps);
  const skipped = steps.length - changes.length;
  const notApplied = skipped ? ` ${skipped} change${skipped === 1 ? ' was' : 's were'} not applied (listed with the reason).` : '';
  if (r.outcome === 'conflict') {
    keep.drop?.();
    const list = r.conflicts.map((c) => `"${c.path}": ${c.why}`).join('; ');
    return { ...base, ...decided, outcome: 'conflict', conflicts: r.conflicts, undoable: false, message: `Nothing was written: files changed in the folder after the command ran, and they are never overwritten (${list}). Run the command again to see its effect on them now.` };
  }
  if (r.outcome === 'failed' && r.applied.length === 0) {
    keep.drop?.();
    return { ...base, ...decided, outcome: 'failed', undoable: false, message: `Nothing was written: ${r.error}` };
  }
  if (r.outcome === 'failed') {
    return { ...base, ...decided, outcome: 'failed', undoable: keep.kept, message: `Writing stopped at "${r.path}": ${r.error} ${r.applied.length} change${r.applied.length === 1 ? ' was' : 's were'} written before it${keep.kept ? ' (Undo in the history restores them)' : ''}.` };
  }
  const undo = keep.kept ? ' Its previous content is kept outside the folder: Undo in the history restores it.' : keep.why ? ` It cannot be undone from the history: ${keep.why}.` : '';
  return { ...base, ...decided, outcome: 'applied', undoable: keep.kept, message: `Applied ${r.applied.length} change${r.applied.length === 1 ? '' : 's'} to the folder.${notApplied}${undo}` };
}

/** The effect's previous bytes into the backup store, under the command's request id. */
function keep4Undo(deps: EffectDeps, call: SettleCall, steps: Parameters<typeof keptFiles>[0]): { kept: boolean; why?: string; drop?: () => void } | { error: string } {
  const store = deps.backups?.();
  if (!store) return { kept: false, why: 'no backup store' };
  const { files, missing } = keptFiles(steps, BACKUP_LIMIT);
  if (missing) return { kept: false, why: missing };
  if (files.length === 0) return { kept: false };
  try {
    if (!store.save(call.requestId, call.tool, files)) return { kept: false, why: 'it is larger than the backup store holds' };
  } catch (e) {
    return { error: `the backup store could not be written (${(e as Error).message})` };
  }
  return { kept: true, drop: () => store.drop(call.requestId) };
}

/** An effect's previous and new bytes, at most (the backup store's own bound). */
const BACKUP_LIMIT = 64 * 1024 * 1024;

async function settleCheckpoint(deps: EffectDeps, policy: Policy, plan: Extract<EffectPlan, { kind: 'checkpoint' }>, call: SettleCall): Promise<CommandEffect> {
  const rules = new EffectRules(policy);
  const changes = await plan.store.changesSince(rules.guard(), policy.checkpointIgnore, plan.snapshot);
  if ('skipped' in changes) return { via: 'checkpoint', outcome: 'not-recorded', files: [], undoable: false, message: `What the command changed was not recorded: ${changes.skipped}.` };
  const files: EffectFile[] = [
    ...changes.files.map((f): EffectFile => ({ path: f.file, change: f.before === null ? 'created' : f.after === null ? 'deleted' : 'modified' })),
    ...changes.notKept.map((f): EffectFile => ({ path: f, change: 'modified', detail: 'too large to keep' })),
  ];
  const ignored = changes.ignoredTouched.length ? ` Not recorded: ${changes.ignoredTouched.map((p) => `"${p}"`).join(', ')} (checkpointIgnore) ${changes.ignoredTouched.length === 1 ? 'was' : 'were'} written too.` : '';
  if (files.length === 0) return { via: 'checkpoint', outcome: 'unchanged', files, undoable: false, message: `The command changed no recorded file.${ignored}` };
  const n = `${files.length} file${files.length === 1 ? '' : 's'}`;
  if (changes.notKept.length) {
    return { via: 'checkpoint', outcome: 'not-recorded', files, undoable: false, message: `The command changed ${n}; it cannot be undone from the history: ${changes.notKept.map((f) => `"${f}"`).join(', ')} ${changes.notKept.length === 1 ? 'is' : 'are'} too large to keep.${ignored}` };
  }
  const store = deps.backups?.();
  let kept = false;
  let why = '';
  try {
    kept = store ? store.save(call.requestId, call.tool, changes.files as KeptFile[]) : false;
    if (!kept) why = ' It cannot be undone from the history: its changes are larger than the backup store holds.';
  } catch (e) {
    why = ` It cannot be undone from the history: the backup store could not be written (${(e as Error).message}).`;
  }
  return { via: 'checkpoint', outcome: kept ? 'recorded' : 'not-recorded', files, undoable: kept, message: `The command changed ${n}.${kept ? ' Their previous content is kept outside the folder: Undo in the history restores it.' : why}${ignored}` };
}
