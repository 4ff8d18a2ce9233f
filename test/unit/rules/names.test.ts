import { describe, expect, it } from 'vitest';
import { familyOf, FORBIDDEN_CATEGORIES, judgeCommand, prepareArgv } from '../../../src/core/commands/rules';
import { runTable } from './table';

describe('familyOf', () => {
  it.each([
    ['/usr/bin/find', 'find'], ['gfind', 'find'], ['bfind', 'find'], ['gawk', 'awk'], ['mawk', 'awk'], ['nawk', 'awk'],
    ['gtar', 'tar'], ['bsdtar', 'tar'], ['/opt/homebrew/bin/gtar', 'tar'], ['gsort', 'sort'], ['gsed', 'sed'],
    ['git', 'git'], ['C:/Program Files/Git/bin/git.exe', 'git'], ['/usr/bin/FIND', 'find'], ['python3.12', 'python'],
    ['perl5.36', 'perl'], ['ruby3.1', 'ruby'], ['node22', 'node'], ['lua5.4', 'lua'], ['python3.12-dbg', 'python'],
  ])('maps %s to %s', (name, family) => {
    expect(familyOf(name)).toBe(family);
  });
  it('knows no family for ordinary programs', () => {
    expect(familyOf('ls')).toBeUndefined();
    expect(familyOf('/usr/bin/cat')).toBeUndefined();
  });
});

describe('never-runnable names', () => {
  runTable([
    ['a plain shell', ['sh', '-c', 'id'], 'forbidden.shell'],
    ['dash, which mcp-shell-server missed', ['dash', '-c', 'id'], 'forbidden.shell'],
    ['busybox used as a shell multiplexer', ['busybox', 'sh'], 'forbidden.shell'],
    ['busybox awk (busybox runs any applet)', ['busybox', 'awk', '{system("id")}'], 'forbidden.shell'],
    ['a shell given by absolute path', ['/bin/bash', '-c', 'id'], 'forbidden.shell'],
    ['a shell in upper case on a case-insensitive file system', ['/bin/BASH'], 'forbidden.shell'],
    ['a versioned shell name', ['bash5.2'], 'forbidden.shell'],
    ['a Windows shell with .exe', ['C:/Windows/System32/cmd.exe', '/c', 'dir'], 'forbidden.shell'],
    ['python -c', ['python', '-c', 'print(1)'], 'forbidden.interpreter'],
    ['a versioned python', ['python3.12', '-c', 'import os'], 'forbidden.interpreter'],
    ['a versioned perl (perl5.36)', ['perl5.36', '-e', 'system("id")'], 'forbidden.interpreter'],
    ['ruby3.1', ['ruby3.1', '-e', 'x'], 'forbidden.interpreter'],
    ['node22', ['node22', '-e', 'x'], 'forbidden.interpreter'],
    ['lua5.4', ['lua5.4', '-e', 'os.execute("id")'], 'forbidden.interpreter'],
    ['php', ['php', '-r', 'system("id");'], 'forbidden.interpreter'],
    ['deno even for --version', ['deno', '--version'], 'forbidden.interpreter'],
    ['bun even for --version', ['bun', '--version'], 'forbidden.interpreter'],
    ['osascript', ['osascript', '-e', 'do shell script "id"'], 'forbidden.interpreter'],
    ['pwsh', ['pwsh', '-c', 'x'], 'forbidden.interpreter'],
    ['env as a wrapper', ['env', 'sh', '-c', 'id'], 'forbidden.wrapper'],
    ['xargs as a wrapper', ['xargs', 'sh'], 'forbidden.wrapper'],
    ['timeout as a wrapper', ['timeout', '5', 'sh'], 'forbidden.wrapper'],
    ['nice/nohup/setsid/stdbuf', ['nohup', 'sh'], 'forbidden.wrapper'],
    ['setarch even without a command', ['setarch', '--list'], 'forbidden.wrapper'],
    ['strace -p attaching to a process', ['strace', '-p', '1'], 'forbidden.wrapper'],
    ['valgrind', ['valgrind', 'ls'], 'forbidden.wrapper'],
    ['sudo', ['sudo', 'id'], 'forbidden.wrapper'],
    ['time as a wrapper', ['/usr/bin/time', 'sh'], 'forbidden.wrapper'],
    ['npx fetching and running a package', ['npx', 'cowsay'], 'forbidden.wrapper'],
    ['less with its ! shell escape', ['less', 'README.md'], 'forbidden.shell-escape'],
    ['vim with :!', ['vim', 'x'], 'forbidden.shell-escape'],
    ['man (runs a pager)', ['man', 'ls'], 'forbidden.shell-escape'],
    ['ssh remote command execution', ['ssh', 'host', 'id'], 'forbidden.shell-escape'],
    ['a shell metacharacter in the command name', ['ls;id'], 'name.metacharacter'],
    ['white space in the command name', ['ls -la'], 'name.metacharacter'],
    ['a $() substitution in the command name', ['$(id)'], 'name.metacharacter'],
    ['a backquote in the command name', ['`id`'], 'name.metacharacter'],
    ['a newline in the command name', ['ls\nid'], 'name.control-character'],
    ['a NUL byte in the command name', ['ls\0id'], 'name.control-character'],
    ['an empty command name', [''], 'name.empty'],
    ['a NUL byte in an argument', ['ls', 'a\0b'], 'argv.nul'],
    ['a newline inside an option name', ['sort', '--out\nput=x'], 'argv.option-name-control-character'],
    ['ls', ['ls', '-la'], 'allow'],
    ['metacharacters in data arguments (there is no shell)', ['echo', '$(id); `id` | > <'], 'allow'],
    ['a newline in an option VALUE', ['grep', '-e', 'a\nb', 'f'], 'allow'],
    ['a path to a harmless program', ['/usr/bin/wc', '-l'], 'allow'],
  ]);

  it('lists every category the README promises', () => {
    expect(Object.keys(FORBIDDEN_CATEGORIES).sort()).toEqual(['interpreter', 'shell', 'shell-escape', 'wrapper']);
  });

  it('stops a malformed argv instead of throwing', () => {
    expect(judgeCommand([]).rule).toBe('argv.empty');
    expect(judgeCommand([1 as unknown as string]).rule).toBe('argv.type');
  });
});

describe('prepareArgv', () => {
  it('adds --sandbox in front of every sed argument, so no spelling can come before it', () => {
    expect(prepareArgv(['sed', '-n', 'p'])).toEqual(['sed', '--sandbox', '-n', 'p']);
    expect(prepareArgv(['/usr/bin/gsed', '--', 'p'])).toEqual(['/usr/bin/gsed', '--sandbox', '--', 'p']);
  });
  it('leaves every other argv as it is', () => {
    expect(prepareArgv(['sort', '-r'])).toEqual(['sort', '-r']);
  });
});
