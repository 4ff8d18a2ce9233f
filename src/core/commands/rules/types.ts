import type { Verdict } from '../../verdict';

/**
 * A family rule judges the ARGUMENTS of one program family (find, awk, tar, sort, git, sed …) as the program
 * itself would parse them. It is pure, never throws, and returns `allow` (no objection) or `deny` with a rule
 * id of the form `<family>.<what>` and a message a person understands.
 */
export type FamilyRule = (args: readonly string[], invokedAs: string) => Verdict;
