import type { Sandbox } from '../../isolation/types';
import type { Launcher } from './contract';
import { createDarwinLauncher } from './darwin';
import { createLinuxLauncher, probeLinuxContainment, probeLinuxContainmentAsync, type LinuxContainment } from './linux';
import { createWindowsLauncher } from './windows';

/**
 * The launcher of this platform (contract.ts). Adding a platform: a module here with a `create…Launcher` that
 * implements the contract, a branch below, and the conformance suite (test/conformance) run on that platform's
 * runner, its gaps written in docs/isolation.md.
 */
export type { Launcher } from './contract';

/**
 * The launcher every call of this process uses, with `sandbox` when the isolation setting and the probe chose one.
 * On Linux the containment probe (a trial run) has been made once by then (probeContainment at start).
 */
export function platformLauncher(sandbox: Sandbox | null, platform: NodeJS.Platform = process.platform): Launcher {
  if (platform === 'linux') return createLinuxLauncher({ containment: probeLinuxContainment(), ...(sandbox && { sandbox }) });
  if (platform === 'win32') return createWindowsLauncher();
  return createDarwinLauncher(sandbox ? { sandbox } : {});
}

/** The containment probe at start, beside the sandbox probe (Linux: which namespaces can be made here). */
export async function probeContainment(platform: NodeJS.Platform = process.platform): Promise<LinuxContainment | undefined> {
  return platform === 'linux' ? probeLinuxContainmentAsync() : undefined;
}

/** Linux with no containment at all: what is said loudly when the kernel lets none run (and the tests' baseline). */
export function plainLinuxLauncher(limitation = 'Commands are NOT contained (plain launcher).'): Launcher {
  return createLinuxLauncher({ containment: { kind: 'plain', limitation } });
}
