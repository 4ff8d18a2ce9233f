import { allow, deny, type Verdict } from '../../verdict';
import { awkRule } from './awk';
import { baseCommandName, familyOf } from './families';
import { findRule } from './find';
import { describeForbidden, judgeForbiddenName } from './forbidden';
import { gitRule } from './git';
import { hardenSedArgv, sedRule } from './sed';
import { sortRule } from './sort';
import { tarRule } from './tar';
import type { FamilyRule } from './types';


/**
 * Argument hardening for ONE pipeline stage (argv[0] is the command name exactly as given, maybe a path).
 * The allowlist is judged elsewhere; this is the second, independent layer: never-runnable names and the
 * argument forms by which allowed programs start other programs or write where they should not.
 * Order: name sanity → forbidden names → family rule → allow (`rules.none`). Never throws.
 *
 * Defence in depth, not a sandbox: the sandbox is `isolation`.
 */

export const FAMILY_RULES: Readonly<Record<string, FamilyRule>> = {
  find: findRule,
  awk: awkRule,
  tar: tarRule,
  sort: sortRule,
  sed: sedRule,
  git: gitRule,
};

/** Characters a command NAME may contain: letters, digits and `. _ + - / @ : ,` (paths, versions, drives). */
const SAFE_NAME = /^[A-Za-z0-9._+\-/@:,]+$/;

function judgeName(name: string): Verdict | undefined {
  if (name === '') return deny('BAD_REQUEST', 'name.empty', 'The command name is empty.');
  if (/[\0\n\r]/.test(name)) return deny('BAD_REQUEST', 'name.control-character', `The command name ${JSON.stringify(name)} contains a newline or NUL byte.`);
  if (!SAFE_NAME.test(name)) {
    return deny('BAD_REQUEST', 'name.metacharacter', `The command name ${JSON.stringify(name)} contains white space, a shell metacharacter or another character that is not allowed in a command name. Give the program name alone and its arguments as separate argv elements.`);
  }
  if (name.startsWith('-')) return deny('BAD_REQUEST', 'name.metacharacter', `The command name "${name}" starts with "-".`);
  if (baseCommandName(name) === '') return deny('BAD_REQUEST', 'name.empty', `The command name "${name}" names a directory, not a program.`);
  return undefined;
}

function judgeArgumentBytes(args: readonly string[]): Verdict | undefined {
  for (const a of args) {
    if (a.includes('\0')) return deny('BAD_REQUEST', 'argv.nul', 'An argument contains a NUL byte, which no program can receive.');
    if (a.startsWith('-')) {
      const eq = a.indexOf('=');
      const optName = eq >= 0 ? a.slice(0, eq) : a;
      if (/[\x00-\x1f\x7f]/.test(optName)) {
        return deny('BAD_REQUEST', 'argv.option-name-control-character', `The option name ${JSON.stringify(optName)} contains a newline or another control character.`);
      }
    }
  }
  return undefined;
}

export function judgeCommand(argv: readonly string[]): Verdict {
  try {
    if (!Array.isArray(argv) || argv.length === 0) return deny('BAD_REQUEST', 'argv.empty', 'The command is empty.');
    if (!argv.every((a) => typeof a === 'string')) return deny('BAD_REQUEST', 'argv.type', 'Every argv element must be a string.');
    const name = argv[0]!;
    const args = argv.slice(1);
    const verdict =
      judgeName(name) ??
      judgeArgumentBytes(args) ??
      judgeForbiddenName(name) ??
      (() => {
        const family = familyOf(name);
        const rule = family !== undefined ? FAMILY_RULES[family] : undefined;
        if (!rule) return undefined;
        const v = rule(args, name);
        return v.kind === 'allow' ? undefined : v;
      })();
    return verdict ?? allow('rules.none');
  } catch (e) {
    // A rule must never throw; if one does, the request is denied (fail closed) and the bug is visible.
    return deny('ARGUMENT_FORBIDDEN', 'rules.internal-error', `The argument rules could not judge this command (${(e as Error)?.message ?? 'unknown error'}), so it is denied.`);
  }
}

/** The argv to actually spawn for one stage: `--sandbox` added for sed, otherwise the same argv. */
export function prepareArgv(argv: readonly string[]): string[] {
  if (argv.length > 0 && familyOf(argv[0]!) === 'sed') return [argv[0]!, ...hardenSedArgv(argv.slice(1))];
  return [...argv];
}

/** For the README / docs: every never-runnable name and pattern. */
export const FORBIDDEN_NAMES_FOR_DOCS = describeForbidden();
