import type { IsolationState } from '../core/isolationState';
import type { Policy } from '../core/policy';

/**
 * The isolation in force for a policy, from the capability probe. Until the sandbox exists every command runs
 * unsandboxed: `auto` says so in each result, `required` denies every command.
 */
export async function resolveIsolation(policy: Policy): Promise<IsolationState> {
  if (policy.isolation === 'none') return { kind: 'none' };
  const reason = 'no OS sandbox is available to this server';
  if (policy.isolation === 'required') return { kind: 'none', denial: `Isolation is required, but ${reason}.` };
  return { kind: 'none', warning: `Commands run without an OS sandbox: ${reason}.` };
}
