import { describe, expect, it } from 'vitest';
import { checkAllowlist } from '../../../src/core/commands/allowlist';
import { parseCommand } from '../../../src/core/commands/parse';
import { judgeCommand } from '../../../src/core/commands/rules';
import { parsePolicy } from '../../../src/core/policy';

/**
 * mcp-shell-server 1.1.8's own validator vectors (tests/test_command_validator.py), restated as data: every
 * vector it rejects is rejected here (by the allowlist, the parser or the argument rules), and every one it
 * accepts is accepted.
 */

const DENIED: readonly (readonly string[])[] = [
  ['find', '.', '-exec', 'sh', '-c', 'id', ';'], ['sh', '-c', 'id'], ['bash', '-c', 'id'], ['python', '-c', 'print(1)'],
  ['python3', 'script.py'], ['awk', 'BEGIN { system("id") }'], ['awk', 'BEGIN { system\t("id") }'],
  ['awk', 'BEGIN { print "id" | "/bin/sh" }'], ['tar', '--checkpoint-action=exec=sh shell.sh'], ['tar', '-I/bin/sh', '-cf', 'x.tar', 'file'],
  ['tar', '--rsh-command=/bin/sh -c id', '-cf', 'host:/tmp/x', 'file'], ['xargs', 'sh'], ['env'],
  ['python2', '-c', 'print(1)'], ['python3.11', '-c', 'print(1)'], ['/usr/bin/python3.11', '-c', 'print(1)'],
  ['/usr/bin/find', '.', '-exec', 'sh', '-c', 'id', ';'], ['/bin/sh', '-c', 'id'], ['/bin/bash', '-c', 'id'], ['/usr/bin/python', '-c', 'print(1)'],
  ['/usr/bin/awk', 'BEGIN { system("id") }'], ['/usr/bin/awk', 'BEGIN { "id" | getline out; print out }'],
  ['/usr/bin/tar', '--checkpoint-action=exec=sh shell.sh'], ['/usr/bin/tar', '--checkpoint-action', 'exec=sh shell.sh'],
  ['/usr/bin/tar', '--to-command=sh shell.sh'], ['/usr/bin/tar', '--use-compress-program=sh shell.sh'], ['/usr/bin/tar', '-I/bin/sh'],
  ['/usr/bin/tar', '--rsh-command=/bin/sh -c id'], ['/usr/bin/xargs', 'sh'], ['/usr/bin/env'],
  ['git', '-c', 'core.fsmonitor=touch marker', 'status'], ['git', '-cdiff.external=touch marker', 'diff', '--ext-diff'],
  ['git', '-c', 'user.name=Example', 'status'], ['git', '-cAlias.pwn=!sh -c id', 'status'], ['git', '-c'], ['git', '-cuser.name=Example', 'status'],
  ['git', '--upload-pack=sh', 'fetch'], ['git', 'clone', '--u=sh', 'repo'], ['git', 'push', '--rece=sh', 'repo'],
  ['git', '--config-env=alias.pwn=PAYLOAD', 'pwn'], ['git', '--exec-path=/tmp', 'pwn'], ['git', 'clone', '-u', 'sh', 'repo'],
  ['git', 'clone', '-c', 'core.fsmonitor=touch marker', 'repo'], ['git', 'clone', '--config', 'core.fsmonitor=touch marker', 'repo'],
  ['git', 'clone', '--co', 'core.fsmonitor=touch marker', 'repo'], ['git', 'clone', '--co=core.fsmonitor=touch marker', 'repo'],
  ['git', 'clone', 'ext::sh -c id'], ['git', 'config', 'alias.pwn', '!sh -c id'], ['git', 'config', 'core.fsmonitor', 'sh -c id'],
  ['git', 'config', '--global', 'alias.pwn', '!sh -c id'], ['gfind', '.', '-exec', 'sh', '-c', 'id', ';'], ['gawk', 'BEGIN { system("id") }'],
  ['gtar', '--checkpoint-action=exec=sh shell.sh'], ['bsdtar', '--to-command=sh shell.sh'], ['timeout', '5', 'touch', '/tmp/marker'],
  ['nice', 'touch', '/tmp/marker'], ['nohup', 'touch', '/tmp/marker'], ['setsid', 'touch', '/tmp/marker'], ['stdbuf', '-o0', 'touch', '/tmp/marker'],
  ['flock', '/tmp/lock', 'touch', '/tmp/marker'], ['sed', '1e touch /tmp/marker', 'input'], ['sed', '-e', '1w /tmp/marker', 'input'],
  ['sed', '-e1r /etc/passwd', 'input'], ['sed', '-f', 'script.sed', 'input'], ['find', '.', '-fprintf', '/tmp/marker', 'pwned'],
  ['find', '.', '-fprint', '/tmp/marker'], ['find', '.', '-fprint0', '/tmp/marker'], ['find', '.', '-fls', '/tmp/marker'],
  ['awk', 'BEGIN { print "pwned" > "/tmp/marker" }'], ['awk', 'BEGIN { getline value < "/etc/passwd" }'], ['awk', '-f', 'script.awk'],
  ['awk', 'BEGIN{print "x" | "id"}'], ['awk', 'BEGIN { print "x" | "id" }'], ['awk', 'BEGIN { "id" | getline out; print out }'], ['gawk', 'BEGIN{print "x" | "id"}'],
];

/** Denied when the parser refuses it or the rules deny one of its stages (find's `;` is refused by the parser now). */
function denied(argv: readonly string[]): boolean {
  let stages: readonly (readonly string[])[];
  try {
    stages = parseCommand(argv).stages;
  } catch {
    return true;
  }
  return stages.some((s) => judgeCommand(s).kind === 'deny');
}

describe('mcp-shell-server\'s validator vectors', () => {
  it.each(DENIED.map((a) => [a]))('stops %j', (argv) => {
    expect(denied(argv)).toBe(true);
  });

  it.each([[['git', 'status']], [['git', 'commit', '-c', 'HEAD', '--dry-run']], [['allowed_cmd', '-arg']], [['ls']], [['echo']]])('keeps allowing %j', (argv) => {
    expect(denied(argv)).toBe(false);
  });

  it('refuses discrete ; && || (Unexpected shell operator) and keeps | as a pipeline', () => {
    for (const op of [';', '&&', '||']) expect(() => parseCommand(['echo', 'a', op, 'echo', 'b'])).toThrow(/shell operator/);
    expect(parseCommand(['ls', '|', 'grep', 'test']).stages).toHaveLength(2);
  });

  it('matches ALLOW_PATTERNS as a full match, anchored or not, and refuses unsafe patterns', () => {
    const p = parsePolicy({ root: '/tmp', allowCommands: ['allowed_cmd'], allowPatterns: ['^cmd[0-9]+$'] });
    expect(checkAllowlist('allowed_cmd', p).kind).toBe('allow');
    expect(checkAllowlist('cmd123', p).kind).toBe('allow');
    expect(checkAllowlist('disallowed_cmd', p).kind).toBe('deny');
    expect(checkAllowlist('cmdabc', p).kind).toBe('deny');
    const ls = parsePolicy({ root: '/tmp', allowPatterns: ['ls'] });
    expect(checkAllowlist('ls', ls).kind).toBe('allow');
    expect(checkAllowlist('lsof', ls).kind).toBe('deny');
    expect(judgeCommand(['ls;touch']).kind).toBe('deny');
    expect(judgeCommand(['ls -la']).kind).toBe('deny');
    expect(() => parsePolicy({ root: '/tmp', allowPatterns: ['ls;.*'] })).toThrow();
    expect(parsePolicy({ root: '/tmp', allowPatterns: ['(?:.*/)?python[0-9.]*'] }).allowPatterns).toHaveLength(1);
  });
});
