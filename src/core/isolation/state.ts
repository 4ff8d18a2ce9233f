import { platformLauncher } from '../exec/launch';
import type { IsolationState } from '../isolationState';
import { watchRootGit } from './gitCreation';
import type { SandboxSelection } from './select';
import type { SandboxContext } from './types';

/**
 * Adapts a SandboxSelection to the IsolationState the command pipeline consumes (src/core/isolationState.ts),
 * so the host only has to probe once, select, and build the per-workspace context. Every stage is prepared and
 * started by the platform's launcher: in the sandbox when there is one, else contained without one (and when the
 * kernel allows no containment, that is said in the warning, whatever the isolation setting).
 */
export function isolationState(selection: SandboxSelection, given: Omit<SandboxContext, 'cwd' | 'overlay'> & { readonly preview?: IsolationState['preview'] }): IsolationState {
  const { sandbox, warning, denial } = selection;
  const { preview, ...base } = given;
  if (denial) return { kind: 'none', denial: denial.reason };
  const launcher = platformLauncher(sandbox);
  if (!sandbox) {
    const said = [warning, launcher.contained ? undefined : launcher.limitation].filter(Boolean).join(' ');
    return { kind: 'none', launcher, wrap: (stage) => launcher.prepare(stage), ...(said && { warning: said }) };
  }
  const said = [warning, launcher.contained ? undefined : launcher.limitation].filter(Boolean).join(' ');
  return {
    kind: sandbox.kind,
    launcher,
    wrap: (stage, cwd, proxy, view) => {
      const tools = view && preview && 'tools' in preview ? preview.tools : undefined;
      if (view && !tools) throw new Error('no copy-on-write view can be made here');
      return launcher.prepare(stage, { ...base, cwd, ...(proxy && { proxy }), ...(tools && view && { overlay: { tools, view } }) });
    },
    ...(preview && { preview }),
    ...(said && { warning: said }),
    ...(!base.allowGitWrites && { watchRun: () => watchRootGit(base.root) }),
  };
}
