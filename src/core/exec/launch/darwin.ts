import type { Sandbox, SandboxContext } from '../../isolation/types';
import type { Launcher, PreparedStage, Program } from './contract';
import { stopGroups, sweepGroups } from './posix';
import { startError } from './preflight';
import { spawnCall, unstarted } from './spawn';

/**
 * The macOS launcher (UNTESTED ON A REAL MAC: its argv and profile are tested as data on Linux; the conformance
 * suite is written to run on a macOS runner). A stage runs in Seatbelt (`sandbox-exec -p <profile>`, whose
 * `(target same-sandbox)` rules keep it from signalling or inspecting any process outside its sandbox, the server
 * included) or, without a sandbox, plainly; either way it leads its own session and process group.
 *
 * macOS has no PID namespace and no subreaper a program may ask for; kqueue only tells that a known process
 * forked (NOTE_FORK), too late to stop a grandchild that left its session. So a stop signals the group and walks
 * the process tree (`ps`, tree-kill): a process that left its session AND was re-parented before the stop can
 * outlive its call, and nothing dies with a server killed by SIGKILL (docs/isolation.md, the platform gaps).
 */
export const DARWIN_LIMITATION =
  'macOS has no PID namespaces: a process that leaves its session and is re-parented can outlive its call, and nothing of a running call dies with a server killed by SIGKILL.';

export function createDarwinLauncher(o: { readonly sandbox?: Sandbox } = {}): Launcher {
  return {
    name: o.sandbox ? 'seatbelt' : 'process-group',
    contained: false,
    limitation: DARWIN_LIMITATION,
    prepare(program: Program, sandbox?: SandboxContext): PreparedStage {
      if (!sandbox) return { ...program, launcher: 'process-group', program };
      if (!o.sandbox) throw new Error('No sandbox runs here.');
      return { ...o.sandbox.wrap(program, sandbox), launcher: 'seatbelt', program };
    },
    start(call) {
      // Seatbelt's exec of the program is at the end of sandbox-exec: its failure words come from here.
      for (const s of call.stages) {
        const error = s.launcher === 'seatbelt' ? startError(s.program ?? s, call.env) : undefined;
        if (error) return Promise.resolve([unstarted(error)]);
      }
      return Promise.resolve(spawnCall(call, true));
    },
    stop: (call, graceMs) => stopGroups(call, graceMs, false),
    sweep: (call) => sweepGroups(call, false),
  };
}
