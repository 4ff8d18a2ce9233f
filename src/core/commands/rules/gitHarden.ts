import { gitLocation } from './git';
import { NEUTRALISED_GIT_CONFIG } from './gitConfigKeys';

/**
 * Read-only git, the way sed gets `--sandbox`: a git subcommand that is known to only read still runs programs
 * named by configuration and attributes (core.fsmonitor on every index refresh, clean filters when a file's
 * stat changed, textconv and external diff drivers in diff/log/show/blame, the pager, the post-index-change
 * hook when status refreshes the index, the signature verifier for a %G format or log.showSignature, credential
 * helpers), and in a partial clone it fetches missing objects from the promisor remote. For read-only calls the
 * executor runs git with those turned off (the reviewed list is gitConfigKeys.ts NEUTRALISED_GIT_CONFIG):
 *
 *   git --no-optional-locks -c core.fsmonitor=false -c core.hooksPath=/dev/null -c core.pager=cat
 *       -c diff.external= -c log.showSignature=false -c gpg.program= … -c credential.helper= -c core.askPass=
 *       -c diff.ignoreSubmodules=all -c protocol.allow=never [-c protocol.NAME.allow=never for every transport]
 *       [-c filter.NAME.clean= -c filter.NAME.smudge= -c filter.NAME.process= for every configured filter]
 *       -c pager.SUB=false <the caller's global options> SUB [--no-ext-diff --no-textconv | --no-textconv] <args>
 *
 * `-c` values reach child git processes (submodules) through GIT_CONFIG_PARAMETERS. An empty filter command
 * is "no filter" to git, an empty signature program is never started. Whether the repository's own
 * configuration lets the call be read-only at all is judged separately (gitConfig.ts, the harmless-key list).
 * Verified against the real git in test/unit/rules/git.real.test.ts and gitReadOnly.property.test.ts.
 */

export const GIT_READ_ONLY_CONFIG: readonly string[] = NEUTRALISED_GIT_CONFIG.map((n) => n.setting);

/** Reading subcommands that never refresh the index or run a configured program. */
const NO_PROGRAMS = new Set(['config', 'var', 'version']);

/** Subcommands that take diff options (external diff and textconv can be switched off on their command line). */
const DIFF_FAMILY = new Set(['diff', 'log', 'show', 'whatchanged', 'diff-tree', 'diff-files', 'diff-index']);
/** Subcommands with a --textconv switch of their own. */
const TEXTCONV_ONLY = new Set(['blame', 'annotate', 'grep']);

/**
 * The hardened argument list (without the program name), or undefined when the call cannot be hardened (a
 * filter name git's `-c` cannot express, or arguments that are not well-formed git globals).
 */
export function hardenGitReadOnlyArgs(args: readonly string[], filterDrivers: readonly string[] = []): string[] | undefined {
  const loc = gitLocation(args);
  if (!loc) return undefined;
  // Reading configuration or printing a variable starts nothing, and `-c` values would show in the output.
  if (loc.sub !== undefined && NO_PROGRAMS.has(loc.sub)) return [...args];
  const config = [...GIT_READ_ONLY_CONFIG];
  for (const name of filterDrivers) {
    if (/[=\n\0]/.test(name)) return undefined;
    config.push(`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`);
  }
  // The subcommand's own pager setting (pager.log=…) outranks core.pager.
  if (loc.sub !== undefined && /^[A-Za-z0-9-]+$/.test(loc.sub)) config.push(`pager.${loc.sub}=false`);
  const head = ['--no-optional-locks', ...config.flatMap((c) => ['-c', c])];
  const globals = args.slice(0, args.length - loc.rest.length - (loc.sub === undefined ? 0 : 1));
  if (loc.sub === undefined) return [...head, ...globals];
  let rest = [...loc.rest];
  let sub = [loc.sub];
  if (loc.sub === 'stash' && rest[0] === 'show') {
    sub = ['stash', 'show'];
    rest = rest.slice(1);
  }
  const subName = sub[sub.length - 1]!;
  const extra = DIFF_FAMILY.has(subName) || (loc.sub === 'stash' && subName === 'show') ? ['--no-ext-diff', '--no-textconv'] : TEXTCONV_ONLY.has(subName) ? ['--no-textconv'] : [];
  return [...head, ...globals, ...sub, ...extra, ...rest];
}
