import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/core/approval';
import { describeApproval, DIFF_PREVIEW_LINES } from '../../../src/shared/approvalText';

const base = { id: '1', tool: 'shell_execute', rule: 'mode.confirm', reason: 'confirm mode asks before every command', key: 'k' };

describe('the approval dialog text', () => {
  it('stops an argument with spaces or quotes from passing as two harmless-looking words (each argv element JSON-quoted)', () => {
    const r: ApprovalRequest = { ...base, command: { stages: [['rm', '-f', 'a b', 'x"; rm -rf ~ #']], cwd: '.', isolation: 'none' } };
    const { message, detail } = describeApproval(r, 'proj');
    expect(message).toBe('Guarded Shell (proj): allow shell_execute?');
    expect(detail).toContain('Command: "rm" "-f" "a b" "x\\"; rm -rf ~ #"');
    expect(detail).toContain('In: proj (workspace root)');
    expect(detail).toContain('Isolation: none (runs with your permissions)');
    expect(detail).toContain('Why asked: confirm mode asks before every command');
  });

  it('shows a hidden output redirect and the pipeline stages', () => {
    const r: ApprovalRequest = {
      ...base,
      command: { stages: [['cat', 'a'], ['sort']], cwd: 'src', isolation: 'bwrap', stdinFile: 'in.txt', stdoutFile: { path: 'package.json', append: false } },
    };
    const { detail } = describeApproval(r, 'proj');
    expect(detail).toContain('Command: "cat" "a" | "sort"');
    expect(detail).toContain('In: src');
    expect(detail).toContain('stdin from: in.txt');
    expect(detail).toContain('stdout written to (replacing it): package.json');
  });

  it('shows a change\'s files and the first lines of its diff, and says how much is left out', () => {
    const diff = ['--- a/f', '+++ b/f', ...Array.from({ length: 50 }, (_, i) => `+line ${i}`)].join('\n');
    const r: ApprovalRequest = { ...base, tool: 'writeFile', change: { kind: 'write', files: ['f'], diff } };
    const { detail } = describeApproval(r, 'proj');
    expect(detail).toContain('Change (write): f');
    expect(detail).toContain('+line 0');
    expect(detail).not.toContain(`+line ${DIFF_PREVIEW_LINES}`);
    expect(detail).toContain(`… ${52 - DIFF_PREVIEW_LINES} more diff line(s)`);
  });

  it('asks to apply a previewed command\'s effect: the command (already run), how it ended, its files, diff and limits', () => {
    const r: ApprovalRequest = {
      ...base, rule: 'effect.preview',
      effect: {
        requestId: 'r', stages: [['sh', '-c', 'x > y']], cwd: '.', outcome: 'failed', exitCode: 2, stdout: '', stderr: '',
        files: [{ path: 'y', change: 'created' }, { path: '.git/hooks', change: 'not applied', detail: 'hooks' }], more: 0,
        diff: '--- /dev/null\n+++ b/y\n@@ -0,0 +1,1 @@\n+x\n', limits: 'The preview does not show the network.',
      },
    };
    const { message, detail } = describeApproval(r, 'proj');
    expect(message).toBe('Guarded Shell (proj): apply the changes of shell_execute?');
    expect(detail).toContain('Command (already run against a copy-on-write view): "sh" "-c" "x > y"');
    expect(detail).toContain('It ended: failed, exit status 2');
    expect(detail).toContain('  created: y');
    expect(detail).toContain('  not applied: .git/hooks (hooks)');
    expect(detail).toContain('+x');
    expect(detail).toContain('The preview does not show the network.');
  });
});
