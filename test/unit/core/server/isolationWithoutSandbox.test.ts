import { describe, expect, it } from 'vitest';
import type { OverlayProbe } from '../../../../src/core/effects/overlay';
import type { IsolationProbe } from '../../../../src/core/isolation/types';
import type { IsolationState } from '../../../../src/core/isolationState';
import { parsePolicy } from '../../../../src/core/policy';
import { instructions } from '../../../../src/server/createServer';
import { isolationFor, isolationWithoutSandbox } from '../../../../src/server/isolation';

/**
 * A server without a sandbox (isolation "none") opens sessions once its containment trial answered, before the
 * sandbox's and the preview's trials and before it scanned the PATH for toolchain folders (src/server/standalone.ts).
 * What those sessions are told must then be exactly what they would be told once every probe answered, whatever the
 * probes and the developer's context find.
 */
const developer = {
  home: '/var/lib/gs-home',
  toolchain: { dirs: ['/home/dev/.cargo/bin'], path: '/home/dev/.cargo/bin:/usr/bin:/bin', binds: ['/home/dev/.cargo'], env: { CARGO_HOME: '/home/dev/.cargo' }, skipped: [] },
};
const probes: IsolationProbe[] = [
  { kind: 'bwrap', available: true, path: '/usr/bin/bwrap', version: '0.8.0' },
  { kind: 'bwrap', available: false, reason: 'bwrap is not installed' },
  { kind: 'none', available: false, reason: 'no sandbox on this platform' },
];
const overlays: Array<OverlayProbe | undefined> = [undefined, { available: false, reason: 'no overlayfs here' }];
const told = (s: IsolationState) => ({ kind: s.kind, warning: s.warning, denial: s.denial, launcher: s.launcher?.name, contained: s.launcher?.contained, proxy: s.proxy, preview: s.preview });

describe('the isolation a server without a sandbox tells its sessions before the sandbox probe answers', () => {
  it('is the isolation it has once every probe answered, for every network, mode and probe outcome', () => {
    for (const network of ['allow', 'fetch', 'domains', 'deny'] as const) {
      for (const mode of ['readOnly', 'confirm', 'auto'] as const) {
        const policy = parsePolicy({ root: '/tmp', isolation: 'none', network, mode });
        const early = isolationWithoutSandbox(policy);
        for (const probe of probes) {
          for (const overlay of overlays) {
            const later = isolationFor(policy, probe, developer, undefined, overlay);
            expect(told(early), `${network} ${mode} ${probe.kind}/${probe.available} ${overlay ? 'overlay' : ''}`).toEqual(told(later));
            expect(instructions({ isolation: early, policy })).toBe(instructions({ isolation: later, policy }));
          }
        }
      }
    }
  });

  it('is refused for a policy with a sandbox (that one depends on the sandbox probe)', () => {
    expect(() => isolationWithoutSandbox(parsePolicy({ root: '/tmp', isolation: 'auto' }))).toThrow(/only a policy without a sandbox/);
  });
});
