import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Launcher, Program } from '../../src/core/exec/launch/contract';
import { plainLinuxLauncher } from '../../src/core/exec/launch';
import { createLinuxLauncher, probeLinuxContainment } from '../../src/core/exec/launch/linux';
import { findLinuxTools, NO_CAPABILITIES } from '../../src/core/exec/launch/linuxChains';
import { findForkServer } from '../../src/core/exec/launch/forkServer';
import { probeIsolation } from '../../src/core/isolation/probe';
import { sandboxFromProbe } from '../../src/core/isolation/select';
import type { SandboxContext } from '../../src/core/isolation/types';

/**
 * The launcher paths of this platform the conformance suite runs (contract.ts): each with the launcher and, for the
 * sandbox, the context a call's stage is prepared in. Also the deliberately weakened launchers, which the suite
 * must fail. Used by the test files and by harness.ts (the same code, run as another user).
 */
export type PathName = 'fork-server' | 'namespaces' | 'bwrap' | 'plain' | 'weak-shared-proc' | 'weak-bare-init';

export interface ConformancePath {
  readonly name: PathName;
  readonly launcher: Launcher;
  /** The stage of `program` run in `cwd` (inside `root`, the workspace). */
  prepare(program: Program, cwd: string): ReturnType<Launcher['prepare']>;
}

/** The workspace the sandbox confines to, and a home directory it hides. */
export interface Workspace {
  readonly root: string;
  readonly home: string;
}

export function makeWorkspace(): Workspace & { remove(): void } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-conformance-')));
  const root = path.join(base, 'ws');
  const home = path.join(base, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(home);
  for (const d of [base, root, home]) fs.chmodSync(d, 0o777);
  return { root, home, remove: () => fs.rmSync(base, { recursive: true, force: true }) };
}

export async function conformancePath(name: PathName, ws: Workspace): Promise<ConformancePath> {
  switch (name) {
    case 'fork-server': {
      const binary = findForkServer();
      if (!binary) throw new Error('no fork server here (its binary in dist/)');
      const launcher = createLinuxLauncher({ containment: { kind: 'fork-server', binary } });
      return { name, launcher, prepare: (p) => launcher.prepare(p) };
    }
    case 'namespaces':
    case 'weak-shared-proc':
    case 'weak-bare-init': {
      const tools = findLinuxTools();
      if (!tools) throw new Error('no util-linux here');
      const containment = { kind: 'namespaces' as const, tools };
      const launcher = createLinuxLauncher({ containment });
      if (name === 'namespaces') return { name, launcher, prepare: (p) => launcher.prepare(p) };
      if (name === 'weak-bare-init') {
        // Weakened: the capabilities dropped BEFORE the namespace's PID 1, which the command can then trace.
        const t = tools;
        return { name, launcher, prepare: (p) => {
          const prepared = launcher.prepare(p);
          const cut = prepared.args.indexOf(t.timeout);
          const init = prepared.args.slice(cut, cut + 3); // timeout --foreground 0
          return { ...prepared, args: [...prepared.args.slice(0, cut), t.setpriv, ...NO_CAPABILITIES, '--', ...init, p.file, ...p.args] };
        } };
      }
      // Weakened: the command's namespaces as they are, but the host's /proc (no mount namespace of its own).
      return { name, launcher, prepare: (p) => ({ ...launcher.prepare(p), args: launcher.prepare(p).args.filter((a) => a !== '--mount-proc') }) };
    }
    case 'bwrap': {
      const sandbox = sandboxFromProbe(await probeIsolation('linux'));
      if (!sandbox) throw new Error('bubblewrap cannot run here');
      const launcher = createLinuxLauncher({ containment: probeLinuxContainment(), sandbox });
      const ctx = (cwd: string): SandboxContext => ({ root: ws.root, cwd, mode: 'auto', network: 'deny', home: ws.home });
      return { name, launcher, prepare: (p, cwd) => launcher.prepare(p, ctx(cwd)) };
    }
    case 'plain': {
      const launcher = plainLinuxLauncher();
      return { name, launcher, prepare: (p) => launcher.prepare(p) };
    }
  }
}

/** The python3 the attack fixture runs under: a real interpreter (a pyenv shim under /root is neither nobody's nor the sandbox's). */
export const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => fs.existsSync(p));

/** The fixtures' folder (the attack fixture: reach-container). */
export const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'bin');
