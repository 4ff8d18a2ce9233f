import { describe, expect, it } from 'vitest';
import {
  ACTIONS, commandsReachNetwork, ISOLATION_TABLE, ISOLATIONS, MODE_TABLE, MODES, modeAnswer, modeAtLeastAsStrict, NETWORK_TABLE, NETWORKS,
  networkAtLeastAsStrict, neverAllowed, REACHES, tightenMode, tightenNetwork, unlistedHostAnswer, workspaceReadOnly, type Action, type Mode,
  type ModeSetting, type Network,
} from '../../../src/core/modes';
import { SETTINGS } from '../../../src/core/config/registry';
import { mulberry32 } from '../../helpers/prng';

/**
 * The mode table is the one meaning of every mode. These properties are what the settings layer relies on when it
 * lets a workspace "only tighten": whatever a workspace picks, the result is never looser than the user's choice,
 * for any action.
 */
const RANK = { allow: 0, ask: 1, deny: 2 } as const;
const rank = (m: ModeSetting, a: Action) => RANK[modeAnswer(m, a)];

/** Every mode setting that can exist: one mode or any combination of two or more. */
const SETTINGS_ALL: ModeSetting[] = [];
for (let mask = 1; mask < 1 << MODES.length; mask++) {
  const ms = MODES.filter((_, i) => mask & (1 << i));
  SETTINGS_ALL.push(ms.length === 1 ? ms[0]! : ms);
}

describe('mode table: a stricter mode is never looser', () => {
  it.each(SETTINGS_ALL.flatMap((a) => SETTINGS_ALL.map((b) => [a, b] as const)))('%j vs %j', (a, b) => {
    if (modeAtLeastAsStrict(a, b)) for (const action of ACTIONS) expect(rank(a, action), action).toBeGreaterThanOrEqual(rank(b, action));
  });

  it('the documented order holds: readOnly and confirm are each stricter than confirmChanges, which is stricter than auto', () => {
    expect(modeAtLeastAsStrict('readOnly', 'confirmChanges')).toBe(true);
    expect(modeAtLeastAsStrict('confirm', 'confirmChanges')).toBe(true);
    expect(modeAtLeastAsStrict('confirmChanges', 'auto')).toBe(true);
    // readOnly runs `ls` without asking and confirm asks: neither is stricter everywhere.
    expect(modeAtLeastAsStrict('readOnly', 'confirm')).toBe(false);
    expect(modeAtLeastAsStrict('confirm', 'readOnly')).toBe(false);
  });

  it('a workspace value can never loosen any action, whatever the user chose (every pair, every action)', () => {
    for (const user of SETTINGS_ALL) {
      for (const proposed of SETTINGS_ALL) {
        const { mode, loosens } = tightenMode(user, proposed);
        for (const action of ACTIONS) expect(rank(mode, action), `${JSON.stringify(user)} + ${JSON.stringify(proposed)}: ${action}`).toBeGreaterThanOrEqual(rank(user, action));
        if (!loosens) for (const action of ACTIONS) expect(rank(mode, action)).toBeGreaterThanOrEqual(rank(proposed, action));
      }
    }
  });

  it('chains of workspace values (random, seeded) stay at least as strict as every value applied', () => {
    const rnd = mulberry32(11);
    for (let n = 0; n < 500; n++) {
      let current: ModeSetting = MODES[Math.floor(rnd() * MODES.length)]!;
      const applied: ModeSetting[] = [current];
      for (let k = 0; k < 4; k++) {
        const next = MODES[Math.floor(rnd() * MODES.length)]!;
        const t = tightenMode(current, next);
        current = t.mode;
        if (!t.loosens) applied.push(next);
      }
      for (const m of applied) expect(modeAtLeastAsStrict(current, m)).toBe(true);
    }
  });

  it('readOnly never asks about and never allows a change; auto never asks', () => {
    for (const a of ['command', 'redirect', 'fileChange'] as const) expect(MODE_TABLE.readOnly[a]).toBe('deny');
    for (const a of ACTIONS) expect(MODE_TABLE.auto[a]).toBe('allow');
    for (const m of MODES) expect(MODE_TABLE[m].read).toBe('allow');
  });

  it('the sandbox makes the workspace read-only exactly for the settings that deny every change', () => {
    for (const m of SETTINGS_ALL) expect(workspaceReadOnly(m)).toBe(rank(m, 'fileChange') === 2 && rank(m, 'redirect') === 2);
    expect(workspaceReadOnly('readOnly')).toBe(true);
    expect(workspaceReadOnly(['readOnly', 'confirm'])).toBe(true);
    expect(workspaceReadOnly('confirm')).toBe(false);
  });
});

describe('network and isolation: the orders agree with their tables', () => {
  const PARTIES = ['fetch', 'sandboxedCommands'] as const;
  const reach = (n: Network, party: (typeof PARTIES)[number]) => REACHES.indexOf(NETWORK_TABLE[n][party]);

  it('network: a value at least as strict never lets the fetch tool or a sandboxed command reach more (every pair)', () => {
    for (const a of NETWORKS) {
      for (const b of NETWORKS) {
        const pointwise = PARTIES.every((p) => reach(a, p) <= reach(b, p));
        expect(networkAtLeastAsStrict(a, b), `${a} vs ${b}`).toBe(pointwise);
      }
    }
  });

  it('network: deny is the strictest and allow the loosest; fetch and domains are each stricter somewhere', () => {
    for (const n of NETWORKS) {
      expect(networkAtLeastAsStrict('deny', n)).toBe(true);
      expect(networkAtLeastAsStrict(n, 'allow')).toBe(true);
    }
    expect(networkAtLeastAsStrict('fetch', 'domains')).toBe(false); // the fetch tool reaches any public host
    expect(networkAtLeastAsStrict('domains', 'fetch')).toBe(false); // commands reach the listed hosts
  });

  it('network: a workspace value never lets any party reach more than the user chose (every pair)', () => {
    for (const user of NETWORKS) {
      for (const proposed of NETWORKS) {
        const { network, loosens } = tightenNetwork(user, proposed);
        for (const p of PARTIES) expect(reach(network, p), `${user} + ${proposed}: ${p}`).toBeLessThanOrEqual(reach(user, p));
        expect(loosens).toBe(!networkAtLeastAsStrict(proposed, user));
      }
    }
  });

  it('network deny takes the fetch tool away in every mode; the others leave it to the mode', () => {
    for (const m of MODES) {
      expect(neverAllowed(m, 'deny', ['egress'])).toBe(true);
      for (const n of ['fetch', 'domains', 'allow'] as const) expect(neverAllowed(m, n, ['egress'])).toBe(MODE_TABLE[m].egress === 'deny');
    }
  });

  it('sandboxed commands reach the network exactly where the table gives them a reach; without a sandbox always', () => {
    for (const n of NETWORKS) {
      expect(commandsReachNetwork(n, 'sandboxed')).toBe(NETWORK_TABLE[n].sandboxedCommands !== 'none');
      expect(commandsReachNetwork(n, 'unsandboxed')).toBe(true);
      expect(commandsReachNetwork(n, 'denied')).toBe(false);
    }
  });

  it('a host not on the domain list is never allowed without a person: a card where the mode asks, refused elsewhere (auto too)', () => {
    for (const m of SETTINGS_ALL) {
      for (const a of ACTIONS) expect(unlistedHostAnswer(m, a)).toBe(modeAnswer(m, a) === 'ask' ? 'ask' : 'deny');
    }
    expect(unlistedHostAnswer('auto', 'command')).toBe('deny');
    expect(unlistedHostAnswer('confirm', 'command')).toBe('ask');
    expect(unlistedHostAnswer('readOnly', 'command')).toBe('deny');
  });

  it('isolation: a stricter value never runs a command with less confinement, sandbox available or not', () => {
    const strength = { denied: 2, sandboxed: 1, unsandboxed: 0 } as const;
    const stricter = SETTINGS.isolation.vscode.stricter;
    expect([...stricter].sort()).toEqual([...ISOLATIONS].sort());
    for (let i = 0; i < stricter.length; i++) {
      for (let j = i; j < stricter.length; j++) {
        for (const avail of ['available', 'unavailable'] as const) {
          expect(strength[ISOLATION_TABLE[stricter[i]!][avail]]).toBeGreaterThanOrEqual(strength[ISOLATION_TABLE[stricter[j]!][avail]]);
        }
      }
    }
  });
});

describe('mode table: what each mode means for each action (the docs table is generated from this)', () => {
  it.each(MODES)('%s', (m: Mode) => {
    expect(Object.keys(MODE_TABLE[m]).sort()).toEqual([...ACTIONS].sort());
  });
});
