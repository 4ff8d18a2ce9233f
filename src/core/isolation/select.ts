import { ISOLATION_TABLE, type Isolation } from '../modes';
import { createBwrapSandbox } from './bwrap';
import { createSeatbeltSandbox } from './seatbelt';
import type { IsolationProbe, Sandbox } from './types';

/**
 * Turns the isolation setting and the probe into the sandbox every command uses. Fail closed: `required` without
 * a working sandbox yields a denial for EVERY command (never a silent run without it).
 */

export interface SandboxSelection {
  readonly sandbox: Sandbox | null;
  /** `auto` without a sandbox, or a sandbox with limitations: shown in the status bar, the log and results. */
  readonly warning?: string;
  readonly denial?: { readonly code: 'ISOLATION_UNAVAILABLE'; readonly reason: string };
}

export function sandboxFromProbe(probe: IsolationProbe): Sandbox | null {
  if (!probe.available || !probe.path) return null;
  if (probe.kind === 'bwrap') {
    return createBwrapSandbox({
      bwrapPath: probe.path,
      disableUserns: probe.disableUserns === true,
      ...(probe.prlimitPath && { prlimitPath: probe.prlimitPath }),
      ...(probe.tools && { tools: probe.tools }),
    });
  }
  if (probe.kind === 'seatbelt') return createSeatbeltSandbox(probe.path);
  return null;
}

/** What to do about it, per kind, appended to the probe's own reason. */
function remedy(probe: IsolationProbe): string {
  if (probe.kind === 'bwrap' && !probe.path) return ''; // the reason already says how to install it
  if (probe.kind === 'bwrap') return ' Fix the cause above, or set guardedShell.isolation (--isolation) to "auto" or "none" to run commands without a sandbox.';
  return ' Set guardedShell.isolation (--isolation) to "auto" or "none" to run commands without a sandbox.';
}

export function selectSandbox(isolation: Isolation, probe: IsolationProbe): SandboxSelection {
  const row = ISOLATION_TABLE[isolation] as (typeof ISOLATION_TABLE)[Isolation] | undefined;
  // An isolation value this code does not know: deny, never guess.
  if (!row) return { sandbox: null, denial: { code: 'ISOLATION_UNAVAILABLE', reason: `Unknown isolation setting "${String(isolation)}".` } };
  if (isolation === 'none') return { sandbox: null };
  const sandbox = sandboxFromProbe(probe);
  const reason = probe.reason ?? `no ${probe.kind === 'none' ? '' : probe.kind + ' '}sandbox is available`;
  switch (row[sandbox ? 'available' : 'unavailable']) {
    case 'sandboxed':
      return probe.limitations?.length ? { sandbox, warning: probe.limitations.join(' ') } : { sandbox };
    case 'unsandboxed':
      return { sandbox: null, warning: `Commands run WITHOUT an OS sandbox: ${reason}` };
    case 'denied':
      return { sandbox: null, denial: { code: 'ISOLATION_UNAVAILABLE', reason: `Isolation is required but no sandbox can run: ${reason}${remedy(probe)}` } };
  }
}
