import { sandboxPath, sandboxPaths } from '../core/paths/guard';
import type { IsolationState } from '../core/isolationState';
import { isolationState, probeIsolation, selectSandbox, type IsolationProbe } from '../core/isolation';
import { probeContainment } from '../core/exec/launch';
import { findPerl } from '../core/network/perl';
import { NETWORK_TABLE, type Network } from '../core/modes';
import { isolationOutcomeOf } from '../core/isolationState';
import type { Policy } from '../core/policy';
import type { DeveloperContext } from '../core/exec/developer/context';
import { probeOverlay, type OverlayProbe } from '../core/effects/overlay';

let probed: Promise<IsolationProbe> | undefined;
let overlayProbed: Promise<OverlayProbe> | undefined;

/**
 * Whether a copy-on-write view of a workspace can be made here (command preview), once per process, with the
 * process's one folder for views (removed at exit). Only where the sandbox runs is it used.
 */
export function probeOverlayOnce(): Promise<OverlayProbe> {
  return (overlayProbed ??= probeOverlay().then((p) => {
    if (p.available) process.once('exit', () => p.staging.dispose());
    return p;
  }));
}

/**
 * The capability probe runs once per process: starting a sandbox is the only way to know it works here. The
 * no-sandbox containment launcher's trial runs beside it (not as a blocking trial when the first policy asks).
 */
export function probeOnce(): Promise<IsolationProbe> {
  return (probed ??= Promise.all([probeIsolation(), containmentOnce()]).then(([probe]) => probe));
}

let contained: Promise<unknown> | undefined;
/** The containment launcher's trial alone (part of probeOnce), once per process. */
export function containmentOnce(): Promise<unknown> {
  return (contained ??= probeContainment());
}

/**
 * The isolation of a policy whose isolation is "none", known before the sandbox's probes answer: without a sandbox
 * it depends on the containment launcher only (containmentOnce), never on the sandbox's or the preview's trial, nor
 * on the developer's context (a sandbox mounts the private HOME and the toolchain folders; nothing else reads them
 * here), so the scan of the PATH for toolchains waits for the probes too.
 */
export function isolationWithoutSandbox(policy: Policy): IsolationState {
  if (policy.isolation !== 'none') throw new Error('only a policy without a sandbox is known before the sandbox probe');
  return isolationFor(policy, { kind: 'none', available: false, reason: 'not needed: isolation is none' });
}

/**
 * The isolation in force for a policy: the sandbox chosen from the probe and the policy's isolation setting,
 * confined to the policy's root, read-only in `readOnly` mode, network per the policy. Recomputed whenever the
 * policy changes, so switching to readOnly makes the workspace read-only in the kernel at once.
 */
export function isolationFor(
  policy: Policy, probe: IsolationProbe, developer: Pick<DeveloperContext, 'home' | 'toolchain'> = {}, perl: () => string | undefined = findPerl, overlay?: OverlayProbe,
): IsolationState {
  const lists = sandboxPaths(policy);
  const state = isolationState(selectSandbox(policy.isolation, probe), {
    // Command preview: a copy-on-write view in front of bubblewrap (src/core/effects/overlay.ts).
    ...(probe.kind === 'bwrap' && overlay && { preview: overlay.available ? { tools: overlay.tools, staging: overlay.staging } : { unavailable: overlay.reason } }),
    root: policy.root,
    mode: policy.mode,
    // The host's network only with `allow`; otherwise none of its own (the egress proxy below is the way out).
    network: NETWORK_TABLE[policy.network].sandboxedCommands === 'all' ? 'allow' : 'deny',
    // ONE list (src/core/paths/guard.ts) for the sandbox mounts and the server's own file I/O; the server's own
    // config and audit files are read-only in the kernel too, not only for the file tools.
    hiddenPaths: lists.hidden,
    readOnlyPaths: lists.readOnly,
    protectedPaths: policy.protectedPaths,
    allowGitWrites: policy.allowGitWrites,
    // The same developer context the commands' environment is built from: HOME is this folder, PATH names these.
    ...(developer.home && { privateHome: developer.home }),
    ...(developer.toolchain && { toolchainPaths: developer.toolchain.binds }),
  });
  return withEgress(state, policy.network, perl());
}

/**
 * Where the egress proxy applies: bubblewrap without the host's network, and a perl for the bridge. Otherwise
 * `domains` cannot be what it says for commands, and the warning (start-up line, status bar, first result) says
 * what happens instead.
 */
function withEgress(state: IsolationState, network: Network, perl: string | undefined): IsolationState {
  const outcome = isolationOutcomeOf(state);
  const warn = (text: string): IsolationState => ({ ...state, warning: [state.warning, text].filter(Boolean).join(' ') });
  if (outcome === 'sandboxed' && state.kind === 'bwrap' && NETWORK_TABLE[network].sandboxedCommands !== 'all') {
    if (perl) return { ...state, proxy: { perl } };
    return network === 'domains' ? warn('network: domains needs perl (perl-base) for the proxy bridge inside the sandbox; without it sandboxed commands reach no host.') : state;
  }
  if (network !== 'domains' || outcome === 'denied') return state;
  if (outcome === 'sandboxed') return warn(`network: domains is not wired into the ${state.kind} sandbox yet: sandboxed commands reach no host (the fetch tool obeys the list).`);
  return warn('network: domains cannot be enforced on commands without a sandbox: they reach every host, as with network: fetch (only the fetch tool obeys the domain list).');
}

export { sandboxPath };

export async function resolveIsolation(policy: Policy): Promise<{ probe: IsolationProbe; state: IsolationState }> {
  const [probe, overlay] = await Promise.all([probeOnce(), probeOverlayOnce()]);
  return { probe, state: isolationFor(policy, probe, {}, findPerl, overlay) };
}
