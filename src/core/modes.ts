import type { ErrorCode } from './errors';
import { allow, ask, deny, strictest, type Verdict } from './verdict';

/**
 * THE meaning of every mode, network and isolation setting, as tables. Commands, file tools, fetch, the sandbox
 * and the tool list all look their answer up here; nothing else decides what a mode allows. "Stricter" is not a
 * hand-kept ranking: it is derived from these tables (a mode is stricter than another when it is at least as
 * strict for every action), and test/unit/core/modes.test.ts proves the orders the settings rely on.
 */

export const MODES = ['readOnly', 'confirm', 'confirmChanges', 'auto'] as const;
export type Mode = (typeof MODES)[number];

/**
 * The policy's mode: one mode, or (only when a VS Code workspace picks a mode that is neither stricter nor looser
 * than the user's, e.g. `readOnly` under `confirm`) several, each action then getting the strictest of their answers.
 */
export type ModeSetting = Mode | readonly Mode[];

/** What a request does, as far as the mode is concerned. */
export const ACTIONS = ['read', 'readOnlyCommand', 'command', 'redirect', 'fileChange', 'egress'] as const;
export type Action = (typeof ACTIONS)[number];

type Answer = 'allow' | 'ask' | 'deny';

export const ACTION_TEXT: Record<Action, string> = {
  read: 'read a file or list a folder',
  readOnlyCommand: 'run a command known to be read-only',
  command: 'run any other allowlisted command',
  redirect: 'write a file through an output redirect',
  fileChange: 'change a file (write, edit, patch, copy, move, delete, mkdir, rmdir)',
  egress: 'reach the network with the fetch tool',
};

/**
 * mode × action. readOnly never asks: read-only work runs, everything else is refused. A fetch can carry workspace
 * data out, so it is asked in confirm and refused in readOnly.
 */
export const MODE_TABLE: Readonly<Record<Mode, Readonly<Record<Action, Answer>>>> = {
  readOnly: { read: 'allow', readOnlyCommand: 'allow', command: 'deny', redirect: 'deny', fileChange: 'deny', egress: 'deny' },
  confirm: { read: 'allow', readOnlyCommand: 'ask', command: 'ask', redirect: 'ask', fileChange: 'ask', egress: 'ask' },
  confirmChanges: { read: 'allow', readOnlyCommand: 'allow', command: 'ask', redirect: 'ask', fileChange: 'ask', egress: 'allow' },
  auto: { read: 'allow', readOnlyCommand: 'allow', command: 'allow', redirect: 'allow', fileChange: 'allow', egress: 'allow' },
};

const WHY: Record<Mode, string> = {
  readOnly: 'Read-only mode',
  confirm: 'Confirm mode (every command and change is confirmed)',
  confirmChanges: 'Confirm-changes mode (anything that may change files is confirmed)',
  auto: 'Auto mode',
};

export const NETWORKS = ['deny', 'fetch', 'domains', 'allow'] as const;
export type Network = (typeof NETWORKS)[number];

/**
 * How far one party reaches, from the least to the most: nothing; the hosts on the domain list (checked by name
 * before any lookup, then by address); any public address (every hop checked); everything the machine reaches
 * (its loopback and private networks too).
 */
export const REACHES = ['none', 'listed', 'public', 'all'] as const;
export type Reach = (typeof REACHES)[number];

export const REACH_TEXT: Record<Reach, string> = {
  none: 'nothing',
  listed: 'the listed hosts',
  public: 'any public address',
  all: 'every address the machine reaches',
};

/**
 * network × who reaches what. `fetch` (the default) lets only the fetch tool out (public addresses, every hop
 * checked, asked per mode). `domains` lets the fetch tool and sandboxed commands reach the hosts on the domain
 * list, commands only through the proxy outside the sandbox (src/core/network). `allow` gives sandboxed commands
 * the machine's own network. Without a sandbox nothing cuts a command's network (UNSANDBOXED_REACH): that is what
 * `isolation` is for.
 */
export const NETWORK_TABLE: Readonly<Record<Network, { readonly fetch: Reach; readonly sandboxedCommands: Reach }>> = {
  deny: { fetch: 'none', sandboxedCommands: 'none' },
  fetch: { fetch: 'public', sandboxedCommands: 'none' },
  domains: { fetch: 'listed', sandboxedCommands: 'listed' },
  allow: { fetch: 'public', sandboxedCommands: 'all' },
};

/** What a command run without a sandbox reaches, whatever the network setting. */
export const UNSANDBOXED_REACH: Reach = 'all';

const reachRank = (r: Reach): number => REACHES.indexOf(r);

/**
 * Pointwise order derived from the table: `a` lets neither the fetch tool nor sandboxed commands reach more than
 * `b`. A partial order: `fetch` (the fetch tool anywhere public, commands nowhere) and `domains` (both, only the
 * listed hosts) are each stricter somewhere.
 */
export function networkAtLeastAsStrict(a: Network, b: Network): boolean {
  const x = NETWORK_TABLE[a], y = NETWORK_TABLE[b];
  return reachRank(x.fetch) <= reachRank(y.fetch) && reachRank(x.sandboxedCommands) <= reachRank(y.sandboxedCommands);
}

/**
 * The network a workspace value yields on top of the user's: the workspace's own when it is at least as strict,
 * else the user's (`loosens`: the value is ignored, and logged). A value stricter only somewhere (`fetch` under
 * `domains`) loosens the rest, so it is ignored too.
 */
export function tightenNetwork(current: Network, proposed: Network): { network: Network; loosens: boolean } {
  return networkAtLeastAsStrict(proposed, current) ? { network: proposed, loosens: false } : { network: current, loosens: true };
}

/**
 * Whether a command the server runs can reach the network, from the tables: in a sandbox only when the network
 * setting gives sandboxed commands one; without a sandbox always (nothing cuts it); never when every command is
 * refused. `undefined` (the sandbox probe has not answered) counts as reachable: a hint must not promise less
 * than may happen.
 */
export function commandsReachNetwork(network: Network, isolation: IsolationOutcome | undefined): boolean {
  if (isolation === 'denied') return false;
  if (isolation === 'sandboxed') return NETWORK_TABLE[network].sandboxedCommands !== 'none';
  return true;
}

/**
 * A host that is not on the domain list (network `domains`), for a request doing `action`: a person may allow it
 * where the mode asks for that action (a card: this once, this session, always), and it is refused everywhere
 * else (`auto` included: nobody is asked there). Never allowed without a person.
 */
export function unlistedHostAnswer(setting: ModeSetting, action: Action): 'ask' | 'deny' {
  return modeAnswer(setting, action) === 'ask' ? 'ask' : 'deny';
}

/** True when the mode lets commands only read: every other command and every output redirect is refused. */
export function commandsOnlyRead(setting: ModeSetting): boolean {
  return modeAnswer(setting, 'command') === 'deny' && modeAnswer(setting, 'redirect') === 'deny';
}

export const ISOLATIONS = ['none', 'auto', 'required'] as const;
export type Isolation = (typeof ISOLATIONS)[number];

/** isolation × whether a sandbox can run here → what happens to a command. */
export const ISOLATION_TABLE: Readonly<Record<Isolation, { readonly available: IsolationOutcome; readonly unavailable: IsolationOutcome }>> = {
  none: { available: 'unsandboxed', unavailable: 'unsandboxed' },
  auto: { available: 'sandboxed', unavailable: 'unsandboxed' },
  required: { available: 'sandboxed', unavailable: 'denied' },
};
export type IsolationOutcome = 'sandboxed' | 'unsandboxed' | 'denied';

export function modesOf(setting: ModeSetting): readonly Mode[] {
  return typeof setting === 'string' ? [setting] : setting;
}

/** `readOnly`, or `readOnly+confirm` for a combination: for logs, status and descriptions. */
export function modeLabel(setting: ModeSetting): string {
  return modesOf(setting).join('+');
}

const ANSWER_RANK: Record<Answer, number> = { allow: 0, ask: 1, deny: 2 };

/** The answer of a mode setting for an action: the strictest of its modes. */
export function modeAnswer(setting: ModeSetting, action: Action): Answer {
  let best: Answer = 'allow';
  for (const m of modesOf(setting)) if (ANSWER_RANK[MODE_TABLE[m][action]] > ANSWER_RANK[best]) best = MODE_TABLE[m][action];
  return best;
}

/** The mode's verdict for a request doing all of `actions` (the strictest wins), with a rule id and a reason. */
export function modeVerdict(setting: ModeSetting, actions: readonly Action[], what: string): Verdict {
  const verdicts = actions.map((action): Verdict => {
    const answer = modeAnswer(setting, action);
    const mode = modesOf(setting).find((m) => MODE_TABLE[m][action] === answer)!;
    const rule = `mode.${mode}.${action}`;
    if (answer === 'allow') return allow(rule);
    const reason = `${WHY[mode]}: ${what} may ${ACTION_TEXT[action]}.`;
    if (answer === 'ask') return ask(rule, reason);
    return deny('MODE_READ_ONLY' satisfies ErrorCode, rule, `${WHY[mode]} does not let the agent ${ACTION_TEXT[action]}.`);
  });
  return strictest(verdicts);
}

/**
 * What a command NOT on the allowlist gets: a question exactly where the mode asks about commands (a person is
 * there to say yes, and may save a rule), and a refusal where it does not — readOnly refuses other commands, and
 * auto asks nobody. Derived from the table, so a mode's meaning stays written once.
 */
export function missAnswer(setting: ModeSetting): 'ask' | 'deny' {
  return modeAnswer(setting, 'command') === 'ask' ? 'ask' : 'deny';
}

/** The network's verdict for the fetch tool. */
export function networkVerdict(network: Network): Verdict {
  return NETWORK_TABLE[network].fetch !== 'none'
    ? allow(`network.${network}`)
    : deny('NETWORK_DENIED', 'network.deny', 'The network is off for this workspace (network: deny); the fetch tool cannot reach it.');
}

/** True when no action of `actions` can ever be allowed (not even after asking) under this mode and network. */
export function neverAllowed(setting: ModeSetting, network: Network, actions: readonly Action[]): boolean {
  if (actions.includes('egress') && NETWORK_TABLE[network].fetch === 'none') return true;
  return actions.some((a) => modeAnswer(setting, a) === 'deny');
}

/** The sandbox makes the workspace read-only exactly when the mode denies every file change. */
export function workspaceReadOnly(setting: ModeSetting): boolean {
  return modeAnswer(setting, 'fileChange') === 'deny' && modeAnswer(setting, 'redirect') === 'deny';
}

/** Pointwise order derived from the table: `a` is at least as strict as `b` for every action. */
export function modeAtLeastAsStrict(a: ModeSetting, b: ModeSetting): boolean {
  return ACTIONS.every((action) => ANSWER_RANK[modeAnswer(a, action)] >= ANSWER_RANK[modeAnswer(b, action)]);
}

/**
 * The mode a workspace value yields on top of the user's: the workspace's own when it is stricter everywhere,
 * the user's when the workspace's would loosen anything, and both combined (strictest answer per action) when
 * each is stricter somewhere. Returns `loosens` when the workspace value adds nothing stricter.
 */
export function tightenMode(current: ModeSetting, proposed: ModeSetting): { mode: ModeSetting; loosens: boolean } {
  if (modeAtLeastAsStrict(proposed, current)) return { mode: proposed, loosens: false };
  if (modeAtLeastAsStrict(current, proposed)) return { mode: current, loosens: true };
  const combined = [...new Set([...modesOf(current), ...modesOf(proposed)])].sort((x, y) => MODES.indexOf(x) - MODES.indexOf(y));
  return { mode: combined, loosens: false };
}
