import { execFile, spawn, spawnSync } from 'node:child_process';

/**
 * Short programs the server runs for ITSELF, not for the agent: GNU sed as a pure text transform and the sandbox
 * probe. No shell, a fixed environment, bounded time and output, killed with SIGKILL on timeout or abort, stdin
 * written and closed. (Agent commands go through the executor, never through this.)
 */
export interface HelperResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  /** Set when the program could not start, failed, timed out (`killed`), was aborted or wrote too much. */
  readonly error?: NodeJS.ErrnoException & { killed?: boolean };
}

export interface HelperOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly input?: string | Buffer;
  readonly maxOutputBytes?: number;
  readonly signal?: AbortSignal;
}

export function runHelper(file: string, args: readonly string[], o: HelperOptions): Promise<HelperResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      [...args],
      { timeout: o.timeoutMs, killSignal: 'SIGKILL', maxBuffer: o.maxOutputBytes ?? 1024 * 1024, encoding: 'buffer', env: o.env, ...(o.signal && { signal: o.signal }) },
      (err, stdout, stderr) => resolve({ stdout, stderr: stderr.toString('utf8'), ...(err && { error: err as HelperResult['error'] }) }),
    );
    child.stdin?.on('error', () => {}); // a helper that exits without reading its input is answered by its exit status
    child.stdin?.end(o.input ?? '');
  });
}

/**
 * A trial run at start (does this launcher work here?): synchronous, bounded, no shell; returns the exit status
 * (null when it could not start or was killed). `stdio` may hand the helper extra descriptors.
 */
export function trialRunSync(argv: readonly string[], stdio: ReadonlyArray<'ignore' | number>, timeoutMs = 5000): number | null {
  return spawnSync(argv[0]!, argv.slice(1), { timeout: timeoutMs, killSignal: 'SIGKILL', stdio: [...stdio] }).status;
}

/** The same trial run, without blocking the event loop (start-up runs it beside the sandbox probe). */
export function trialRun(argv: readonly string[], stdio: ReadonlyArray<'ignore' | number>, timeoutMs = 5000): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { timeout: timeoutMs, killSignal: 'SIGKILL', stdio: [...stdio] });
    child.once('error', () => resolve(null));
    child.once('close', (code) => resolve(code));
  });
}
