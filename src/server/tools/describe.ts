import { modeLabel } from '../../core/modes';
import { unrunnableAllowlistEntries, type UnrunnableEntry } from '../../core/commands/unrunnable';
import { domainList } from '../../core/network/domains';
import type { Policy } from '../../core/policy';

const unrunnable = new WeakMap<Policy, readonly UnrunnableEntry[]>();

const unrunnableSandboxed = new WeakMap<Policy, readonly UnrunnableEntry[]>();

/**
 * Allowlist entries that can never run here, once per policy: without a sandbox (and without the person's opt-in)
 * a shell, an interpreter or a pattern that only matches them; inside a sandbox, none of those.
 */
export function unrunnableEntries(policy: Policy, sandboxed = false): readonly UnrunnableEntry[] {
  const cache = sandboxed ? unrunnableSandboxed : unrunnable;
  let found = cache.get(policy);
  if (!found) cache.set(policy, (found = unrunnableAllowlistEntries(policy, { delegationAllowed: sandboxed || policy.allowUnsandboxedCode })));
  return found;
}

/** One line for the log at start and on a settings change, when the allowlist holds entries that can never run. */
export function unrunnableNote(policy: Policy, sandboxed = false): string | undefined {
  const found = unrunnableEntries(policy, sandboxed);
  return found.length ? `allowlist entries that cannot run without a sandbox (not offered to the agent; ${'allowUnsandboxedCode'} would run them with your own permissions): ${found.map((u) => `${u.entry} (${u.reason})`).join('; ')}` : undefined;
}

/**
 * The part of a command tool's description that tells the agent what it may run and within which limits. Short:
 * tools/list goes with every model request. cmdshell says "as shell_execute" when both are offered.
 */
export function commandLimitsText(policy: Policy): string {
  // Every entry is named: whether one that runs any code can run here is the sandbox's sentence (isolationNote).
  const names = policy.allowCommands.length ? policy.allowCommands.join(' ') : '(none)';
  const patterns = policy.allowPatterns.length ? ` Name patterns: ${policy.allowPatterns.join(' ')}.` : '';
  const readOnly = policy.allowReadOnlyCommands.length ? ` Read-only forms only: ${policy.allowReadOnlyCommands.join(' ')}.` : '';
  const output =
    policy.outputLimitAction === 'keep'
      ? `a longer stream keeps its first and last ${Math.floor(policy.outputLimitBytes / 2)} bytes`
      : `a command writing more than ${policy.outputLimitBytes} bytes to a stream is stopped`;
  return [
    `Allowed: ${names}.${patterns}${readOnly}`,
    'Options that run other programs (find -exec …) are refused.',
    `Timeout ${policy.defaultTimeoutSeconds} s (max ${policy.maxTimeoutSeconds} s); ${output}. Mode ${modeLabel(policy.mode)}.`,
    ...(policy.network === 'domains' ? [networkText(policy)] : []),
  ].join(' ');
}

/** Hosts named in a description at most (tools/list travels with every model request). */
const DOMAINS_SHOWN = 8;

/** network: domains: which hosts a command may reach (the agent need not find out by trying), and how. */
function networkText(policy: Policy): string {
  const allowed = domainList(policy).allowed;
  const shown = allowed.slice(0, DOMAINS_SHOWN).join(' ');
  const more = allowed.length > DOMAINS_SHOWN ? ` and ${allowed.length - DOMAINS_SHOWN} more` : '';
  return allowed.length ? `Network: only ${shown}${more}, through the proxy in HTTP(S)_PROXY.` : 'Network: no host is allowed yet (network: domains).';
}

/**
 * The descriptions' sentence about the sandbox (the details go in the instructions): what runs inside it, or that
 * there is none and what that refuses.
 */
export function isolationNote(kind: string, policy: Pick<Policy, 'allowUnsandboxedCode'>): string {
  if (kind !== 'none') return ' Commands run inside an OS sandbox; allowlisted interpreters, shells and workspace programs (./x.sh, node_modules/.bin/x) run there too.';
  return policy.allowUnsandboxedCode
    ? " No OS sandbox: commands run with the server's permissions, allowlisted interpreters and shells too."
    : " No OS sandbox: commands run with the server's permissions; interpreters, shells, npx and workspace programs are refused.";
}
