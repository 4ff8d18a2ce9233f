import type { ApprovalRequest, ChangeKind } from '../approval';
import type { ResolvedPath } from '../paths/confine';
import { problemOf, runGuarded, type Denial } from '../pipeline';
import { checkProtectedTargets } from './decide';
import { isDenialCode, type FileCall, type FileDeps, type FileResult } from './types';

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
  /** Computes the new content; runs only after the verdict allowed or asked (a denied change costs nothing). */
  readonly preview?: () => ChangePreview | Promise<ChangePreview>;
  readonly apply: (preview: ChangePreview) => ApplyOutcome | Promise<ApplyOutcome>;
}

const audited = (r: FileResult) => ({
  files: r.files,
  ...(r.bytes !== undefined && { bytes: r.bytes }),
  ...(r.truncated !== undefined && { truncated: r.truncated }),
  ...(r.changed !== undefined && { changed: r.changed }),
  ...(r.backup !== undefined && { backup: r.backup, backup_deleted: r.backupDeleted === true }),
  ...(r.error && { error_code: r.error.code, error_message: r.error.message, ...(r.error.rule && { rule: r.error.rule }) }),
});

export function runFileChange(deps: FileDeps, call: FileCall, plan: () => PlannedChange | Promise<PlannedChange>): Promise<FileResult> {
  let files: readonly string[] = [];
  let preview: ChangePreview = {};
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
        checks: checkProtectedTargets(planned.targets, policy),
        what: 'this change',
        subject: { files },
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
        execute: async (gated) => ({ outcome: 'ok', files, ...(await planned.apply(preview)), ...(gated.approvedBy && { approvedBy: gated.approvedBy }) }),
      };
    },
  });
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
