import { describe, it, expect } from 'vitest';
import { createSeatbeltSandbox, sbplString, seatbeltProfile } from '../../../src/core/isolation/seatbelt';
import type { SandboxContext } from '../../../src/core/isolation/types';

// Text only: these machines run Linux, so the profile has never been loaded by a real sandbox-exec.
const ctx: SandboxContext = { root: '/Users/ann/proj', cwd: '/Users/ann/proj', mode: 'auto', network: 'deny', home: '/Users/ann' };
const lines = (c: SandboxContext) => seatbeltProfile(c).split('\n');
/** Index of the first line that contains `needle`; -1 when none does. */
const at = (ls: string[], needle: string) => ls.findIndex((l) => l.includes(needle));

describe('Seatbelt profile text', () => {
  it('denies everything by default and reads the system', () => {
    const ls = lines(ctx);
    expect(ls.slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    expect(ls).toContain('(allow file-read*)');
  });

  it('stops reading ~/.ssh: HOME is denied AFTER the broad read allow (last match wins), the workspace re-allowed after that', () => {
    const ls = lines(ctx);
    const homeDeny = ls.indexOf('(deny file-read* file-write* (subpath "/Users/ann"))');
    expect(homeDeny).toBeGreaterThan(ls.indexOf('(allow file-read*)'));
    expect(ls.indexOf('(allow file-read* (subpath "/Users/ann/proj"))')).toBeGreaterThan(homeDeny);
    expect(ls.indexOf('(allow file-write* (subpath "/Users/ann/proj"))')).toBeGreaterThan(homeDeny);
  });

  it("reads the toolchain folders and the commands' own HOME inside the denied home, writes only that HOME's caches; credential stores stay denied", () => {
    const ls = lines({ ...ctx, toolchainPaths: ['/Users/ann/.pyenv', '/Users/ann/.cargo'], privateHome: '/Users/ann/Library/gs/home/x' });
    const homeDeny = ls.indexOf('(deny file-read* file-write* (subpath "/Users/ann"))');
    const tools = ls.indexOf('(allow file-read* (subpath "/Users/ann/.pyenv") (subpath "/Users/ann/.cargo"))');
    expect(tools).toBeGreaterThan(homeDeny);
    expect(ls.indexOf('(allow file-read* (subpath "/Users/ann/Library/gs/home/x"))')).toBeGreaterThan(homeDeny);
    const writes = ls.find((l) => l.startsWith('(allow file-write*') && l.includes('/Users/ann/Library/gs/home/x'))!;
    expect(writes).toContain('(subpath "/Users/ann/Library/gs/home/x/.npm")');
    expect(writes).not.toContain('(subpath "/Users/ann/Library/gs/home/x")');
    expect(ls.some((l) => l.startsWith('(allow file-write*') && l.includes('.pyenv'))).toBe(false);
    expect(ls.indexOf('(deny file-read* file-write* (subpath "/Users/ann/.cargo/credentials.toml"))')).toBeGreaterThan(tools);
  });

  it('lets getcwd stat the workspace ancestors inside the hidden home, and nothing more', () => {
    const ctx2 = { ...ctx, root: '/Users/ann/code/proj', cwd: '/Users/ann/code/proj' };
    expect(lines(ctx2)).toContain('(allow file-read-metadata (literal "/Users/ann/code") (literal "/Users/ann"))');
  });

  it("stops planting a git hook or configuration: writes to .git's config and hooks (also ones that do not exist yet, also submodules' and worktrees') are denied after the workspace write allow, unless allowed", () => {
    const ls = lines(ctx);
    const rule = '(deny file-write* (regex #"^/Users/ann/proj/\\.git/((modules/.+|worktrees/[^/]+)/)?(config|config\\.worktree|hooks|commondir)(/|$)"))';
    expect(ls.indexOf(rule)).toBeGreaterThan(ls.indexOf('(allow file-write* (subpath "/Users/ann/proj"))'));
    // The regex itself, as Seatbelt would apply it (the #"…" text is a raw regular expression).
    const re = new RegExp(rule.slice(rule.indexOf('#"') + 2, rule.lastIndexOf('"')));
    for (const p of ['.git/config', '.git/hooks', '.git/hooks/pre-commit', '.git/config.worktree', '.git/modules/sub/hooks/x', '.git/modules/a/b/config', '.git/worktrees/w/commondir']) expect(re.test(`/Users/ann/proj/${p}`), p).toBe(true);
    for (const p of ['.git/objects/ab/cd', '.git/index', '.git/refs/heads/main', '.git/configx', '.gitconfig', 'src/config']) expect(re.test(`/Users/ann/proj/${p}`), p).toBe(false);
    expect(seatbeltProfile({ ...ctx, allowGitWrites: true })).not.toContain('/Users/ann/proj/\\.git');
  });

  it('stops every write in readOnly mode: no workspace or temp write rule at all', () => {
    const p = seatbeltProfile({ ...ctx, mode: 'readOnly' });
    expect(p).toContain('(allow file-read* (subpath "/Users/ann/proj"))');
    expect(p).not.toContain('(allow file-write* (subpath');
  });

  it('stops network access unless allowed, then allows outbound', () => {
    const denied = seatbeltProfile(ctx);
    expect(denied).toContain('(deny network*)');
    expect(denied).not.toMatch(/\(allow network/);
    const allowed = seatbeltProfile({ ...ctx, network: 'allow' });
    expect(allowed).toContain('(allow network-outbound)');
    expect(allowed).not.toContain('(deny network*)');
  });

  it('puts hidden and read-only extra paths last so they beat the workspace allows', () => {
    const ls = lines({ ...ctx, hiddenPaths: ['/Users/ann/proj/.env'], readOnlyPaths: ['/Users/ann/proj/vendor'] });
    const wsWrite = ls.indexOf('(allow file-write* (subpath "/Users/ann/proj"))');
    expect(at(ls, '(deny file-read* file-write* (subpath "/Users/ann/proj/.env"))')).toBeGreaterThan(wsWrite);
    expect(at(ls, '(deny file-write* (subpath "/Users/ann/proj/vendor"))')).toBeGreaterThan(wsWrite);
  });

  it('keeps credential stores hidden when the workspace is the home directory', () => {
    const ls = lines({ ...ctx, root: '/Users/ann', cwd: '/Users/ann' });
    expect(at(ls, '(deny file-read* file-write* (subpath "/Users/ann/.ssh"))')).toBeGreaterThan(ls.indexOf('(allow file-read* (subpath "/Users/ann"))'));
  });

  it('stops profile injection through a path with quotes, backslashes or parentheses', () => {
    expect(sbplString('/a"b\\c')).toBe('"/a\\"b\\\\c"');
    const p = seatbeltProfile({ ...ctx, root: '/Users/ann/x") (allow default) ("', cwd: '/Users/ann/x") (allow default) ("' });
    expect(p).toContain('(subpath "/Users/ann/x\\") (allow default) (\\"")');
    expect(p.split('\n')).not.toContain('(allow default)');
    expect(() => seatbeltProfile({ ...ctx, hiddenPaths: ['/a\nb'] })).toThrow(/line break/);
  });

  it('wraps through /usr/bin/sandbox-exec -p <profile> -- cmd args', () => {
    const w = createSeatbeltSandbox().wrap({ file: 'ls', args: ['-la'] }, ctx);
    expect(w.file).toBe('/usr/bin/sandbox-exec');
    expect(w.args[0]).toBe('-p');
    expect(w.args[1]).toBe(seatbeltProfile(ctx));
    expect(w.args.slice(2)).toEqual(['--', 'ls', '-la']);
  });
});
