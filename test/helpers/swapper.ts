import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A concurrent attacker: a python3 process that swaps two names with renameat2(RENAME_EXCHANGE) in a tight loop
 * (what a sandboxed Makefile recipe could do while the server works on one of the names). Bounded: it stops
 * after `maxRounds` exchanges or when stopped, and reports how many exchanges it made.
 */
const SCRIPT = `
import ctypes, os, signal, sys
stop = [False]
signal.signal(signal.SIGINT, lambda *_: stop.__setitem__(0, True))
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2
a, b, limit = sys.argv[1].encode(), sys.argv[2].encode(), int(sys.argv[3])
n = 0
sys.stdout.write("ready\\n"); sys.stdout.flush()
while n < limit and not stop[0]:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        sys.stderr.write("renameat2: %s\\n" % os.strerror(ctypes.get_errno())); sys.exit(2)
    n += 1
# Leave the names as they started (an even number of exchanges).
if n % 2 == 1:
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE); n += 1
print(n)
`;

export interface Swapper {
  /** Stops the loop (after the current exchange) and resolves with the number of exchanges made. */
  stop(): Promise<number>;
}

export async function startSwapper(a: string, b: string, maxRounds = 5_000_000): Promise<Swapper> {
  const proc: ChildProcess = spawn('python3', ['-c', SCRIPT, a, b, String(maxRounds)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (out.startsWith('ready')) {
        clearInterval(t);
        resolve();
      }
    }, 5);
    proc.once('exit', (code) => {
      clearInterval(t);
      reject(new Error(`swapper exited early (${code}): ${err}`));
    });
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    stop: async () => {
      // SIGINT only sets a flag: the loop ends after a whole exchange and puts the names back.
      if (proc.exitCode === null) proc.kill('SIGINT');
      await exited;
      return Number(out.trim().split('\n').pop()) || 0;
    },
  };
}
