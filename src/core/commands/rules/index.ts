/**
 * The argument-hardening rules, one file per family (find, awk, tar, sort, sed, git), plus the names that are
 * never runnable. Other code calls:
 *   judgeCommand(argv, {aliases}) → Verdict for one pipeline stage, judged by every name of its program
 *                            (deny codes BAD_REQUEST, COMMAND_FORBIDDEN, ARGUMENT_FORBIDDEN; allow `rules.none`)
 *   prepareArgv(argv, {aliases, gitReadOnly}) → the argv to spawn (sed `--sandbox`, read-only git hardening)
 *   isKnownReadOnly(argv, {aliases}) → read-only mode's question
 * Defence in depth, not a sandbox: the sandbox is `isolation`.
 */
export { judgeCommand, prepareArgv, namesToJudge, FAMILY_RULES, FORBIDDEN_NAMES_FOR_DOCS, type JudgeOptions } from './judge';
export { familyOf, baseCommandName } from './families';
export { FORBIDDEN_CATEGORIES, FORBIDDEN_PATTERNS, describeForbidden, forbiddenCategory } from './forbidden';
export { hardenSedArgv } from './sed';
export { isKnownReadOnly } from './readonly';
