import { applyPatch, parsePatch, reversePatch, type StructuredPatch, type StructuredPatchHunk } from 'diff';
import { ToolError } from '../errors';

/**
 * applyPatch without an external `patch` binary: jsdiff applies a unified diff to the current text, in memory.
 * The explicit `file` parameter is authoritative (names inside the diff are never used to pick a target), so
 * GNU patch options that pick targets, inputs, outputs, backups or strip levels have nothing to act on and are
 * refused; only options that change HOW hunks match are accepted.
 */

export interface PatchOptions {
  readonly reverse: boolean;
  readonly ignoreWhitespace: boolean;
  readonly fuzz: number;
}

const MAX_FUZZ = 10;
const NO_EFFECT = new Set(['-u', '--unified', '-s', '--silent', '--quiet', '-t', '--batch', '-N', '--forward', '-f', '--force', '--verbose']);

/** Parses the safe GNU patch flags (-R/--reverse, -l/--ignore-whitespace, -F N/-FN/--fuzz=N/--fuzz N). */
export function parsePatchArgs(args: readonly string[]): PatchOptions {
  let reverse = false;
  let ignoreWhitespace = false;
  let fuzz = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (typeof a !== 'string' || a.includes('\0')) throw new ToolError('BAD_REQUEST', 'A patch option contains a NUL byte.', 'patch.nul');
    if (a === '-R' || a === '--reverse') reverse = true;
    else if (a === '-l' || a === '--ignore-whitespace') ignoreWhitespace = true;
    else if (NO_EFFECT.has(a)) continue;
    else if (a === '-F' || a === '--fuzz') fuzz = fuzzValue(a, args[++i]);
    else if (/^-F\d+$/.test(a)) fuzz = fuzzValue('-F', a.slice(2));
    else if (a.startsWith('--fuzz=')) fuzz = fuzzValue('--fuzz', a.slice('--fuzz='.length));
    else {
      const name = a.startsWith('--') ? a.split('=')[0]! : a.slice(0, 2);
      throw new ToolError(
        'ARGUMENT_FORBIDDEN',
        `The patch option ${name} is not allowed (the file parameter is the only target; options that choose files, folders, backups, outputs or strip levels are refused). Allowed: -R/--reverse, -l/--ignore-whitespace, -F N/--fuzz=N.`,
        'patch.option',
      );
    }
  }
  return { reverse, ignoreWhitespace, fuzz };
}

function fuzzValue(flag: string, v: string | undefined): number {
  if (v === undefined || !/^\d+$/.test(v) || Number(v) > MAX_FUZZ) throw new ToolError('BAD_REQUEST', `${flag} needs a fuzz factor from 0 to ${MAX_FUZZ}, got ${v === undefined ? 'nothing' : `"${v}"`}.`, 'patch.fuzz');
  return Number(v);
}

/** The one file patch inside `diffText`; several files in one diff are refused (the target is explicit). */
export function parseSinglePatch(diffText: string): StructuredPatch {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(diffText);
  } catch (e) {
    throw new ToolError('BAD_REQUEST', `The diff cannot be parsed: ${(e as Error).message}`, 'patch.parse');
  }
  const withHunks = patches.filter((p) => p.hunks.length > 0);
  if (withHunks.length === 0) throw new ToolError('BAD_REQUEST', 'The diff has no hunks (no "@@ -a,b +c,d @@" sections); nothing to apply.', 'patch.empty');
  if (withHunks.length > 1) throw new ToolError('BAD_REQUEST', `The diff changes ${withHunks.length} files; applyPatch applies a diff to the one file it is given. Send one diff per file.`, 'patch.many-files');
  return withHunks[0]!;
}

/** Applies the patch to `original`; a hunk that does not fit is an error naming it. */
export function applyUnifiedDiff(original: string, diffText: string, options: PatchOptions): string {
  let patch = parseSinglePatch(diffText);
  if (options.reverse) patch = reversePatch(patch);
  const apply = (p: StructuredPatch) =>
    applyPatch(original, p, {
      fuzzFactor: options.fuzz,
      ...(options.ignoreWhitespace && { compareLine: (_n: number, line: string, _op: string, content: string) => squash(line) === squash(content) }),
    });
  const result = apply(patch);
  if (result !== false) return result;
  // Find the first hunk that does not fit by applying growing prefixes of the patch.
  let failed = patch.hunks.length - 1;
  for (let i = 1; i <= patch.hunks.length; i++) {
    if (apply({ ...patch, hunks: patch.hunks.slice(0, i) }) === false) {
      failed = i - 1;
      break;
    }
  }
  const hunk = patch.hunks[failed]!;
  throw new ToolError(
    'BAD_REQUEST',
    `The patch does not apply: hunk #${failed + 1} of ${patch.hunks.length} (${header(hunk)}) does not match the file${options.fuzz ? ` even with fuzz ${options.fuzz}` : ''}. First lines it expects:\n${expected(hunk)}\nNothing was written.`,
    'patch.hunk-failed',
  );
}

function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function header(h: StructuredPatchHunk): string {
  return `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
}

function expected(h: StructuredPatchHunk): string {
  return h.lines.filter((l) => l.startsWith(' ') || l.startsWith('-')).slice(0, 3).map((l) => `  ${l}`).join('\n');
}
