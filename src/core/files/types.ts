import type { ErrorCode } from '../errors';

/** What the file and fetch pipelines need, and one call: the guarded pipeline's own shapes. */
export type { GuardedDeps as FileDeps, GuardedCall as FileCall } from '../pipeline';

export type FileOutcome = 'ok' | 'denied' | 'failed';

/** The structured result of every file tool (the audit event mirrors it, never with file contents). */
export interface FileResult {
  readonly outcome: FileOutcome;
  /** One line for a person: what happened, or what was wrong. */
  readonly message: string;
  /** Paths involved, relative to the root (source first for copy/move). */
  readonly files: readonly string[];
  readonly bytes?: number;
  /** readFile */
  readonly content?: string;
  readonly totalLines?: number;
  /** listFiles */
  readonly entries?: readonly string[];
  readonly truncated?: boolean;
  /** Unified diff of exactly what was (or, for a denial after preview, would have been) written. */
  readonly diff?: string;
  readonly changed?: boolean;
  /** Relative path of the numbered backup of the old content. */
  readonly backup?: string;
  readonly backupDeleted?: boolean;
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
