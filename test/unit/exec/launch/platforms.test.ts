import { describe, expect, it } from 'vitest';
import { createDarwinLauncher, DARWIN_LIMITATION } from '../../../../src/core/exec/launch/darwin';
import { platformLauncher } from '../../../../src/core/exec/launch';
import { createWindowsLauncher, WINDOWS_LIMITATION } from '../../../../src/core/exec/launch/windows';
import { createSeatbeltSandbox, seatbeltProfile, SANDBOX_EXEC_PATH } from '../../../../src/core/isolation/seatbelt';
import { selectSandbox } from '../../../../src/core/isolation/select';
import type { SandboxContext } from '../../../../src/core/isolation/types';

// The macOS and Windows launchers as data (their argv, profile and refusals), on any machine: these CI runners are
// Linux. test/conformance is written to run on macOS and Windows runners against the real thing.
const ctx: SandboxContext = { root: '/Users/ann/proj', cwd: '/Users/ann/proj/src', mode: 'auto', network: 'deny', home: '/Users/ann' };
const ls = { file: '/bin/ls', args: ['-la', 'x y'], argv0: 'ls' };

describe('macOS launcher', () => {
  it('runs a sandboxed stage as sandbox-exec -p <profile> -- <program>, the system copy only', () => {
    const s = createDarwinLauncher({ sandbox: createSeatbeltSandbox() }).prepare(ls, ctx);
    expect(s.file).toBe(SANDBOX_EXEC_PATH);
    expect(s.args).toEqual(['-p', seatbeltProfile(ctx), '--', '/bin/ls', '-la', 'x y']);
    expect(s.launcher).toBe('seatbelt');
  });

  it('keeps a command in the sandbox from signalling, inspecting or tracing any process outside it (the server)', () => {
    const profile = seatbeltProfile(ctx).split('\n');
    expect(profile[1]).toBe('(deny default)');
    const processRules = profile.filter((l) => /^\(allow (signal|process-info|mach-priv-task-port|process-exec-interpreter)/.test(l));
    expect(processRules).toEqual(['(allow signal (target same-sandbox))', '(allow process-info* (target same-sandbox))']);
  });

  it('runs a stage without a sandbox as itself, under the name it was called by, and says it is not contained', () => {
    const l = createDarwinLauncher();
    expect(l.prepare(ls)).toEqual({ ...ls, launcher: 'process-group', program: ls });
    expect(l.contained).toBe(false);
    expect(l.limitation).toBe(DARWIN_LIMITATION);
    expect(platformLauncher(null, 'darwin').name).toBe('process-group');
  });
});

describe('Windows launcher', () => {
  const win = createWindowsLauncher();
  it('runs only without a sandbox, and says why and what to do (WSL)', () => {
    expect(() => win.prepare({ file: 'C:\\Windows\\system32\\where.exe', args: [] }, ctx)).toThrow(/WSL/);
    expect(win.prepare({ file: 'C:\\Windows\\system32\\where.exe', args: ['x'] })).toMatchObject({ file: 'C:\\Windows\\system32\\where.exe', args: ['x'], launcher: 'windows' });
    expect(win.contained).toBe(false);
    expect(win.limitation).toBe(WINDOWS_LIMITATION);
    expect(platformLauncher(null, 'win32').name).toBe('windows');
  });

  it('refuses .cmd and .bat programs (npm, npx), which only cmd.exe runs, with what to run instead', () => {
    for (const f of ['C:\\Program Files\\nodejs\\npm.cmd', 'C:\\tools\\build.BAT']) {
      expect(() => win.prepare({ file: f, args: [] })).toThrow(/batch file.*cmd\.exe/);
    }
  });

  it('denies every command with isolation required, pointing at WSL (the probe\'s own words)', () => {
    const probe = { kind: 'none' as const, available: false, reason: 'Windows has no sandbox for Guarded Shell; run it inside WSL (with bubblewrap) for one.' };
    expect(selectSandbox('required', probe).denial?.reason).toMatch(/WSL/);
    expect(selectSandbox('auto', probe).warning).toMatch(/WSL/);
  });
});
