import { sandboxPath, sandboxPaths } from '../core/paths/guard';
import type { IsolationState } from '../core/isolationState';
import { isolationState, probeIsolation, selectSandbox, type IsolationProbe } from '../core/isolation';
import { probeContainment } from '../core/exec/launch';
import { NETWORK_TABLE } from '../core/modes';
import type { Policy } from '../core/policy';

let probed: Promise<IsolationProbe> | undefined;

/**
 * The capability probe runs once per process: starting a sandbox is the only way to know it works here. The
 * no-sandbox containment launcher's trial runs beside it (not as a blocking trial when the first policy asks).
 */
export function probeOnce(): Promise<IsolationProbe> {
  return (probed ??= Promise.all([probeIsolation(), probeContainment()]).then(([probe]) => probe));
}

/**
 * The isolation in force for a policy: the sandbox chosen from the probe and the policy's isolation setting,
 * confined to the policy's root, read-only in `readOnly` mode, network per the policy. Recomputed whenever the
 * policy changes, so switching to readOnly makes the workspace read-only in the kernel at once.
 */
export function isolationFor(policy: Policy, probe: IsolationProbe): IsolationState {
  const lists = sandboxPaths(policy);
  return isolationState(selectSandbox(policy.isolation, probe), {
    root: policy.root,
    mode: policy.mode,
    network: NETWORK_TABLE[policy.network].sandboxedCommands ? 'allow' : 'deny',
    // ONE list (src/core/paths/guard.ts) for the sandbox mounts and the server's own file I/O; the server's own
    // config and audit files are read-only in the kernel too, not only for the file tools.
    hiddenPaths: lists.hidden,
    readOnlyPaths: lists.readOnly,
    protectedPaths: policy.protectedPaths,
    allowGitWrites: policy.allowGitWrites,
  });
}

export { sandboxPath };

export async function resolveIsolation(policy: Policy): Promise<{ probe: IsolationProbe; state: IsolationState }> {
  const probe = await probeOnce();
  return { probe, state: isolationFor(policy, probe) };
}
