import { describe, expect, it } from 'vitest';
import { checkPathText } from '../../../../src/core/paths/confine';
import { confineWindows, windowsPathProblem } from '../../../../src/core/paths/windows';

// Windows path confinement decided on the text with Win32's own rules (path.win32), so it runs on Linux CI. Each
// case is a way a path that reads as inside the workspace, or as a plain file, is something else on Windows.
const ROOT = 'C:\\Users\\ann\\proj';
const refused = (p: string, rule: RegExp | string = /.+/) => expect(() => confineWindows(ROOT, p)).toThrow(rule);

describe('Windows path confinement', () => {
  it('confines ordinary paths, case-insensitively, with either slash', () => {
    expect(confineWindows(ROOT, 'src\\a.ts')).toEqual({ full: 'C:\\Users\\ann\\proj\\src\\a.ts', relative: 'src/a.ts' });
    expect(confineWindows(ROOT, 'c:/users/ANN/Proj/src/b.ts').relative).toBe('src/b.ts');
    expect(confineWindows(ROOT, '.').relative).toBe('.');
    expect(confineWindows(ROOT, '..proj-notes.txt').relative).toBe('..proj-notes.txt'); // a name starting with two dots
    expect(confineWindows(ROOT, 'b', 'C:\\Users\\ann\\proj\\src').relative).toBe('src/b');
  });

  it('refuses a climb out, another drive, and a look-alike sibling folder', () => {
    refused('..\\secret.txt', /outside the workspace/);
    refused('src\\..\\..\\x', /outside the workspace/);
    refused('D:\\proj\\a.txt', /outside the workspace/);
    refused('C:\\Users\\ann\\proj-evil\\a.txt', /outside the workspace/);
  });

  it('refuses a drive-relative path (C:foo is relative to drive C\'s own current folder)', () => {
    refused('C:secret.txt', /current folder of a drive/);
    refused('c:..\\x', /current folder of a drive/);
  });

  it('refuses a path relative to the current drive\'s root (\\foo)', () => {
    refused('\\Windows\\System32', /current drive's root/);
    refused('/etc', /current drive's root/);
  });

  it('refuses verbatim and device paths (\\\\?\\, \\\\.\\, \\??\\), named pipes included', () => {
    refused('\\\\?\\C:\\Users\\ann\\proj\\a.txt.', /device or verbatim/);
    refused('\\\\.\\pipe\\guarded-shell', /device or verbatim/);
    refused('//./PhysicalDrive0', /device or verbatim/);
    refused('\\??\\C:\\x', /device or verbatim/);
  });

  it('refuses a UNC path outside a drive root, and confines one inside a UNC root', () => {
    refused('\\\\evil\\share\\payload', /outside the workspace/);
    expect(confineWindows('\\\\srv\\share\\proj', 'a\\b.txt').relative).toBe('a/b.txt');
    expect(() => confineWindows('\\\\srv\\share\\proj', '\\\\srv\\share\\other\\x')).toThrow(/outside the workspace/);
  });

  it('refuses reserved device names in any component, with any extension or trailing space', () => {
    for (const p of ['NUL', 'con.txt', 'src\\aux.json', 'COM1', 'lpt9.log', 'com¹', 'CONIN$', 'conout$.txt', 'nul .txt', 'prn.tar.gz']) refused(p, /device name/);
    expect(confineWindows(ROOT, 'console.txt').relative).toBe('console.txt');
    expect(confineWindows(ROOT, 'com10').relative).toBe('com10');
  });

  it('refuses alternate data streams (a.txt:hidden, a.txt::$DATA)', () => {
    refused('a.txt:hidden', /alternate data stream/);
    refused('a.txt::$DATA', /alternate data stream/);
    refused('.git::$INDEX_ALLOCATION\\hooks', /alternate data stream/);
  });

  it('refuses trailing dots and spaces, which Windows drops (.git. IS .git)', () => {
    refused('.git.\\hooks\\pre-commit', /ends with a dot or a space.*"\.git"/);
    refused('secret ', /ends with a dot or a space/);
    refused('src.\\a.ts', /ends with a dot or a space/);
  });

  it('refuses components shaped like 8.3 short names (GIT~1 may be .git)', () => {
    refused('GIT~1\\config', /8\.3 short name/);
    refused('C:\\Users\\ann\\proj\\PROGRA~1', /8\.3 short name/);
    expect(confineWindows(ROOT, 'notes~draft.md').relative).toBe('notes~draft.md');
  });

  it('refuses a root that is not a full path, or is itself of a refused form', () => {
    expect(() => confineWindows('proj', 'a')).toThrow(/not a full path/);
    expect(() => confineWindows('C:proj', 'a')).toThrow(/current folder of a drive/);
    expect(() => confineWindows('C:\\PROGRA~1\\x', 'a')).toThrow(/8\.3 short name/);
  });

  it('is the check every path text passes on Windows before the disk is touched (confine.ts)', () => {
    expect(() => checkPathText('a.txt::$DATA', 'path', 'win32')).toThrow(/alternate data stream/);
    expect(() => checkPathText('a.txt::$DATA', 'path', 'linux')).not.toThrow(); // a plain name elsewhere
    expect(windowsPathProblem('src\\ok.ts')).toBeUndefined();
  });
});
