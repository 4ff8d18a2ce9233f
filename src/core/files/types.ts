import type { ErrorCode } from '../errors';

import type { GuardedDeps } from '../pipeline';
import type { BackupStore } from './backupStore';

/** One call: the guarded pipeline's own shape. */
export type { GuardedCall as FileCall } from '../pipeline';

/** What the file pipeline needs: the guarded pipeline's dependencies, and where `editBackup: storage` keeps backups. */
export interface FileDeps extends GuardedDeps {
  /** The store outside the workspace (set by the host: VS Code's extension storage, or the standalone default). */
  readonly backups?: () => BackupStore | undefined;
}

export type FileOutcome = 'ok' | 'denied' | 'failed';

/** The structured result of every file tool (the audit event mirrors it, never with file contents). */
export interface FileResult {
  readonly outcome: FileOutcome;
  /** One line for a person: what happened, or what was wrong. */
  readonly message: string;
  /** Paths involved, relative to the root (source first for copy/move). */
  readonly files: readonly string[];
  readonly bytes?: number;
  /** readFile: the page, the file's lines and size, where the page starts and where to continue. */
  readonly content?: string;
  readonly totalLines?: number;
  readonly size?: number;
  readonly byteOffset?: number;
  readonly nextOffset?: number;
  readonly nextByteOffset?: number;
  /** listFiles */
  readonly entries?: readonly string[];
  readonly truncated?: boolean;
  /** Unified diff of exactly what was (or, for a denial after preview, would have been) written. */
  readonly diff?: string;
  readonly changed?: boolean;
  /** Relative path of the numbered backup of the old content. */
  readonly backup?: string;
  readonly backupDeleted?: boolean;
  /** The previous content was kept outside the workspace (editBackup: storage): the change can be undone. */
  readonly undoable?: boolean;
  readonly approvedBy?: string;
  readonly denial?: { readonly code: ErrorCode; readonly message: string; readonly rule: string };
  readonly error?: { readonly code: ErrorCode; readonly message: string; readonly rule?: string };
}

/** Codes that mean "the rules said no" (a denial) rather than "it was tried and failed". */
const DENIAL_CODES: ReadonlySet<ErrorCode> = new Set([
  'PATH_OUTSIDE_ROOT', 'PATH_PROTECTED', 'MODE_READ_ONLY', 'APPROVAL_UNAVAILABLE', 'APPROVAL_DENIED', 'TOOL_DISABLED',
  'NETWORK_DENIED', 'ARGUMENT_FORBIDDEN', 'COMMAND_FORBIDDEN',
]);

export function isDenialCode(code: ErrorCode): boolean {
  return DENIAL_CODES.has(code);
}
