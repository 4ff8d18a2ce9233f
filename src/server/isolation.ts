import * as os from 'node:os';
import * as path from 'node:path';
import { expandHome } from '../core/config/configFile';
import type { IsolationState } from '../core/isolationState';
import { isolationState, probeIsolation, selectSandbox, type IsolationProbe } from '../core/isolation';
import { NETWORK_TABLE } from '../core/modes';
import type { Policy } from '../core/policy';

let probed: Promise<IsolationProbe> | undefined;

/** The capability probe runs once per process: starting a sandbox is the only way to know it works here. */
export function probeOnce(): Promise<IsolationProbe> {
  return (probed ??= probeIsolation());
}

/**
 * The isolation in force for a policy: the sandbox chosen from the probe and the policy's isolation setting,
 * confined to the policy's root, read-only in `readOnly` mode, network per the policy. Recomputed whenever the
 * policy changes, so switching to readOnly makes the workspace read-only in the kernel at once.
 */
export function isolationFor(policy: Policy, probe: IsolationProbe): IsolationState {
  return isolationState(selectSandbox(policy.isolation, probe), {
    root: policy.root,
    mode: policy.mode,
    network: NETWORK_TABLE[policy.network].sandboxedCommands ? 'allow' : 'deny',
    hiddenPaths: policy.sandboxHiddenPaths.map((p) => sandboxPath(policy.root, p)),
    // The server's own config and audit files stay read-only in the kernel too, not only for the file tools.
    readOnlyPaths: [...policy.ownFiles, ...policy.sandboxReadOnlyPaths.map((p) => sandboxPath(policy.root, p))],
    allowGitWrites: policy.allowGitWrites,
  });
}

/** `~/x` is below the home directory, a relative path below the workspace root, an absolute path stays. */
export function sandboxPath(root: string, p: string, home = os.homedir()): string {
  return path.resolve(root, expandHome(p, home));
}

export async function resolveIsolation(policy: Policy): Promise<{ probe: IsolationProbe; state: IsolationState }> {
  const probe = await probeOnce();
  return { probe, state: isolationFor(policy, probe) };
}
