import { describe, expect, it } from 'vitest';
import { isKnownReadOnly } from '../../../src/core/commands/rules';

describe('isKnownReadOnly', () => {
  it.each([
    [['ls', '-la']], [['cat', 'a']], [['head', '-n', '5', 'a']], [['wc', '-l', 'a']], [['grep', '-rn', 'x', '.']],
    [['find', '.', '-name', '*.ts']], [['sort', '-r', 'a']], [['uniq', '-c', 'a']], [['uniq']], [['/usr/bin/stat', 'a']],
    [['git', 'status']], [['git', 'log', '--oneline']], [['git', '-C', 'sub', 'diff']], [['git', 'branch']],
    [['git', 'branch', '--list', 'feat/*']], [['git', 'branch', '-a', '-v']], [['git', 'tag', '-l']], [['git', 'rev-parse', 'HEAD']],
    [['git', 'config', '--get', 'user.name']], [['sed', '-n', '1,5p', 'a']], [['date', '+%s']], [['rg', 'x']], [['echo', 'hi']],
  ])('treats %j as read-only', (argv) => {
    expect(isKnownReadOnly(argv)).toBe(true);
  });

  it.each([
    [['rm', 'a'], 'rm deletes'],
    [['touch', 'a'], 'unknown programs are not read-only'],
    [['find', '.', '-delete'], 'find -delete'],
    [['find', '.', '-fprint', 'x'], 'find -fprint writes'],
    [['sort', '-o', 'x', 'a'], 'sort -o writes'],
    [['uniq', 'in', 'out'], 'uniq writes its 2nd operand'],
    [['uniq', '-f', '1', 'in', 'out'], 'uniq writes its 2nd operand after a value option'],
    [['git', 'commit', '-m', 'x'], 'git commit writes'],
    [['git', 'branch', 'new-branch'], 'git branch NAME creates a branch'],
    [['git', 'branch', '-D', 'x'], 'git branch -D deletes'],
    [['git', 'tag', 'v1'], 'git tag NAME creates a tag'],
    [['git', 'config', 'user.name', 'x'], 'git config writes'],
    [['git', 'diff', '--output=x'], 'git diff --output writes'],
    [['git', 'diff', '--ext-diff'], 'git diff --ext-diff runs a configured program'],
    [['sed', '-i', 's/a/b/', 'f'], 'sed -i edits files'],
    [['awk', '{print}'], 'awk is never listed'],
    [['tar', '-tf', 'a.tar'], 'tar is never listed'],
    [['date', '-s', '2020-01-01'], 'date -s sets the clock'],
    [['file', '-C', '-m', 'x'], 'file -C compiles a magic file'],
    [['rg', '--pre', 'sh', 'x'], 'rg --pre runs a program'],
    [['sh', '-c', 'ls'], 'shells are forbidden'],
    [[], 'an empty argv'],
  ])('does not treat %j as read-only (%s)', (argv) => {
    expect(isKnownReadOnly(argv as string[])).toBe(false);
  });
});
