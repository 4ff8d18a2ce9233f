import * as os from 'node:os';
import type { SettingsHost } from '../config/settingNames';
import type { DeveloperContext } from '../exec/developer/context';
import { NETWORK_TABLE, workspaceReadOnly } from '../modes';
import { sandboxPaths } from '../paths/guard';
import type { Policy } from '../policy';
import { sandboxHint, visibleInSandbox, type HintFacts, type SandboxHint } from './sandboxHint';

/** What a finished command tells the hint (run.ts): its output, the sandbox it ran in, and its environment. */
export interface FinishedCommand {
  readonly outcome: string;
  readonly stdout: string;
  readonly stderr: string;
  /** The executor's own error (a program not found: "spawn python ENOENT"). */
  readonly error?: string;
  readonly isolationKind: string;
  /** The environment the command got (its PATH). */
  readonly env: Readonly<Record<string, string>>;
}

/** The facts of one call, from the policy and the developer context it ran with; then the hint, if any. */
export function hintForCommand(
  done: FinishedCommand, policy: Policy,
  ctx: { readonly developer?: DeveloperContext; readonly parentEnv: NodeJS.ProcessEnv; readonly host: SettingsHost },
): SandboxHint | undefined {
  if (done.outcome === 'ok' || done.outcome === 'denied' || done.outcome === 'canceled') return undefined;
  const home = ctx.parentEnv.HOME ?? os.homedir();
  const toolchain = ctx.developer?.toolchain;
  const hidden = sandboxPaths(policy, home).hidden;
  const facts: HintFacts = {
    sandboxed: done.isolationKind !== 'none',
    host: ctx.host,
    allowGitWrites: policy.allowGitWrites,
    workspaceReadOnly: workspaceReadOnly(policy.mode),
    network: policy.network,
    commandsHaveNetwork: NETWORK_TABLE[policy.network].sandboxedCommands === 'all',
    serverPath: ctx.parentEnv.PATH ?? '',
    childPath: done.env.PATH ?? '',
    ...(policy.childEnvAllowlist.includes('PATH')
      ? { pathChosenBy: 'childEnvAllowlist' as const }
      : policy.safePath !== undefined && policy.safePath.trim() !== '' ? { pathChosenBy: 'safePath' as const } : {}),
    toolchainPath: policy.toolchainPath,
    toolchainSkipped: toolchain?.skipped ?? [],
    visible: (p) => visibleInSandbox(p, {
      ...(home && home !== '/' && { home }), root: policy.root, toolchain: toolchain?.binds ?? [], hidden,
      ...(ctx.developer?.home && { privateHome: ctx.developer.home }),
    }),
  };
  return sandboxHint([done.stdout, done.stderr, done.error ?? ''].join('\n'), facts);
}
