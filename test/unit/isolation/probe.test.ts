import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { probeIsolation } from '../../../src/core/isolation/probe';
import { skipWithout } from '../../helpers/needs';

// The real probe runs the real bubblewrap on this machine (.ci/run installs it).
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-iso-probe-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('probeIsolation', () => {
  it('finds bubblewrap here and proves it can start a sandbox', async (ctx) => {
    skipWithout(ctx, 'bubblewrap');
    const p = await probeIsolation('linux');
    expect(p).toMatchObject({ kind: 'bwrap', available: true });
    expect(p.path && path.isAbsolute(p.path)).toBe(true);
    expect(p.version).toMatch(/^\d+\.\d+/);
    expect(p.prlimitPath).toMatch(/prlimit$/);
    if (process.getuid?.() === 0) expect(p.limitations?.join(' ')).toContain('RLIMIT_NPROC');
  });

  it('says what to install when bubblewrap is missing', async () => {
    const p = await probeIsolation('linux', { bwrapCandidates: [path.join(dir, 'no-such-bwrap')] });
    expect(p.available).toBe(false);
    expect(p.reason).toContain('apt-get install bubblewrap');
  });

  it('reports the exact stderr when bubblewrap is installed but cannot create namespaces', async () => {
    // Stands in for Ubuntu's AppArmor userns restriction: a "bwrap" that fails the way the real one does there.
    const fake = path.join(dir, 'bwrap');
    fs.writeFileSync(fake, '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.9.0"; exit 0; fi\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
    const p = await probeIsolation('linux', { bwrapCandidates: [fake] });
    expect(p).toMatchObject({ kind: 'bwrap', available: false, path: fake, version: '0.9.0' });
    expect(p.reason).toContain('bwrap: setting up uid map: Permission denied');
  });

  it('reports a sandbox program that hangs as unavailable after the timeout', async () => {
    const fake = path.join(dir, 'slow-bwrap');
    fs.writeFileSync(fake, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const p = await probeIsolation('linux', { bwrapCandidates: [fake], timeoutMs: 300 });
    expect(p.available).toBe(false);
    expect(p.reason).toMatch(/timed out/);
  });

  it('has no sandbox on Windows', async () => {
    const p = await probeIsolation('win32');
    expect(p).toMatchObject({ kind: 'none', available: false });
    expect(p.reason).toContain('WSL');
  });

  it('reports a missing sandbox-exec on a "darwin" without it (this machine)', async () => {
    const p = await probeIsolation('darwin');
    expect(p).toMatchObject({ kind: 'seatbelt', available: false });
    expect(p.reason).toContain('/usr/bin/sandbox-exec');
  });
});
