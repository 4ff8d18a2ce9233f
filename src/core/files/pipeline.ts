import { randomUUID } from 'node:crypto';
import type { ApprovalRequest, ChangeKind } from '../approval';
import { ToolError } from '../errors';
import type { KeptFile } from './backupStore';
import type { ResolvedPath } from '../paths/confine';
import { problemOf, runGuarded, type Denial } from '../pipeline';
import { checkProtectedTargets } from './decide';
import { isDenialCode, type FileCall, type FileDeps, type FileResult } from './types';
import type { Verdict } from '../verdict';

/**
 * File tools on the one guarded pipeline (src/core/pipeline.ts): plan (resolve and confine every path) → decide
 * (protected paths, the mode table) → preview (the exact new content and its diff) → approval (sees that diff) →
 * apply → audit. No file tool writes anything any other way.
 */

export interface ChangePreview {
  /** Unified diff of exactly what apply() will write. */
  readonly diff?: string;
  readonly original?: string;
  readonly proposed?: string;
  /** Nothing would change: no approval is asked, and apply() must not write. */
  readonly unchanged?: boolean;
}

export interface ApplyOutcome extends Omit<Partial<FileResult>, 'outcome' | 'message'> {
  readonly message: string;
}

export interface PlannedChange {
  readonly kind: ChangeKind;
  /** Every path the change creates, replaces or removes: each is checked against the protected paths. */
  readonly targets: readonly ResolvedPath[];
  /** Relative paths for the approver, the result and the audit. */
  readonly files: readonly string[];
  /** More fields of every audit event of this change (never contents), e.g. which change an Undo reverts. */
  readonly audit?: Record<string, unknown>;
  /** Verdicts of the change itself beside the protected paths' (an Undo over later changes asks in every mode). */
  readonly checks?: readonly Verdict[];
  /** Computes the new content; runs only after the verdict allowed or asked (a denied change costs nothing). */
  readonly preview?: () => ChangePreview | Promise<ChangePreview>;
  readonly apply: (preview: ChangePreview) => ApplyOutcome | Promise<ApplyOutcome>;
  /**
   * Each file's bytes before and after, once approved and before apply(): with `editBackup: storage` they are
   * kept outside the workspace first (no backup, no change), so the history can undo the change.
   */
  readonly keep?: (preview: ChangePreview) => readonly KeptFile[];
}

const audited = (r: FileResult) => ({
  files: r.files,
  ...(r.bytes !== undefined && { bytes: r.bytes }),
  ...(r.truncated !== undefined && { truncated: r.truncated }),
  ...(r.changed !== undefined && { changed: r.changed }),
  ...(r.backup !== undefined && { backup: r.backup, backup_deleted: r.backupDeleted === true }),
  ...(r.undoable && { undoable: true }),
  ...(r.error && { error_code: r.error.code, error_message: r.error.message, ...(r.error.rule && { rule: r.error.rule }) }),
});

export function runFileChange(deps: FileDeps, given: FileCall, plan: () => PlannedChange | Promise<PlannedChange>): Promise<FileResult> {
  let files: readonly string[] = [];
  let preview: ChangePreview = {};
  // The request id names the change's backup (and its Undo), so it is fixed here rather than in runGuarded.
  const call = { ...given, requestId: given.requestId ?? randomUUID() };
  return runGuarded<FileResult>(deps, call, {
    event: 'file_audit',
    audited,
    failed: (e) => failure(e, files),
    refused: (d) => ({ ...denied(d, files), ...(preview.diff !== undefined && { diff: preview.diff }) }),
    plan: async (policy) => {
      const planned = await plan();
      files = planned.files;
      return {
        actions: ['fileChange'],
        checks: [...checkProtectedTargets(planned.targets, policy), ...(planned.checks ?? [])],
        what: 'this change',
        subject: { files, ...planned.audit },
        preview: async () => {
          if (planned.preview) preview = await planned.preview();
          return { skipApproval: preview.unchanged === true };
        },
        request: (verdict, id): ApprovalRequest => ({
          id,
          tool: call.tool,
          rule: verdict.rule,
          reason: verdict.reason,
          key: `${call.tool} ${files.join(' ')}`,
          change: {
            kind: planned.kind,
            files,
            ...(preview.diff !== undefined && { diff: preview.diff }),
            ...(preview.proposed !== undefined && { proposed: preview.proposed }),
            ...(preview.original !== undefined && { original: preview.original }),
          },
        }),
        execute: async (gated) => {
          const keep = policy.editBackup === 'storage' && planned.keep ? planned.keep(preview) : [];
          const kept = keepBackup(deps, call, policy.root, keep);
          // The person learns that this one cannot be undone, rather than finding no Undo in the history later.
          const notKept = keep.length > 0 && !kept ? ' No backup was kept: the previous content is larger than the backup store holds, so this change cannot be undone from the history.' : '';
          let out: ApplyOutcome;
          try {
            out = await planned.apply(preview);
          } catch (e) {
            kept?.drop();
            throw e;
          }
          if (out.changed === false) kept?.drop();
          const undoable = kept !== undefined && out.changed !== false;
          return {
            outcome: 'ok', files, ...out,
            ...(notKept && out.changed !== false && { message: `${out.message}${notKept}` }),
            ...(undoable && { undoable, message: `${out.message} The previous content is kept outside the workspace.` }),
            ...(gated.approvedBy && { approvedBy: gated.approvedBy }),
          };
        },
      };
    },
  });
}

/**
 * `editBackup: storage`: keeps the files' previous bytes before anything is written; a store that cannot be written
 * fails the change (nothing is changed without its backup). An entry too large for the store is not kept.
 */
function keepBackup(deps: FileDeps, call: FileCall & { requestId: string }, root: string, files: readonly KeptFile[]): { drop(): void } | undefined {
  if (files.length === 0) return undefined;
  const store = deps.backups?.();
  if (!store) throw new ToolError('IO_ERROR', 'editBackup is "storage" but this server has no backup store; nothing was written.', 'backup.no-store');
  if (store.isInside(root)) {
    throw new ToolError('IO_ERROR', `The backup store (${store.dir}) is inside the workspace, where the agent's tools could reach it; nothing was written. Set editBackup to numbered or none for this folder.`, 'backup.store-inside');
  }
  if (!store.save(call.requestId, call.tool, files)) return undefined;
  return { drop: () => store.drop(call.requestId) };
}

/** Reads: the mode table allows them in every mode; confinement (inside `run`) is their rule; every read is audited (paths and sizes, never contents). */
export function runFileRead(deps: FileDeps, call: FileCall, run: () => Omit<FileResult, 'outcome'> | Promise<Omit<FileResult, 'outcome'>>): Promise<FileResult> {
  return runGuarded<FileResult>(deps, call, {
    event: 'file_audit',
    audited,
    failed: (e) => failure(e, []),
    refused: (d) => denied(d, []),
    plan: () => ({
      actions: ['read'],
      checks: [],
      what: 'this read',
      subject: {},
      request: () => {
        throw new Error('reads are never asked');
      },
      execute: async () => ({ outcome: 'ok', ...(await run()) }),
    }),
  });
}

function denied(d: Denial, files: readonly string[]): FileResult {
  return { outcome: 'denied', message: d.message, files, denial: d };
}

/** Any exception as a result: ToolErrors keep their code; anything else is an I/O error with its message. */
export function failure(e: unknown, files: readonly string[]): FileResult {
  return { files, ...problemOf(e, isDenialCode, 'file.denied') };
}
