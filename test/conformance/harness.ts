import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { createExecutor } from '../../src/core/exec/executor';
import { descendantsOf, listProcesses } from '../../src/core/exec/processes';
import type { ExecResult } from '../../src/core/exec/types';
import * as path from 'node:path';
import { conformancePath, PYTHON, type PathName } from './paths';

/**
 * The conformance suite's stand-in for the server, in a process of its own so that it can run as root or as a
 * normal user, and be killed with SIGKILL mid-call (bundled by container.test.ts and started with the request as its
 * argument). It builds the launcher path, runs one command through the real executor, and prints one JSON line.
 *
 *   reach: the attack fixture (reach-container) is told the unix sockets this process and its helpers hold; the
 *          answer carries what the server and its helpers look like from outside (start time and name), so the
 *          test can tell whether the command saw any of them;
 *   run:   any argv; `hold`: prints HELD once the command started, then waits to be killed.
 * `helper` starts the weakened launcher's helper first: a process of the server that takes orders, unauthenticated,
 * on an abstract unix socket (as the old containment zygote's spare took them from a pipe a command could open).
 */
interface Request {
  readonly path: PathName;
  readonly root: string;
  readonly home: string;
  readonly action: 'reach' | 'run';
  readonly argv?: readonly string[];
  readonly hold?: boolean;
  readonly timeoutMs?: number;
  readonly helper?: string;
  /** test/fixtures/bin (this file runs bundled, elsewhere). */
  readonly fixtures: string;
}

interface Seen {
  readonly pid: number;
  readonly comm: string;
  readonly start: string;
}

function seen(pid: number): Seen | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = text.lastIndexOf(')');
    return { pid, comm: text.slice(text.indexOf('(') + 1, close), start: text.slice(close + 2).split(' ')[19]! };
  } catch {
    return undefined;
  }
}

/** The unix sockets (named, or `@abstract`) the given processes hold. */
function socketsOf(pids: readonly number[]): string[] {
  const inodes = new Set<string>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
  }
  const names = new Set<string>();
  for (const line of fs.readFileSync('/proc/self/net/unix', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[7] && inodes.has(f[6]!)) names.add(f[7]);
  }
  return [...names];
}

function startHelper(name: string): Promise<ChildProcess> {
  // Runs whatever line it is sent: the unauthenticated order channel of a weakened launcher.
  const script = `import os, socket, subprocess\ns = socket.socket(socket.AF_UNIX)\ns.bind('\\0${name}')\ns.listen()\nprint('ready', flush=True)\nwhile True:\n  c, _ = s.accept()\n  subprocess.Popen(['/bin/sh', '-c', c.recv(4096).decode()])\n  c.close()\n`;
  const helper = spawn(PYTHON!, ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => helper.stdout.once('data', () => resolve(helper)));
}

async function main(): Promise<void> {
  const req = JSON.parse(process.argv[2]!) as Request;
  const helper = req.helper ? await startHelper(req.helper) : undefined;
  const way = await conformancePath(req.path, { root: req.root, home: req.home });
  const container = [process.pid, ...descendantsOf([process.pid], listProcesses())];
  const sockets = socketsOf(container);
  const server = container.map(seen).filter(Boolean);
  // Only the paths under test are probed: reach-container touches nothing where it can see the server anyway.
  const probe = ['fork-server', 'namespaces', 'bwrap', 'weak-bare-init'].includes(req.path);
  const argv = req.action === 'reach' ? [PYTHON!, path.join(req.fixtures, 'reach-container'), JSON.stringify({ sockets, server, probe })] : req.argv!;
  const ex = createExecutor({ concurrency: 1, killGraceMs: 500 });
  const result: ExecResult = await ex.run({
    stages: [way.prepare({ file: argv[0]!, args: argv.slice(1) }, req.root)],
    launcher: way.launcher,
    cwd: req.root,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: req.home, LANG: 'C' },
    timeoutMs: req.timeoutMs ?? 20_000,
    outputLimitBytes: 1 << 20,
    ...(req.hold && { onStart: () => process.stdout.write('HELD\n') }),
  });
  process.stdout.write(`${JSON.stringify({ result, container: server, sockets })}\n`);
  await ex.shutdown();
  helper?.kill('SIGKILL');
}

main().catch((e: unknown) => {
  process.stdout.write(`${JSON.stringify({ error: String((e as Error).stack ?? e) })}\n`);
  process.exitCode = 1;
});
