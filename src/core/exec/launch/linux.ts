import * as fs from 'node:fs';
import { ToolError } from '../../errors';
import { overlayStep } from '../../effects/overlay';
import type { Sandbox, SandboxContext } from '../../isolation/types';
import type { CallProcesses, LaunchCall, LaunchedStage, Launcher, PreparedStage, Program } from './contract';
import { currentIdentity, findLinuxTools, namespacesChain, type Identity, type LinuxTools } from './linuxChains';
import { stopGroups, sweepGroups } from './posix';
import { startError } from './preflight';
import { findForkServer, forkServerTrialSync, startForked } from './forkServer';
import { spawnCall, trialRun, trialRunSync, unstarted } from './spawn';

/**
 * The Linux launcher. One implementation; the ways a stage runs (the argv of each: linuxChains.ts, forkServer.ts):
 *  - `bwrap`: in the bubblewrap sandbox (`prepare` given the sandbox context), PID 1 of its namespace a process the
 *    command cannot reach;
 *  - without a sandbox, in PID, mount and (not root) user namespaces of its own, with its own /proc and no
 *    capability, in a namespace that dies with the server:
 *    - `fork-server`: forked by the launcher's fork server (a small C process), so the server forks nothing;
 *    - `namespaces`: where it was not built (no C compiler) or cannot run, by one exec chain per stage from the
 *      server (util-linux, coreutils);
 *  - `plain`: only where the kernel lets none of these run (no util-linux, or no namespaces: a container's seccomp
 *    profile), said loudly: a process that leaves its session can outlive its call, and a command can see the
 *    server's processes.
 * Every stage of a call starts the way it was prepared, in its own session and process group.
 */

export type LinuxContainment =
  | { readonly kind: 'fork-server'; readonly binary: string }
  | { readonly kind: 'namespaces'; readonly tools: LinuxTools }
  | { readonly kind: 'plain'; readonly limitation: string };

export interface LinuxLauncherOptions {
  readonly containment: LinuxContainment;
  /** The sandbox, when it runs here (isolation/bwrap.ts: its wrap already has the sandbox's PID 1 step). */
  readonly sandbox?: Sandbox;
  readonly identity?: Identity;
}

export function createLinuxLauncher(o: LinuxLauncherOptions): Launcher {
  const who = o.identity ?? currentIdentity();
  const c = o.containment;
  const name = c.kind;
  /** How each started stage was prepared: it decides how its call is stopped. */
  const ways = new WeakMap<LaunchedStage, string>();
  const namespaced = (call: CallProcesses) => call.stages.some((s) => ways.get(s) !== 'plain');
  return {
    name,
    contained: c.kind !== 'plain',
    ...(c.kind === 'plain' && { limitation: c.limitation }),
    prepare(program: Program, sandbox?: SandboxContext): PreparedStage {
      if (sandbox) {
        if (!o.sandbox) throw new ToolError('ISOLATION_UNAVAILABLE', 'No sandbox runs here.', 'isolation.no-sandbox');
        const wrapped = o.sandbox.wrap(program, sandbox);
        if (!sandbox.overlay) return { ...wrapped, launcher: 'bwrap', program };
        // Preview: a mount step in front of the sandbox makes the copy-on-write view, then execs bubblewrap in its
        // place (src/core/effects/overlay.ts); the view lives in that step's mount namespace only.
        const argv = overlayStep(sandbox.overlay.tools, sandbox.root, sandbox.overlay.view, [wrapped.file, ...wrapped.args]);
        return { file: argv[0]!, args: argv.slice(1), launcher: 'bwrap', program };
      }
      if (c.kind === 'plain') return { ...program, launcher: 'plain', program };
      // The fork server makes the stage's namespaces itself (forkServer.c): its stage is the command's own argv.
      if (c.kind === 'fork-server') return { ...program, launcher: 'fork-server', program };
      const argv = namespacesChain(program, c.tools, who);
      return { file: argv[0]!, args: argv.slice(1), launcher: c.kind, program };
    },
    async start(call: LaunchCall): Promise<LaunchedStage[]> {
      const way = sameWay(call, c);
      if (way !== 'plain') {
        for (const s of call.stages) {
          const error = startError(s.program ?? s, call.env);
          if (error) return [unstarted(error)];
        }
      }
      // The fork server starts the sandbox's stages too where it runs (as is: they contain themselves), connected by
      // real pipes; Node's own are socket pairs, whose writer gets ECONNRESET, not SIGPIPE, when its reader ends early.
      const forked = c.kind === 'fork-server' && (way === 'fork-server' || way === 'bwrap');
      const stages = forked ? await startForked(c.binary, call, way === 'fork-server') : spawnCall(call, way === 'plain');
      for (const s of stages) ways.set(s, way);
      return stages;
    },
    stop: (call, graceMs) => stopGroups(call, graceMs, namespaced(call)),
    sweep: (call) => sweepGroups(call, namespaced(call)),
  };
}

/**
 * Every stage of a call starts the way it was prepared, or none does: never some of them the weaker way, and a stage
 * no launcher prepared only where there is no containment to skip.
 */
function sameWay(call: LaunchCall, c: LinuxContainment): string {
  const ways = new Set(call.stages.map((s) => s.launcher ?? (c.kind === 'plain' ? 'plain' : 'unprepared')));
  if (ways.size > 1) throw new Error('the stages of one call disagree on how they are started');
  const way = [...ways][0] ?? 'plain';
  if (way === 'unprepared' || (way === 'fork-server' && c.kind !== 'fork-server')) throw new Error('a stage this launcher did not prepare');
  return way;
}

const NO_TOOLS = 'unshare and setpriv (util-linux) or timeout (coreutils) are not in /usr/bin or /bin';
const plainBecause = (why: string): LinuxContainment => ({
  kind: 'plain',
  limitation: `Commands are NOT contained: ${why}. A process that starts its own session can outlive its call or a SIGKILL of the server, and a command can see (and, as the same user, signal and trace) the server's processes. Install util-linux, or run the server where PID namespaces can be made (root, or unprivileged user namespaces allowed).`,
});

/** The trial of both ways: `sh` exits 3 only as PID 2 of a new PID namespace (PID 1 its init). */
const TRIAL: Program = { file: '/bin/sh', args: ['-c', 'exit $(($$ + 1))'] };

let probed: LinuxContainment | undefined;

/**
 * Which containment works here, by real trial runs (once per process): the fork server (its binary, which needs
 * nothing else), else the exec chain (namespaces, through util-linux), else plain.
 */
export function probeLinuxContainment(who: Identity = currentIdentity()): LinuxContainment {
  if (probed) return probed;
  const binary = findForkServer();
  const forked = binary !== undefined && forkServerWorks(binary);
  const tools = forked ? undefined : findLinuxTools();
  return (probed = chosen(forked ? binary : undefined, tools, tools !== undefined && namespacesWork(tools, who)));
}

function chosen(forkServer: string | undefined, tools: LinuxTools | undefined, chained: boolean): LinuxContainment {
  if (forkServer) return { kind: 'fork-server', binary: forkServer };
  if (!tools) return plainBecause(NO_TOOLS);
  return chained ? { kind: 'namespaces', tools } : plainBecause('no PID namespace can be made here (the trial run of unshare failed)');
}

/** The fork server's own trial, blocking: a stage it forks runs as PID 2 of a namespace of its own. */
export function forkServerWorks(binary: string): boolean {
  return forkServerTrialSync(binary, [TRIAL.file, ...TRIAL.args]) === 3;
}

/** The exec chain's own trial, blocking: the command runs as PID 2 of a namespace of its own. */
export function namespacesWork(tools: LinuxTools, who: Identity = currentIdentity()): boolean {
  return trialRunSync(namespacesChain(TRIAL, tools, who)) === 3;
}

/**
 * The same probe without blocking the event loop: the server runs it at start beside the sandbox probe. The fork
 * server's trial runs through the long-lived fork server the calls will use, which stays up for the first call.
 */
export async function probeLinuxContainmentAsync(who: Identity = currentIdentity()): Promise<LinuxContainment> {
  if (probed) return probed;
  const binary = findForkServer();
  const forked = binary !== undefined && (await forkedTrial(binary)) === 3;
  const tools = forked ? undefined : findLinuxTools();
  return (probed ??= chosen(forked ? binary : undefined, tools, tools !== undefined && (await trialRun(namespacesChain(TRIAL, tools, who))) === 3));
}

async function forkedTrial(binary: string): Promise<number | null> {
  let root: number | undefined;
  try {
    root = fs.openSync('/', fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    const [stage] = await startForked(binary, {
      stages: [TRIAL],
      env: { PATH: '/usr/bin:/bin' },
      cwd: { real: '/', path: '/', fd: root },
      stdin: 'ignore',
      stdout: 'pipe',
    });
    const timer = setTimeout(() => stage!.emit('exit', null, 'timeout'), 5000).unref();
    return await new Promise<number | null>((resolve) => {
      stage!.stdout?.resume();
      stage!.stderr?.resume();
      stage!.once('exit', (code: number | null) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  } catch {
    return null;
  } finally {
    if (root !== undefined) fs.closeSync(root);
  }
}
