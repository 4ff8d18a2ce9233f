import * as os from 'node:os';
import { ownRepository } from '../../commands/gitRepo';
import { isInside } from '../../paths/confine';
import { sandboxPaths } from '../../paths/guard';
import type { Policy } from '../../policy';
import { DEFAULT_SAFE_PATH } from '../env';
import type { GitIdentity } from './gitIdentity';
import { cachedGitIdentity } from './identityCache';
import { findToolchain, type Toolchain } from './toolchains';

/**
 * A developer's context, passed to commands as DATA (environment values and read-only folders), never by running
 * anything: the commands' private HOME, the toolchain folders of the server's PATH, and the person's git identity.
 * The child-environment builder (../env.ts buildChildEnv) turns it into variables; the sandbox (isolation/
 * bwrap.ts mountPlan) into mounts. Both get the same object, so what a command's PATH names is what it can see.
 */
export interface DeveloperContext {
  /** The commands' HOME (real path of the private folder); undefined when there is none (HOME is then unset). */
  readonly home?: string;
  /** Undefined when `toolchainPath` is off. */
  readonly toolchain?: Toolchain;
  /** As the files say at each call: an edited ~/.gitconfig applies to the next command (identityCache.ts). */
  readonly identity?: GitIdentity;
}

export interface DeveloperSources {
  /** The server's environment (its PATH, HOME, XDG_CONFIG_HOME, the version managers' root variables). */
  readonly parentEnv: NodeJS.ProcessEnv;
  /** The commands' private HOME, already created (ensurePrivateHome). */
  readonly privateHome?: string;
  readonly platform?: NodeJS.Platform;
}

type ContextPolicy = Pick<Policy, 'root' | 'toolchainPath' | 'sandboxHiddenPaths' | 'sandboxReadOnlyPaths' | 'ownFiles'>;

/**
 * The part that depends on the policy and the server's environment only (HOME, toolchains): computed when the
 * policy changes, because the sandbox's mounts are made from it.
 */
export function developerSurroundings(policy: ContextPolicy, src: DeveloperSources): Omit<DeveloperContext, 'identity'> {
  const platform = src.platform ?? process.platform;
  // Inside the workspace it would be the agent's to write as a folder of the project; around it, it would bind
  // the workspace read-write under another name. Either way: no private HOME then.
  const home = src.privateHome && !isInside(policy.root, src.privateHome) && !isInside(src.privateHome, policy.root) ? src.privateHome : undefined;
  if (!policy.toolchainPath || platform === 'win32') return { ...(home && { home }) };
  const realHome = personHome(src.parentEnv);
  const toolchain = findToolchain({
    serverPath: src.parentEnv.PATH,
    env: src.parentEnv,
    home: realHome,
    systemPath: DEFAULT_SAFE_PATH, // the system folders the toolchain folders are merged into
    root: policy.root,
    ...(home && { privateHome: home }),
    hidden: sandboxPaths(policy, realHome ?? '').hidden,
  });
  return { ...(home && { home }), toolchain };
}

/** The whole context for one call: the surroundings and the identity as the configuration files say now. */
export function developerContext(surroundings: Omit<DeveloperContext, 'identity'>, root: string, parentEnv: NodeJS.ProcessEnv): DeveloperContext {
  const home = personHome(parentEnv);
  const identity = cachedGitIdentity({ ...(home && { home }), env: parentEnv, repo: ownRepository(root) });
  return { ...surroundings, identity };
}

/** The person's own home folder: the server's HOME, else the account's. */
function personHome(env: NodeJS.ProcessEnv): string | undefined {
  const h = env.HOME ?? os.homedir();
  return h && h !== '/' ? h : undefined;
}
