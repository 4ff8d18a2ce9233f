/**
 * The argument-hardening rules, one file per family (find, awk, tar, sort, sed, git), plus the names that are
 * never runnable. Other code calls:
 *   judgeCommand(argv)    → Verdict for one pipeline stage (deny codes BAD_REQUEST, COMMAND_FORBIDDEN,
 *                            ARGUMENT_FORBIDDEN; allow rule `rules.none`)
 *   prepareArgv(argv)     → the argv to spawn (adds `--sandbox` for sed)
 *   isKnownReadOnly(argv) → read-only mode's question
 * Defence in depth, not a sandbox: the sandbox is `isolation`.
 */
export { judgeCommand, prepareArgv, FAMILY_RULES, FORBIDDEN_NAMES_FOR_DOCS } from './judge';
export { familyOf, baseCommandName } from './families';
export { FORBIDDEN_CATEGORIES, FORBIDDEN_PATTERNS, describeForbidden, forbiddenCategory } from './forbidden';
export { hardenSedArgv } from './sed';
export { isKnownReadOnly } from './readonly';
