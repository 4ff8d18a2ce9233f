import type { Verdict } from '../../verdict';

/**
 * A family rule judges the ARGUMENTS of one program family (find, awk, tar, sort, git, sed …) as the program
 * itself would parse them. It is pure, never throws, and returns `allow` (no objection) or `deny` with a rule
 * id of the form `<family>.<what>` and a message a person understands.
 */
export type FamilyRule = (args: readonly string[], invokedAs: string) => Verdict;

/**
 * One entry of a family's table of "options that name a program" (cc.ts, rsync.ts, tar.ts): what the option is
 * and what it does. Each family has ONE such table; its rule denies every spelling of every entry, and the docs
 * (docs/hardening.md) are generated from the tables.
 */
export interface ProgramOption {
  /** The option as written (a trailing `*` means any attached text). */
  readonly option: string;
  /** What it does, as a clause after "it" (the denial reads "… is not allowed: it WHY."). */
  readonly why: string;
  /** Only for these program names (clang's driver reads options gcc's does not). */
  readonly only?: 'clang';
}
