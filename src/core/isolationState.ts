import type { OverlayTools, OverlayView, Staging } from './effects/overlay';
import type { Launcher } from './exec/launch/contract';
import type { ExecStage } from './exec/types';
import type { ProxyWiring } from './network/sandboxWiring';
import type { IsolationOutcome } from './modes';

/**
 * What the command pipeline needs to know about isolation at the moment of a call: which sandbox wraps each
 * stage, or why commands are refused (isolation required but unavailable), or the warning to surface when
 * `auto` found no sandbox. Built by the host from the capability probe and the policy.
 */
export interface IsolationState {
  /** 'bwrap' | 'seatbelt' | 'none' — reported in every result and audit event. */
  readonly kind: string;
  /** Starts and stops every command of this state (src/core/exec/launch); the platform's own when absent. */
  readonly launcher?: Launcher;
  /**
   * The stage to start for a judged program in `cwd`: the launcher's `prepare`, inside the sandbox if there is one;
   * `proxy`: the call's egress proxy, when `proxy` below is set and the call opened one; `view`: the copy-on-write
   * view the stage sees in place of the workspace (preview, below).
   */
  readonly wrap?: (stage: ExecStage, cwd: string, proxy?: ProxyWiring, view?: OverlayView) => ExecStage;
  /**
   * Set where a command can run against a copy-on-write view of the workspace (the sandbox runs, and the overlay
   * probe's trial worked: src/core/effects/overlay.ts); `unavailable` says why not, when the sandbox runs.
   */
  readonly preview?: { readonly tools: OverlayTools; readonly staging: Staging } | { readonly unavailable: string };
  /**
   * Set when sandboxed commands reach the network only through an egress proxy opened per call (network
   * `domains`; with `fetch` and `deny` it refuses every host, saying which setting would help): the perl that runs
   * the bridge inside the sandbox.
   */
  readonly proxy?: { readonly perl: string };
  /** Set when isolation is required and no sandbox can run: every command is denied with this reason. */
  readonly denial?: string;
  /** Set when isolation is `auto` and no sandbox is available. */
  readonly warning?: string;
  /**
   * Called right before a command starts; the function it returns is called after every process of the
   * command is gone and returns a note for the result when it had to undo something (a new root `.git`).
   */
  readonly watchRun?: () => () => string | undefined;
}

export const NO_ISOLATION: IsolationState = { kind: 'none' };

/**
 * The isolation while the sandbox probe has not answered yet: it denies every command, so that even a path that
 * did not wait for the probe could never run one unsandboxed (the server waits for the probe before every call).
 */
export const PROBE_PENDING: IsolationState = { kind: 'pending', denial: 'The sandbox probe has not answered yet; try again in a moment.' };

/**
 * What happens to a command under this state, in the terms of modes.ts ISOLATION_TABLE; undefined while the probe
 * has not answered (nobody knows yet).
 */
export function isolationOutcomeOf(state: IsolationState): IsolationOutcome | undefined {
  if (state.kind === PROBE_PENDING.kind) return undefined;
  if (state.denial) return 'denied';
  // Kind `none` may still wrap a stage (a PID namespace so nothing outlives the call): that cuts no network.
  return state.kind !== NO_ISOLATION.kind && state.wrap ? 'sandboxed' : 'unsandboxed';
}
