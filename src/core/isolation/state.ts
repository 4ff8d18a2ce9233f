import type { ExecStage } from '../exec/types';
import type { IsolationState } from '../isolationState';
import { containStage, contains, probeContainment } from './contain';
import { watchRootGit } from './gitCreation';
import type { SandboxSelection } from './select';
import type { SandboxContext } from './types';

/**
 * Adapts a SandboxSelection to the IsolationState the command pipeline consumes (src/core/isolationState.ts),
 * so the host only has to probe once, select, and build the per-workspace context.
 */
export function isolationState(selection: SandboxSelection, given: Omit<SandboxContext, 'cwd' | 'overlay'> & { readonly preview?: IsolationState['preview'] }): IsolationState {
  const { sandbox, warning, denial } = selection;
  const { preview, ...base } = given;
  if (denial) return { kind: 'none', denial: denial.reason };
  if (!sandbox) {
    // No sandbox: still no process of a call may outlive it or the server (PID namespace launcher, contain.ts).
    const containment = probeContainment();
    const wrap = contains(containment) ? { wrap: (stage: ExecStage) => containStage(stage, containment) } : {};
    return warning ? { kind: 'none', warning, ...wrap } : { kind: 'none', ...wrap };
  }
  return {
    kind: sandbox.kind,
    wrap: (stage, cwd, proxy, view) => {
      const tools = view && preview && 'tools' in preview ? preview.tools : undefined;
      if (view && !tools) throw new Error('no copy-on-write view can be made here');
      return sandbox.wrap(stage, { ...base, cwd, ...(proxy && { proxy }), ...(tools && view && { overlay: { tools, view } }) });
    },
    ...(preview && { preview }),
    ...(warning && { warning }),
    ...(!base.allowGitWrites && { watchRun: () => watchRootGit(base.root) }),
  };
}
