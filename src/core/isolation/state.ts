import type { IsolationState } from '../isolationState';
import { watchRootGit } from './gitCreation';
import type { SandboxSelection } from './select';
import type { SandboxContext } from './types';

/**
 * Adapts a SandboxSelection to the IsolationState the command pipeline consumes (src/core/isolationState.ts),
 * so the host only has to probe once, select, and build the per-workspace context.
 */
export function isolationState(selection: SandboxSelection, base: Omit<SandboxContext, 'cwd'>): IsolationState {
  const { sandbox, warning, denial } = selection;
  if (denial) return { kind: 'none', denial: denial.reason };
  if (!sandbox) return warning ? { kind: 'none', warning } : { kind: 'none' };
  return {
    kind: sandbox.kind,
    wrap: (stage, cwd) => sandbox.wrap(stage, { ...base, cwd }),
    ...(warning && { warning }),
    ...(!base.allowGitWrites && { watchRun: () => watchRootGit(base.root) }),
  };
}
