import { describe, it, expect } from 'vitest';
import { selectSandbox } from '../../../src/core/isolation/select';
import { isolationState } from '../../../src/core/isolation/state';
import type { IsolationProbe } from '../../../src/core/isolation/types';

const working: IsolationProbe = { kind: 'bwrap', available: true, path: '/usr/bin/bwrap', prlimitPath: '/usr/bin/prlimit', disableUserns: true, version: '0.8.0' };
const missing: IsolationProbe = { kind: 'bwrap', available: false, reason: 'bubblewrap (bwrap) is not installed. Install it: `apt-get install bubblewrap` (Debian/Ubuntu).' };
const blocked: IsolationProbe = { kind: 'bwrap', available: false, path: '/usr/bin/bwrap', reason: 'bubblewrap is installed (/usr/bin/bwrap) but cannot create a sandbox here: bwrap: setting up uid map: Permission denied.' };
const windows: IsolationProbe = { kind: 'none', available: false, reason: 'Windows has no sandbox for Guarded Shell; run it inside WSL (with bubblewrap) for one.' };

describe('selectSandbox', () => {
  it('uses no sandbox and says nothing when isolation is none, even if one is available', () => {
    expect(selectSandbox('none', working)).toEqual({ sandbox: null });
  });

  it('uses bubblewrap in auto mode when the probe could really start it', () => {
    const s = selectSandbox('auto', working);
    expect(s.sandbox?.kind).toBe('bwrap');
    expect(s.warning).toBeUndefined();
    expect(s.sandbox?.wrap({ file: 'true', args: [] }, { root: '/w', cwd: '/w', mode: 'auto', network: 'deny', home: '/nonexistent' }).file).toBe('/usr/bin/bwrap');
  });

  it('runs unsandboxed in auto mode only with a warning that carries the exact reason', () => {
    const s = selectSandbox('auto', blocked);
    expect(s.sandbox).toBeNull();
    expect(s.denial).toBeUndefined();
    expect(s.warning).toContain('WITHOUT an OS sandbox');
    expect(s.warning).toContain('setting up uid map: Permission denied');
  });

  it('stops every command when isolation is required and bubblewrap is missing, saying what to install', () => {
    const s = selectSandbox('required', missing);
    expect(s.sandbox).toBeNull();
    expect(s.denial?.code).toBe('ISOLATION_UNAVAILABLE');
    expect(s.denial?.reason).toContain('apt-get install bubblewrap');
  });

  it('stops every command when isolation is required and namespaces are forbidden, with the reason', () => {
    const s = selectSandbox('required', blocked);
    expect(s.denial?.reason).toContain('Permission denied');
    expect(s.denial?.reason).toContain('"auto" or "none"');
  });

  it('warns in auto and denies in required on Windows', () => {
    expect(selectSandbox('auto', windows).warning).toContain('WSL');
    expect(selectSandbox('required', windows).denial?.reason).toContain('WSL');
  });

  it('passes the probe limitations on as a warning even with a working sandbox', () => {
    const s = selectSandbox('required', { ...working, limitations: ['The server runs as root: no RLIMIT_NPROC.'] });
    expect(s.sandbox?.kind).toBe('bwrap');
    expect(s.warning).toContain('root');
  });

  it('never trusts an "available" probe without a program path', () => {
    expect(selectSandbox('required', { kind: 'bwrap', available: true }).denial?.code).toBe('ISOLATION_UNAVAILABLE');
  });

  it('denies an isolation value it does not know instead of guessing', () => {
    expect(selectSandbox('sometimes' as 'auto', working).denial?.reason).toContain('Unknown isolation setting');
  });
});

describe('isolationState (the adapter the command pipeline consumes)', () => {
  it('wraps each stage with the given working directory and reports the sandbox kind', () => {
    const st = isolationState(selectSandbox('auto', working), { root: '/w', mode: 'auto', network: 'deny', home: '/nonexistent' });
    expect(st.kind).toBe('bwrap');
    const args = st.wrap?.({ file: 'ls', args: [] }, '/w/sub').args ?? [];
    expect(args.slice(args.indexOf('--chdir'), args.indexOf('--chdir') + 2)).toEqual(['--chdir', '/w/sub']);
  });

  it('turns a required-but-missing sandbox into a denial for the pipeline', () => {
    const st = isolationState(selectSandbox('required', missing), { root: '/w', mode: 'auto', network: 'deny' });
    expect(st).toEqual({ kind: 'none', denial: expect.stringContaining('apt-get install bubblewrap') });
    expect(st.wrap).toBeUndefined();
  });

  it('passes the auto warning through with no wrapper', () => {
    const st = isolationState(selectSandbox('auto', blocked), { root: '/w', mode: 'auto', network: 'deny' });
    expect(st.kind).toBe('none');
    expect(st.warning).toContain('Permission denied');
  });
});
