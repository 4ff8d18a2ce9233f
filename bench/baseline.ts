import { spawn } from 'node:child_process';

/**
 * The baseline every shell-call figure is compared with: Node's own `child_process.spawn` of the same argv, with
 * stdout captured and the 'close' event awaited — what any MCP shell server must do at the very least.
 */
export function spawnCapture(file: string, args: readonly string[], cwd?: string): Promise<{ stdout: string; bytes: number; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd && { cwd }) });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', (code) => {
      const buf = Buffer.concat(chunks);
      resolve({ stdout: buf.toString('utf8'), bytes: buf.length, code });
    });
  });
}

/** Same, but only counts bytes (for the large-output baseline: nothing is kept). */
export function spawnCount(file: string, args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], { stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (c: Buffer) => (bytes += c.length));
    child.once('error', reject);
    child.once('close', () => resolve(bytes));
  });
}

export async function bareEcho(): Promise<void> {
  const r = await spawnCapture('echo', ['hello']);
  if (r.stdout !== 'hello\n') throw new Error(`baseline echo printed ${JSON.stringify(r.stdout)}`);
}
