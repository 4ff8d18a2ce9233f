import { describe, expect, it } from 'vitest';
import { overlayStep, type OverlayTools, type OverlayView } from '../../../../src/core/effects/overlay';
import { createDarwinLauncher } from '../../../../src/core/exec/launch/darwin';
import { createLinuxLauncher } from '../../../../src/core/exec/launch/linux';
import { createBwrapSandbox } from '../../../../src/core/isolation/bwrap';
import { createSeatbeltSandbox } from '../../../../src/core/isolation/seatbelt';
import type { SandboxContext } from '../../../../src/core/isolation/types';

// The copy-on-write view of command preview as the Linux launcher prepares it (data: the argv); the real mount, the
// real sandbox and the real effect are tested in test/integration/preview*.test.ts.
const view: OverlayView = { dir: '/tmp/gs-preview-x/ab12', lower: '/tmp/gs-preview-x/ab12/lower', upper: '/tmp/gs-preview-x/ab12/upper', work: '/tmp/gs-preview-x/ab12/work', merged: '/tmp/gs-preview-x/ab12/merged' };
const asRoot: OverlayTools = { unshare: '/usr/bin/unshare', mount: '/usr/bin/mount', sh: '/usr/bin/sh', perl: '/usr/bin/perl', userNamespace: false, uid: 0, gid: 0 };
const asUser: OverlayTools = { ...asRoot, userNamespace: true, uid: 1000, gid: 1000 };
const root = '/home/ann/proj, with: commas';
const ctx = (tools: OverlayTools): SandboxContext => ({ root, cwd: root, mode: 'confirm', network: 'deny', home: '/home/ann', overlay: { tools, view } });
const program = { file: '/usr/bin/touch', args: ['new.txt'], argv0: 'touch' };
const sandbox = createBwrapSandbox({ bwrapPath: '/usr/bin/bwrap', disableUserns: true, lookup: (p) => ({ real: p, isDirectory: true }), scan: () => ({ git: [], globbed: [], truncated: false }) });
const linux = createLinuxLauncher({ containment: { kind: 'plain', limitation: 'test' }, sandbox });

describe('command preview: the Linux launcher\'s mount step in front of the sandbox', () => {
  it('as root: a mount namespace only; the workspace reaches the step as an argument, never inside overlayfs\'s options', () => {
    const s = linux.prepare(program, ctx(asRoot));
    expect(s.launcher).toBe('bwrap');
    expect([s.file, ...s.args.slice(0, 5)]).toEqual(['/usr/bin/unshare', '--mount', '--propagation', 'private', '--', '/usr/bin/sh']);
    const script = s.args[6]!;
    expect(script).toContain('mount --bind "$1" "$2/lower"');
    expect(script).not.toContain(root);
    expect(s.args.slice(7, 11)).toEqual(['gs-overlay', root, view.dir, '']);
    expect(s.args[11]).toBe('/usr/bin/bwrap');
  });

  it('binds the view where the workspace is, and every narrower mount still on top of it', () => {
    const args = linux.prepare(program, ctx(asRoot)).args;
    const bind = args.findIndex((a, i) => a === '--bind' && args[i + 2] === root);
    expect(args[bind + 1]).toBe(view.merged);
    expect(args.filter((a, i) => a === '--bind' && args[i + 1] === root)).toEqual([]);
  });

  it('as a normal user: a user namespace of its own, overlayfs with userxattr, and bubblewrap keeps the server\'s ids', () => {
    const args = linux.prepare(program, ctx(asUser)).args;
    expect(args.slice(0, 4)).toEqual(['--user', '--map-root-user', '--mount', '--propagation']);
    expect(args[args.indexOf(view.dir) + 1]).toBe('userxattr,');
    const bwrapAt = args.indexOf('/usr/bin/bwrap');
    expect(args.slice(bwrapAt).join(' ')).toContain('--uid 1000 --gid 1000');
  });

  it('without a view the sandbox is started as before (no step)', () => {
    const { overlay: _none, ...plain } = ctx(asRoot);
    expect(linux.prepare(program, plain).file).toBe('/usr/bin/bwrap');
  });

  it('refuses a staging folder overlayfs options could not carry', () => {
    expect(() => overlayStep(asRoot, root, { ...view, dir: '/tmp/a,b' }, ['/usr/bin/bwrap'])).toThrow(/cannot carry/);
  });

  it('macOS: no view can be made, so a preview is refused rather than run against the real folder', () => {
    expect(() => createDarwinLauncher({ sandbox: createSeatbeltSandbox() }).prepare(program, { ...ctx(asRoot), root: '/Users/ann/p', cwd: '/Users/ann/p', home: '/Users/ann' })).toThrow(/preview needs Linux/);
  });
});
