import { runHelper } from '../exec/launch/spawn';
import { ToolError } from '../errors';
import { detectLineEnding, toLf, withLineEnding } from './text';

/**
 * GNU sed as a pure text transform: run by the server itself (runHelper: no shell, not through the agent's
 * allowlist) with `--sandbox` (no `e`, `r`, `w`: sed cannot run programs or touch files), the script as the ONE
 * program (`-e script`), the current content on stdin and the proposed content read from stdout. Only options
 * that neither select files nor add programs are accepted — the same list as cmdshellmcp.
 */

const SAFE_LONG = new Set(['--posix', '--quiet', '--silent', '--regexp-extended']);
const SAFE_SHORT = new Set(['n', 'E', 'r', 's', 'u']);

const WHY_REFUSED: Record<string, string> = {
  i: 'edits in place; the server writes the file itself, after the diff is approved',
  e: 'adds another program; the script parameter is the only program',
  f: 'reads a program from a file; the script parameter is the only program',
  z: 'changes what a line is; the diff would not match what the agent expects',
  l: 'changes line wrapping of the l command',
};

/** Validates sed options; returns them unchanged or throws ARGUMENT_FORBIDDEN naming the first bad one. */
export function checkSedArgs(args: readonly string[]): string[] {
  for (const a of args) {
    if (typeof a !== 'string' || a.includes('\0')) throw new ToolError('BAD_REQUEST', 'A sed option contains a NUL byte.', 'sed.nul');
    if (SAFE_LONG.has(a)) continue;
    if (/^-[A-Za-z]+$/.test(a)) {
      const bad = [...a.slice(1)].find((c) => !SAFE_SHORT.has(c));
      if (bad === undefined) continue;
      const why = WHY_REFUSED[bad] ? ` (it ${WHY_REFUSED[bad]})` : '';
      throw new ToolError('ARGUMENT_FORBIDDEN', `The sed option -${bad}${a.length > 2 ? ` in "${a}"` : ''} is not allowed${why}. Allowed: -n -E -r -s -u --posix --quiet --silent --regexp-extended.`, 'sed.option');
    }
    if (a.startsWith('--')) {
      const name = a.split('=')[0]!;
      const why = name.startsWith('--in-place') ? ' (it edits in place; the server writes the file itself, after the diff is approved)'
        : name === '--follow-symlinks' ? ' (the server resolves links itself and never follows one out of the workspace)'
          : name.startsWith('--expression') || name.startsWith('--file') ? ' (the script parameter is the only program)' : '';
      throw new ToolError('ARGUMENT_FORBIDDEN', `The sed option ${name} is not allowed${why}. Allowed: -n -E -r -s -u --posix --quiet --silent --regexp-extended.`, 'sed.option');
    }
    throw new ToolError('ARGUMENT_FORBIDDEN', `"${a}" is not a sed option (sed reads only the file being edited; put the program in "script").`, 'sed.operand');
  }
  return [...args];
}

export interface SedOptions {
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  readonly signal?: AbortSignal;
  /** Program to run (tests); default: GNU sed found on PATH (`sed`, else `gsed`). */
  readonly sedPath?: string;
}

let gnuSed: Promise<string> | undefined;

/** Finds GNU sed with --sandbox once per process: `sed` on Linux, `gsed` (Homebrew gnu-sed) on macOS. */
export function findGnuSed(): Promise<string> {
  return (gnuSed ??= (async () => {
    for (const candidate of ['sed', 'gsed']) {
      const r = await runHelper(candidate, ['--sandbox', '-e', 's/a/b/'], { timeoutMs: 5000, env: safeEnv(), input: 'a\n' });
      if (!r.error && r.stdout.toString('utf8') === 'b\n') return candidate;
    }
    gnuSed = undefined; // try again next time: it may be installed later
    throw new ToolError('EXEC_ERROR', 'editFile needs GNU sed with --sandbox (version 4.3 or later), and none was found on PATH as "sed" or "gsed". On macOS: brew install gnu-sed.', 'sed.missing');
  })());
}

/** Runs `sed --sandbox [args] -e script` on `input` and returns its standard output. */
export async function runSed(script: string, args: readonly string[], input: string, options: SedOptions = {}): Promise<string> {
  if (script.includes('\0')) throw new ToolError('BAD_REQUEST', 'The sed script contains a NUL byte.', 'sed.nul');
  const safeArgs = checkSedArgs(args);
  const sed = options.sedPath ?? (await findGnuSed());
  const maxBuffer = options.maxOutputBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { error: e, stdout, stderr } = await runHelper(sed, ['--sandbox', ...safeArgs, '-e', script], {
    timeoutMs, maxOutputBytes: maxBuffer, env: safeEnv(), input: Buffer.from(input, 'utf8'), ...(options.signal && { signal: options.signal }),
  });
  const errText = stderr.trim();
  if (e) {
    const code = e.code as unknown;
    if (code === 'ENOENT') throw new ToolError('EXEC_ERROR', `sed could not be started (${sed} not found).`, 'sed.missing');
    if (code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') throw new ToolError('BAD_REQUEST', `sed produced more than ${maxBuffer} bytes; nothing was written.`, 'sed.too-much-output');
    if (e.name === 'AbortError') throw new ToolError('EXEC_ERROR', 'The edit was canceled; nothing was written.', 'sed.canceled');
    if (e.killed) throw new ToolError('EXEC_ERROR', `sed did not finish within ${timeoutMs / 1000} s and was stopped; nothing was written.`, 'sed.timeout');
    if (/disabled in sandbox mode/.test(errText)) throw new ToolError('ARGUMENT_FORBIDDEN', `sed refused the script: ${errText} (commands that read files, write files or run programs are not allowed). Nothing was written.`, 'sed.sandbox');
    throw new ToolError('BAD_REQUEST', `sed failed${typeof code === 'number' ? ` (exit ${code})` : ''}: ${errText || e.message}. Nothing was written.`, 'sed.failed');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(stdout);
  } catch {
    throw new ToolError('BAD_REQUEST', 'sed produced bytes that are not valid UTF-8; nothing was written.', 'sed.not-utf8');
  }
}

/**
 * The editFile transform: a CRLF file is given to sed with LF endings (so `$` and `s/x$/…/` work as on any
 * Unix file) and turned back into CRLF afterwards, so the file's line endings survive any script. A missing
 * final newline survives because GNU sed does not add one.
 */
export async function sedTransform(original: string, script: string, args: readonly string[], options: SedOptions = {}): Promise<string> {
  const ending = detectLineEnding(original);
  const out = await runSed(script, args, ending === 'crlf' ? toLf(original) : original, options);
  return ending === 'crlf' ? withLineEnding(out, 'crlf') : out;
}

function safeEnv(): NodeJS.ProcessEnv {
  // Only what sed needs: PATH to be found, a UTF-8 locale so `.` matches a character, not a byte.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C.UTF-8' };
}
