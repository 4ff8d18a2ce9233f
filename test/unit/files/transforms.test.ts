import { describe, expect, it } from 'vitest';
import { applyUnifiedDiff, parsePatchArgs } from '../../../src/core/files/patch';
import { replaceExact } from '../../../src/core/files/replace';
import { checkSedArgs, runSed, sedTransform } from '../../../src/core/files/sed';
import { detectLineEnding, tryDecodeText } from '../../../src/core/files/text';

describe('sed options', () => {
  it.each(['-n', '-E', '-r', '-s', '-u', '-nE', '--posix', '--quiet', '--silent', '--regexp-extended'])('accepts the safe option %s', (a) => {
    expect(checkSedArgs([a])).toEqual([a]);
  });
  it.each([
    ['-i', /-i is not allowed.*edits in place/],
    ['-ni', /-i in "-ni" is not allowed/],
    ['--in-place=.bak', /--in-place is not allowed/],
    ['-e', /-e is not allowed.*only program/],
    ['-f', /-f is not allowed/],
    ['--file=x.sed', /--file is not allowed/],
    ['--expression=s/a/b/', /--expression is not allowed/],
    ['-z', /-z is not allowed/],
    ['--null-data', /--null-data is not allowed/],
    ['--follow-symlinks', /--follow-symlinks is not allowed/],
    ['/etc/passwd', /not a sed option/],
  ])('stops %s (another program, in-place write or another file)', (a, message) => {
    expect(() => checkSedArgs([a])).toThrow(message);
  });
});

describe('sed as a transform', () => {
  it('stops sed w, r and e commands through --sandbox', async () => {
    for (const script of ['w /tmp/gs-pwned', 'r /etc/passwd', '1e id', 's/a/b/w /tmp/gs-pwned']) {
      await expect(runSed(script, [], 'a\n'), script).rejects.toMatchObject({ code: 'ARGUMENT_FORBIDDEN', rule: 'sed.sandbox' });
    }
  });
  it('reports a bad script with sed\'s own message', async () => {
    await expect(runSed('s/unterminated', [], 'a\n')).rejects.toThrow(/unterminated `s' command/);
  });
  it('keeps CRLF line endings and lets $ anchor before the CR', async () => {
    expect(await sedTransform('one\r\ntwo\r\n', 's/two$/2/', [])).toBe('one\r\n2\r\n');
    expect(await sedTransform('one\r\ntwo\r\n', '1a\\\ninserted', [])).toBe('one\r\ninserted\r\ntwo\r\n');
  });
  it('keeps a missing final newline', async () => {
    expect(await sedTransform('a\nb', 's/b/B/', [])).toBe('a\nB');
  });
  it('empties the file with -n and no p', async () => {
    expect(await sedTransform('a\nb\n', '', ['-n'])).toBe('');
  });
  it('treats a script starting with - as a program, not an option', async () => {
    await expect(runSed('-i', [], 'a\n')).rejects.toMatchObject({ rule: 'sed.failed' });
  });
});

describe('patch options and application', () => {
  const original = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
  const diff = '--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n four\n';

  it('applies a unified diff', () => {
    expect(applyUnifiedDiff(original, diff, parsePatchArgs([]))).toBe(original.replace('three', 'THREE'));
  });
  it('reverses with -R', () => {
    const changed = original.replace('three', 'THREE');
    expect(applyUnifiedDiff(changed, diff, parsePatchArgs(['-R']))).toBe(original);
  });
  it('ignores white space with -l', () => {
    const spaced = original.replace('two', 'two   ').replace('four', '  four');
    expect(() => applyUnifiedDiff(spaced, diff, parsePatchArgs([]))).toThrow(/hunk #1/);
    expect(applyUnifiedDiff(spaced, diff, parsePatchArgs(['--ignore-whitespace']))).toContain('THREE');
  });
  it('accepts fuzz in every spelling', () => {
    for (const a of [['-F', '2'], ['-F2'], ['--fuzz=2'], ['--fuzz', '2']]) expect(parsePatchArgs(a).fuzz).toBe(2);
  });
  it('names the hunk that does not apply', () => {
    const two = '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n@@ -5,2 +5,2 @@\n five\n-nope\n+NOPE\n';
    expect(() => applyUnifiedDiff(original, two, parsePatchArgs([]))).toThrow(/hunk #2 of 2 \(@@ -5,2 \+5,2 @@\)/);
  });
  it.each([['-o', 'out'], ['--output=x'], ['-d', '/'], ['-p1'], ['-i', 'x.diff'], ['-b'], ['--backup'], ['-r', 'rej'], ['--reject-file=x'], ['-B', '/tmp/'], ['-z', '.x'], ['/etc/passwd']])(
    'stops the patch option %s that could pick another file, folder, backup or strip level',
    (...a) => {
      expect(() => parsePatchArgs(a)).toThrow(/is not allowed/);
    },
  );
  it('refuses a diff for several files and a diff without hunks', () => {
    const many = `${diff}--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n`;
    expect(() => applyUnifiedDiff(original, many, parsePatchArgs([]))).toThrow(/changes 2 files/);
    expect(() => applyUnifiedDiff(original, 'hello', parsePatchArgs([]))).toThrow(/no hunks/);
  });
  it('keeps CRLF when an LF patch is applied to a CRLF file', () => {
    const crlf = original.replace(/\n/g, '\r\n');
    expect(applyUnifiedDiff(crlf, diff, parsePatchArgs([]))).toBe(crlf.replace('three', 'THREE'));
  });
});

describe('replaceExact', () => {
  it('replaces the expected number of occurrences', () => {
    expect(replaceExact('a b a', 'a', 'c', 2)).toBe('c b c');
  });
  it('says how many matches there were when the count is wrong', () => {
    expect(() => replaceExact('a b a', 'a', 'c')).toThrow(/occurs 2 times in the file, expected 1/);
    expect(() => replaceExact('a b a', 'z', 'c')).toThrow(/occurs 0 times/);
  });
  it('matches and writes CRLF in a CRLF file', () => {
    expect(replaceExact('x\r\ny\r\n', 'x\ny', 'p\nq')).toBe('p\r\nq\r\n');
  });
});

describe('text detection', () => {
  it('tells CRLF, LF and mixed files apart', () => {
    expect(detectLineEnding('a\r\nb\r\n')).toBe('crlf');
    expect(detectLineEnding('a\nb\n')).toBe('lf');
    expect(detectLineEnding('a\r\nb\n')).toBe('lf');
  });
  it('refuses binary and invalid UTF-8, keeps a BOM', () => {
    expect(tryDecodeText(Buffer.from([0x61, 0, 0x62]))).toBeUndefined();
    expect(tryDecodeText(Buffer.from([0xff, 0xfe, 0x41]))).toBeUndefined();
    expect(tryDecodeText(Buffer.from('\ufeffhi', 'utf8'))).toBe('\ufeffhi');
  });
});
