import { describe, expect, it } from 'vitest';
import { NO_ISOLATION, PROBE_PENDING, isolationOutcomeOf } from '../../../src/core/isolationState';
import { MODES, NETWORKS, type Mode, type Network } from '../../../src/core/modes';
import type { Policy } from '../../../src/core/policy';
import { anyCommandHints, hintsAt, nonDefaultHints, READ_ONLY_COMMAND_HINTS } from '../../../src/server/tools/annotations';
import { TOOLS } from '../../../src/server/tools';

/** The hints clients build their prompts from (VS Code: readOnlyHint → no confirmation, openWorldHint → result review). */

const at = (mode: Mode, network: Network, isolation: 'sandboxed' | 'unsandboxed' | 'denied' | undefined) => ({ policy: { mode, network } as Policy, isolation });

describe('command tool hints follow the policy and the sandbox', () => {
  it('open-world only when a command can reach the network', () => {
    // A sandbox cuts the network unless `network: allow` opens it for commands.
    expect(anyCommandHints(at('confirmChanges', 'fetch', 'sandboxed')).openWorldHint).toBe(false);
    expect(anyCommandHints(at('confirmChanges', 'deny', 'sandboxed')).openWorldHint).toBe(false);
    expect(anyCommandHints(at('confirmChanges', 'allow', 'sandboxed')).openWorldHint).toBe(true);
    // Without a sandbox nothing cuts it, whatever the network setting says.
    for (const network of NETWORKS) expect(anyCommandHints(at('confirm', network, 'unsandboxed')).openWorldHint).toBe(true);
    // isolation required but unavailable: no command runs at all.
    expect(anyCommandHints(at('auto', 'allow', 'denied')).openWorldHint).toBe(false);
    // The probe has not answered: the hint does not promise less than may happen.
    expect(anyCommandHints(at('auto', 'deny', undefined)).openWorldHint).toBe(true);
  });

  it('read-only exactly in the mode that refuses every command not known to be read-only', () => {
    const readOnly = MODES.filter((m) => anyCommandHints(at(m, 'fetch', 'sandboxed')).readOnlyHint);
    expect(readOnly).toEqual(['readOnly']);
    expect(anyCommandHints(at('readOnly', 'fetch', 'sandboxed'))).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    expect(anyCommandHints(at('confirm', 'fetch', 'sandboxed'))).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('shell_readonly is read-only and closed-world under every policy; the others keep their fixed hints', () => {
    const byName = Object.fromEntries(TOOLS.map((t) => [t.name, t]));
    for (const mode of MODES) {
      for (const isolation of ['sandboxed', 'unsandboxed', 'denied', undefined] as const) {
        expect(hintsAt(byName.shell_readonly!.annotations, at(mode, 'allow', isolation))).toEqual(READ_ONLY_COMMAND_HINTS);
        expect(hintsAt(byName.readFile!.annotations, at(mode, 'allow', isolation)).readOnlyHint).toBe(true);
        expect(hintsAt(byName.writeFile!.annotations, at(mode, 'allow', isolation))).toMatchObject({ readOnlyHint: false, openWorldHint: false });
      }
    }
    expect(nonDefaultHints(READ_ONLY_COMMAND_HINTS)).toEqual({ readOnlyHint: true, openWorldHint: false });
  });
});

describe('isolationOutcomeOf', () => {
  it('names what happens to a command under an isolation state', () => {
    expect(isolationOutcomeOf(PROBE_PENDING)).toBeUndefined();
    expect(isolationOutcomeOf(NO_ISOLATION)).toBe('unsandboxed');
    // No sandbox, but a PID-namespace wrapper so nothing outlives the call: the network is not cut.
    expect(isolationOutcomeOf({ kind: 'none', wrap: (s) => s })).toBe('unsandboxed');
    expect(isolationOutcomeOf({ kind: 'bwrap', wrap: (s) => s })).toBe('sandboxed');
    expect(isolationOutcomeOf({ kind: 'none', denial: 'bubblewrap is required but missing' })).toBe('denied');
  });
});
