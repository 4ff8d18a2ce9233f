import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { diffForAgent, diffHasChanges, MAX_DIFF_EDITS, replacementDiff, unifiedDiff } from '../../../src/core/files/diffText';

const numbered = (n: number, tag = 'line') => Array.from({ length: n }, (_, i) => `${tag} ${i}`).join('\n') + '\n';

describe('unifiedDiff: bounded cost, exact result', () => {
  it('a complete rewrite of 20,000 lines becomes one replacement hunk, quickly, and applies to the new text', () => {
    const before = numbered(20_000);
    const after = numbered(20_000, 'LINE');
    const started = performance.now();
    const d = unifiedDiff('big.txt', before, after);
    const ms = performance.now() - started;
    console.log(`20,000-line rewrite: diff in ${ms.toFixed(0)} ms, ${d.length} bytes`);
    expect(d.startsWith('--- a/big.txt\n+++ b/big.txt\n@@ -1,20000 +1,20000 @@\n-line 0\n')).toBe(true);
    expect(applyPatch(before, d)).toBe(after);
  });

  it('a small change keeps its ordinary hunk', () => {
    const before = numbered(20_000);
    const after = before.replace('line 500\n', 'LINE 500\n');
    const d = unifiedDiff('big.txt', before, after);
    expect(d).toContain('@@ -498,7 +498,7 @@');
    expect(applyPatch(before, d)).toBe(after);
  });

  it('the replacement diff is exact for every ending: CRLF, no final newline, empty sides', () => {
    const cases: [string, string][] = [
      ['a\r\nb\r\n', 'c\r\nd'],
      ['a\nb', 'c\nd\n'],
      ['', 'new\n'],
      ['old\n', ''],
      ['x', 'y'],
    ];
    for (const [a, b] of cases) {
      const d = replacementDiff('a/f', 'b/f', a, b);
      expect(diffHasChanges(d)).toBe(true);
      expect(applyPatch(a, d), JSON.stringify([a, b])).toBe(b);
    }
  });

  it(`scattered edits past ${MAX_DIFF_EDITS} fall back to the replacement and still apply`, () => {
    const before = numbered(3000);
    const after = before.replace(/0\n/g, '0;\n');
    const d = unifiedDiff('f', before, after);
    expect(applyPatch(before, d)).toBe(after);
  });
});

describe('diffForAgent', () => {
  it('keeps a short diff whole and cuts a long one at a line with a summary', () => {
    expect(diffForAgent('--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n')).toEqual({ text: '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n', cut: false });
    const d = unifiedDiff('big.txt', '', numbered(20_000), { created: true });
    const shown = diffForAgent(d);
    expect(shown.cut).toBe(true);
    expect(shown.text.length).toBeLessThan(8300);
    expect(shown.text).toMatch(/\n\[… diff cut for the answer: \d+ more lines; the whole change is \+20000 −0 lines in 1 hunk\./);
  });
});

describe('diffForAgent counts', () => {
  it('counts an added line that itself starts with "++" (it reads "+++" in the diff)', () => {
    const before = 'x\n'.repeat(3000);
    const after = '++ added\n' + before.replace(/x/g, 'y');
    const shown = diffForAgent(unifiedDiff('f', before, after), 100);
    expect(shown.text).toContain('+3001 −3000 lines in 1 hunk');
  });
});
