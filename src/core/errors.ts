/**
 * Every error a tool can report, as one union of codes. A code is stable (clients and the audit log match on
 * it); the message is for a person and names what was wrong.
 */
export type ErrorCode =
  | 'BAD_REQUEST' // malformed input: empty argv, NUL byte, unknown option, wrong type
  | 'COMMAND_NOT_ALLOWED' // command name not in the allowlist / patterns
  | 'COMMAND_FORBIDDEN' // command family never runnable (shells, interpreters, wrappers)
  | 'ARGUMENT_FORBIDDEN' // an argument form that runs a helper program or writes outside
  | 'PATH_OUTSIDE_ROOT' // a path (directory, redirect, file) escapes the workspace root
  | 'PATH_PROTECTED' // a path inside the root that is protected (.git internals, own config, audit log)
  | 'PATH_NOT_FOUND'
  | 'MODE_READ_ONLY' // the mode forbids this change
  | 'NOT_READ_ONLY' // shell_readonly: the command is not known to be read-only (or writes through a redirect)
  | 'APPROVAL_UNAVAILABLE' // approval needed but no approver can ask anyone
  | 'APPROVAL_DENIED' // a person (or the approval timeout) said no
  | 'ISOLATION_UNAVAILABLE' // isolation required but no sandbox can run here
  | 'TOOL_DISABLED'
  | 'NETWORK_DENIED' // fetch to a forbidden address
  | 'IO_ERROR'
  | 'LIMIT_REACHED' // a bound on what a session or folder holds (background commands at their cap)
  | 'EXEC_ERROR'; // the process could not be started

export class ToolError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** The rule that produced the error, when one did (e.g. `tar.helper-option`). */
    readonly rule?: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

export function isToolError(e: unknown): e is ToolError {
  return e instanceof ToolError;
}
