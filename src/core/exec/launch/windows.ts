import * as path from 'node:path';
import { ToolError } from '../../errors';
import type { SandboxContext } from '../../isolation/types';
import type { Launcher, PreparedStage, Program } from './contract';
import { stopGroups } from './posix';
import { spawnCall } from './spawn';

/**
 * The Windows launcher, until a Job-Object launcher exists: commands run only with `isolation: none` (there is no
 * sandbox to prepare a stage for), in a process of their own, and a stop ends the tree with `taskkill /T /F`
 * (tree-kill). A process a command starts detached (`start`, a service) is not in that tree and can outlive its
 * call; nothing dies with a server killed outright. For a sandbox, run the server inside WSL (bubblewrap).
 */
export const WINDOWS_LIMITATION =
  'Windows has no sandbox or containment here yet (no Job Object): a process a command starts detached can outlive its call, and a running call does not die with a server killed outright. For isolation, run Guarded Shell inside WSL with bubblewrap.';

/** Programs Windows starts only through cmd.exe, which Guarded Shell never runs (its parsing is a shell's). */
const NEEDS_SHELL = /\.(cmd|bat)$/i;

export function createWindowsLauncher(): Launcher {
  return {
    name: 'windows',
    contained: false,
    limitation: WINDOWS_LIMITATION,
    prepare(program: Program, sandbox?: SandboxContext): PreparedStage {
      if (sandbox) throw new ToolError('ISOLATION_UNAVAILABLE', `Windows has no sandbox for Guarded Shell; set isolation to "none", or run it inside WSL for bubblewrap.`, 'isolation.windows');
      if (NEEDS_SHELL.test(program.file)) {
        throw new ToolError(
          'COMMAND_NOT_ALLOWED',
          `"${path.win32.basename(program.file)}" is a batch file: Windows runs it only through cmd.exe, a shell Guarded Shell never starts. Run the program it starts instead (for npm: node with npm's npm-cli.js), or use WSL.`,
          'windows.batch-file',
        );
      }
      return { ...program, launcher: 'windows', program };
    },
    start: (call) => Promise.resolve(spawnCall(call)),
    stop: (call, graceMs) => stopGroups(call, graceMs, false),
    // No process groups to sweep: a stage's tree is ended by `stop` only.
    sweep: () => undefined,
  };
}
