import { describe, expect, it } from 'vitest';
import { isKnownReadOnly, judgeCommand, prepareArgv } from '../../../src/core/commands/rules';
import { findAwkHazard } from '../../../src/core/commands/rules/awkProgram';
import { namesToJudge } from '../../../src/core/commands/rules/judge';
import { runTable } from './table';

/** Issue 13's classes, table-driven in the spellings each program accepts. Real-program proofs: *.real.test.ts. */

describe('names that are not the real program', () => {
  runTable([
    ['the editor alternative', ['editor', 'x'], 'forbidden.shell-escape'],
    ['sensible-editor', ['sensible-editor', 'x'], 'forbidden.shell-escape'],
    ['a Debian vim variant (vim.basic)', ['vim.basic', '-c', ':!id'], 'forbidden.shell-escape'],
    ['vim.tiny by path', ['/usr/bin/vim.tiny'], 'forbidden.shell-escape'],
    ['sh.distrib', ['sh.distrib', '-c', 'id'], 'forbidden.shell'],
    ['the pager alternative', ['pager', 'x'], 'forbidden.shell-escape'],
    ['ld.so', ['ld.so', '/bin/sh'], 'forbidden.wrapper'],
    ['ld-linux-x86-64.so.2 by path', ['/lib64/ld-linux-x86-64.so.2', '/bin/sh'], 'forbidden.wrapper'],
    ['ld-linux-aarch64.so.1', ['/lib/ld-linux-aarch64.so.1', '/bin/sh'], 'forbidden.wrapper'],
    ['musl loader', ['/lib/ld-musl-x86_64.so.1', '/bin/sh'], 'forbidden.wrapper'],
    ['old glibc loader name', ['/lib/ld-2.31.so', '/bin/sh'], 'forbidden.wrapper'],
    ['/proc/self/exe (the server\'s node)', ['/proc/self/exe', '-e', 'x'], 'forbidden.process-image'],
    ['another process image', ['/proc/1234/exe'], 'forbidden.process-image'],
    ['an open descriptor', ['/proc/self/fd/7'], 'forbidden.process-image'],
    ['/dev/fd', ['/dev/fd/3'], 'forbidden.process-image'],
    ['a dotted /proc path', ['/./proc/self/exe'], 'forbidden.process-image'],
    ['run-parts', ['run-parts', '.'], 'forbidden.wrapper'],
    ['logsave', ['logsave', 'log', 'sh'], 'forbidden.wrapper'],
    ['dbus-run-session', ['dbus-run-session', '--', 'sh'], 'forbidden.wrapper'],
    ['uvx', ['uvx', 'pkg'], 'forbidden.wrapper'],
    ['m4 esyscmd', ['m4'], 'forbidden.interpreter'],
    ['tcc -run', ['tcc', '-run', 'x.c'], 'forbidden.interpreter'],
    ['java running a source file', ['java', 'Evil.java'], 'forbidden.interpreter'],
    ['qemu user-mode emulator', ['qemu-x86_64-static', '/bin/sh'], 'forbidden.wrapper'],
    ['run-mailcap (see/edit/print)', ['run-mailcap', '--action=view', 'x'], 'forbidden.wrapper'],
    ['gpg --photo-viewer', ['gpg', '--photo-viewer', 'sh -c id', '--list-keys'], 'forbidden.wrapper'],
  ]);

  it('judges every name: a harmless name that IS a shell (by path or realpath) is denied', () => {
    expect(judgeCommand(['listing', '-c', 'id'], { aliases: ['/usr/local/bin/listing', '/usr/bin/dash'] })).toMatchObject({ kind: 'deny', rule: 'forbidden.shell' });
    expect(judgeCommand(['my-edit'], { aliases: ['/usr/bin/my-edit', '/usr/bin/vim.basic'] })).toMatchObject({ kind: 'deny', rule: 'forbidden.shell-escape' });
    expect(judgeCommand(['sorter', '--use-compress-program=sh'], { aliases: ['/usr/bin/sorter', '/usr/bin/tar'] })).toMatchObject({ kind: 'deny', rule: 'tar.helper-option' });
  });

  it('judges a multi-call binary by the name it is started as (busybox as ls is ls)', () => {
    expect(namesToJudge('ls', ['/bin/ls', '/bin/busybox'])).toEqual(['ls', '/bin/ls']);
    expect(judgeCommand(['ls', '-la'], { aliases: ['/bin/ls', '/bin/busybox'] }).kind).toBe('allow');
    expect(judgeCommand(['sh'], { aliases: ['/bin/sh', '/bin/busybox'] }).kind).toBe('deny');
    expect(judgeCommand(['busybox', 'ls'], { aliases: ['/bin/busybox'] }).kind).toBe('deny');
  });

  it('judges git by its own name unless it was started by a dashed name (a link to git named ls acts as git)', () => {
    expect(namesToJudge('git-grep', ['/usr/lib/git-core/git-grep', '/usr/lib/git-core/git'])).toEqual(['git-grep', '/usr/lib/git-core/git-grep']);
    expect(judgeCommand(['ls', '-c', 'alias.x=!sh', 'x'], { aliases: ['/usr/bin/ls', '/usr/bin/git'] })).toMatchObject({ kind: 'deny', rule: 'git.config-override' });
  });
});

describe('git by other doors', () => {
  runTable([
    ['dashed git-grep -O', ['git-grep', '-O', 'x'], 'git.grep-pager'],
    ['git-core path git-rebase -x', ['/usr/lib/git-core/git-rebase', '-x', 'sh', 'main'], 'git.rebase-exec'],
    ['git-config write through the dashed program', ['git-config', 'alias.x', '!sh'], 'git.config-write'],
    ['dashed git-log --output', ['git-log', '--output=/tmp/x'], 'git.output-file'],
    ['a non-git helper in git-core', ['/usr/lib/git-core/scalar', 'run', 'all'], 'git.exec-path-program'],
    ['git remote-ext runs its argument', ['git', 'remote-ext', 'x', 'sh -c id'], 'git.remote-helper'],
    ['git remote-fd', ['git', 'remote-fd', 'x', '3'], 'git.remote-helper'],
    ['git-remote-ext dashed', ['git-remote-ext', 'x', 'sh'], 'git.remote-helper'],
    ['a fetch through a named helper (foo::addr)', ['git', 'fetch', 'foo::bar'], 'git.remote-helper'],
    ['clone through fd::', ['git', 'clone', 'fd::3', 'x'], 'git.remote-helper'],
    ['clone through ext:: anywhere', ['git', 'clone', '--origin=x', 'ext::sh -c id', 'y'], 'git.ext-url'],
    ['git init --template', ['git', 'init', '--template=/tmp/t'], 'git.clone-template'],
    ['git init --templ (abbreviation)', ['git', 'init', '--templ', '/tmp/t'], 'git.clone-template'],
    ['git init --t (prefix)', ['git', 'init', '--t=/tmp/t'], 'git.clone-template'],
    ['git init --separate-git-dir', ['git', 'init', '--separate-git-dir', '/tmp/g'], 'git.separate-git-dir'],
    ['git init --sep (abbreviation)', ['git', 'init', '--sep=/tmp/g'], 'git.separate-git-dir'],
    ['git clone --separate-git-dir', ['git', 'clone', '--separate-git-dir=/tmp/g', 'u', 'd'], 'git.separate-git-dir'],
    ['git clone --sep', ['git', 'clone', 'u', '--sep', '/tmp/g'], 'git.separate-git-dir'],
    ['git archive -o', ['git', 'archive', '-o', 'x.tar', 'HEAD'], 'git.output-file'],
    ['git archive -ox.tar attached', ['git', 'archive', '-ox.tar', 'HEAD'], 'git.output-file'],
    ['git archive -vo cluster', ['git', 'archive', '-vo', 'x.tar', 'HEAD'], 'git.output-file'],
    ['git archive --outp (abbreviation)', ['git', 'archive', '--outp=x.tar', 'HEAD'], 'git.output-file'],
    ['git format-patch -o', ['git', 'format-patch', '-o', '/tmp/p', '-1'], 'git.output-file'],
    ['git format-patch -ko cluster', ['git', 'format-patch', '-ko/tmp/p', '-1'], 'git.output-file'],
    ['git format-patch --output-directory', ['git', 'format-patch', '--output-directory=/tmp/p'], 'git.output-file'],
    ['git format-patch --output-d (abbreviation)', ['git', 'format-patch', '--output-d', '/tmp/p'], 'git.output-file'],
    ['git log --out (abbreviation of --output)', ['git', 'log', '--out=/tmp/x'], 'git.output-file'],
    ['git help (starts man/info/a browser)', ['git', 'help', 'log'], 'git.help-viewer'],
    ['git help -w', ['git', 'help', '-w', 'log'], 'git.help-viewer'],
    ['git --help CMD', ['git', '--help', 'log'], 'git.help-viewer'],
    ['git log --help', ['git', 'log', '--help'], 'git.help-viewer'],
    ['git grep --help (grep skips the generic checks)', ['git', 'grep', '--help'], 'git.help-viewer'],
    ['git rebase --help', ['git', 'rebase', '--help'], 'git.help-viewer'],
    ['git -C with = (unknown form)', ['git', '-C=x', 'status'], 'git.unknown-global-option'],
    ['git shell', ['git', 'shell', '-c', 'id'], 'git.tool-subcommand'],
    ['git daemon', ['git', 'daemon', '--export-all'], 'git.tool-subcommand'],
    ['git upload-pack', ['git', 'upload-pack', '.'], 'git.tool-subcommand'],
    ['git-receive-pack dashed', ['git-receive-pack', '.'], 'git.tool-subcommand'],
    ['git maintenance start (installs scheduled jobs)', ['git', 'maintenance', 'start'], 'git.maintenance-scheduler'],
    // kept
    ['git help -a (a list)', ['git', 'help', '-a'], 'allow'],
    ['git grep for a C++ name', ['git', 'grep', 'std::string'], 'allow'],
    ['git log for a path with ::', ['git', 'log', '--', 'a::b'], 'allow'],
    ['git log --oneline', ['git', 'log', '--oneline'], 'allow'],
    ['git format-patch --stdout', ['git', 'format-patch', '--stdout', '-1'], 'allow'],
    ['git archive --format=tar (to the server redirect)', ['git', 'archive', '--format=tar', 'HEAD'], 'allow'],
    ['git init', ['git', 'init', '-q', '-b', 'main'], 'allow'],
    ['git ls-files --others', ['git', 'ls-files', '--others'], 'allow'],
  ]);
});

describe('tar side files', () => {
  runTable([
    ['--index-file', ['tar', '-cvf', 'a.tar', '--index-file=/tmp/i', 'f'], 'tar.side-file'],
    ['--index-f separate', ['tar', '-cvf', 'a.tar', '--index-f', '/tmp/i', 'f'], 'tar.side-file'],
    ['--ind', ['tar', '-cvf', 'a.tar', '--ind=/tmp/i', 'f'], 'tar.side-file'],
    ['-g', ['tar', '-g', '/tmp/s', '-cf', 'a.tar', 'f'], 'tar.side-file'],
    ['-g in a cluster', ['tar', '-czg', '/tmp/s', '-f', 'a.tar', 'f'], 'tar.side-file'],
    ['-g attached', ['tar', '-cf', 'a.tar', '-g/tmp/s', 'f'], 'tar.side-file'],
    ['old-style cgf', ['tar', 'cgf', '/tmp/s', 'a.tar', 'f'], 'tar.side-file'],
    ['--listed-incremental', ['tar', '-cf', 'a.tar', '--listed-incremental=/tmp/s', 'f'], 'tar.side-file'],
    ['--listed', ['tar', '-cf', 'a.tar', '--listed', '/tmp/s', 'f'], 'tar.side-file'],
    ['--volno-file', ['tar', '-cf', 'a.tar', '--volno-file=/tmp/v', 'f'], 'tar.side-file'],
    ['--vol', ['tar', '-cf', 'a.tar', '--vol=/tmp/v', 'f'], 'tar.side-file'],
    ['after operands', ['tar', '-cf', 'a.tar', 'f', '--index-file', '/tmp/i'], 'tar.side-file'],
    ['bsdtar -W index-file', ['bsdtar', '-cf', 'a.tar', '-W', 'index-file=/tmp/i', 'f'], 'tar.side-file'],
    ['--list (exact) is not --listed-incremental', ['tar', '--list', '-f', 'a.tar'], 'allow'],
    ['--incremental (-G) writes no side file', ['tar', '-tGf', 'a.tar'], 'allow'],
    ['-f value that looks like -g', ['tar', '-cf', '-g', 'f'], 'allow'],
  ]);
});

describe('zip', () => {
  runTable([
    ['-T', ['zip', '-T', 'x.zip', 'f'], 'zip.test-command'],
    ['-TT cmd', ['zip', '-TT', 'sh', 'x.zip', 'f'], 'zip.test-command'],
    ['-TT=cmd', ['zip', '-TT=sh', 'x.zip', 'f'], 'zip.test-command'],
    ['cluster -qT', ['zip', '-qT', 'x.zip', 'f'], 'zip.test-command'],
    ['--unzip-command', ['zip', '--unzip-command=sh', 'x.zip', 'f'], 'zip.test-command'],
    ['--unz (abbreviation)', ['zip', '--unz', 'sh', 'x.zip', 'f'], 'zip.test-command'],
    ['--test', ['zip', '--test', 'x.zip', 'f'], 'zip.test-command'],
    ['--te (ambiguous)', ['zip', '--te', 'x.zip', 'f'], 'zip.test-command'],
    ['zip -r', ['zip', '-r', 'x.zip', '.'], 'allow'],
  ]);
});

describe('wget', () => {
  runTable([
    ['--use-askpass', ['wget', '--use-askpass=sh', 'u'], 'wget.helper-option'],
    ['--use (abbreviation)', ['wget', '--use', 'sh', 'u'], 'wget.helper-option'],
    ['-e use_askpass', ['wget', '-e', 'use_askpass=sh', 'u'], 'wget.helper-option'],
    ['-qe cluster', ['wget', '-qe', 'use_askpass=sh', 'u'], 'wget.helper-option'],
    ['--execute after the URL', ['wget', 'u', '--execute=use_askpass=sh'], 'wget.helper-option'],
    ['--config', ['wget', '--config=rc', 'u'], 'wget.helper-option'],
    ['wget2 alias', ['wget2', '--use-askpass=sh', 'u'], 'wget.helper-option'],
    ['wget -q -O -', ['wget', '-q', '-O', '-', 'http://127.0.0.1/'], 'allow'],
    ['a URL after --', ['wget', '--', '-e'], 'allow'],
  ]);
});

describe('compiler drivers', () => {
  runTable([
    ['-wrapper', ['gcc', '-wrapper', 'sh,-c,id', 't.c'], 'cc.helper-option'],
    ['-B attached', ['cc', '-B/tmp/x/', 't.c'], 'cc.helper-option'],
    ['-fplugin', ['g++', '-fplugin=./p.so', 't.cc'], 'cc.helper-option'],
    ['-specs', ['gcc', '-specs=evil.specs', 't.c'], 'cc.helper-option'],
    ['--specs', ['gcc', '--specs', 'evil.specs', 't.c'], 'cc.helper-option'],
    ['clang -Xclang -load', ['clang', '-Xclang', '-load', '-Xclang', './p.so', 't.c'], 'cc.forwarded-option'],
    ['clang --config', ['clang-17', '--config=evil.cfg', 't.c'], 'cc.helper-option'],
    ['-fuse-ld=PATH', ['gcc', '-fuse-ld=/tmp/ld', 't.c'], 'cc.helper-option'],
    ['--ld-path', ['clang', '--ld-path=/tmp/ld', 't.c'], 'cc.helper-option'],
    ['a linker plugin through -Wl', ['gcc', '-Wl,-plugin,./p.so', 't.c'], 'cc.forwarded-option'],
    ['a linker plugin through -Xlinker', ['gcc', '-Xlinker', '--plugin', 't.c'], 'cc.forwarded-option'],
    ['a response file', ['x86_64-linux-gnu-gcc-12', '@opts', 't.c'], 'cc.forwarded-option'],
    ['ccache running a command', ['ccache', 'sh', '-c', 'id'], 'forbidden.wrapper'],
    ['an ordinary build', ['gcc', '-O2', '-Wall', '-fuse-ld=gold', '-Wl,--as-needed', '-o', 'app', 'a.c'], 'allow'],
  ]);
});

describe('openssl', () => {
  runTable([
    ['-engine PATH', ['openssl', 'dgst', '-engine', './e.so', 'f'], 'openssl.load-module'],
    ['--engine=PATH', ['openssl', 'req', '--engine=./e.so'], 'openssl.load-module'],
    ['-keygen_engine', ['openssl', 'req', '-keygen_engine', 'x'], 'openssl.load-module'],
    ['-provider-path', ['openssl', 'list', '-provider-path', '.', '-provider', 'x'], 'openssl.load-module'],
    ['-config FILE', ['openssl', 'req', '-config', 'evil.cnf'], 'openssl.load-module'],
    ['openssl dgst -sha256', ['openssl', 'dgst', '-sha256', 'f'], 'allow'],
    ['openssl rand -hex 16', ['openssl', 'rand', '-hex', '16'], 'allow'],
  ]);
});

describe('awk read by every dialect', () => {
  it.each([
    ['case as a division (mawk, BWK, gawk --posix)', '{ x = case / 1; "id" | getline; y = 1 / 1 }'],
    ['length as a regex start (mawk)', '{ x = length / "/ ; "id" | getline y; # " \n}'],
    ['postfix ++ then a regex (mawk)', '{ x++ / "/ ; "id" | getline y; # " \n}'],
    ['a regex after the ) of an if condition (gawk, BWK)', 'BEGIN { if (1) /"/ ; "id" | getline x; #"/ \n}'],
    ['a regex after the ) of a while condition', 'BEGIN { while (x) /"/ ; print > "f"; #"/ \n}'],
    ['exit then a regex (every awk)', '{ if (0) exit / "/ ; "id" | getline y; # " \n}'],
    ['getline < FILE', 'BEGIN { getline line < "/etc/passwd"; print line }'],
    ['getline var < FILE in a condition', 'BEGIN { while ((getline l < "f") > 0) print l }'],
  ])('finds the hazard: %s', (_what, program) => {
    expect(findAwkHazard(program)).toBeDefined();
    expect(judgeCommand(['awk', program]).kind).toBe('deny');
  });

  it.each([
    ['(getline line) > 0', 'BEGIN { while ((getline line) > 0) n++; print n }'],
    ['length < 3', '{ if (length < 3) print }'],
    ['$1 / 2 / 4', '{ print $1 / 2 / 4 }'],
    ['case inside a string', '{ print "case / x |" }'],
    ['a < b comparison', '{ if ($1 < $2) print }'],
    ['a division after an ordinary parenthesis', '{ x = (a) / 2; y = (b) / 3 }'],
    ['a condition then a statement', '{ if (NR > 1) print $1 / 2 }'],
  ])('keeps allowing %s', (_what, program) => {
    expect(findAwkHazard(program)).toBeUndefined();
  });
});

describe('read-only table: the same option grammars as the deny rules', () => {
  it.each([
    [['date', '--s=2020-01-01'], 'date --s abbreviates --set'],
    [['date', '--se', '2020-01-01'], 'date --se'],
    [['date', '-us', '2020-01-01'], 'date -s in a cluster'],
    [['date', '010203042020'], 'a date operand sets the clock'],
    [['hostname', '--fi=/tmp/h'], 'hostname --fi abbreviates --file'],
    [['hostname', '--f', '/tmp/h'], 'hostname --f is ambiguous with --file'],
    [['hostname', '-bF', '/tmp/h'], 'hostname -b / -F in a cluster'],
    [['hostname', 'newname'], 'an operand sets the name'],
    [['file', '--comp', '-m', 'x'], 'file --comp abbreviates --compile'],
    [['file', '-zC', '-m', 'x'], 'file -C in a cluster'],
    [['file', '--preserve', 'x'], 'file --preserve(-date) writes access times'],
    [['tree', '-aR'], 'tree -R re-runs itself writing files'],
    [['tree', '-ao', 'out.txt'], 'tree -o in a cluster'],
    [['rg', '--hostname-bin=sh', 'x'], 'rg --hostname-bin runs a program'],
    [['git', 'log', '--textc'], 'git --textconv abbreviation'],
    [['git', 'tag', '-v', 'v1'], 'git tag -v runs gpg'],
    [['git-log'], 'dashed git programs are never read-only'],
  ])('does not treat %j as read-only (%s)', (argv) => {
    expect(isKnownReadOnly(argv)).toBe(false);
  });

  it.each([
    [['date', '-u', '+%s']], [['date', '-d', '-s', '+%F']], [['date', '--date=yesterday']], [['hostname', '-f']], [['hostname', '--fqdn']],
    [['file', '-b', '--mime-type', 'x']], [['tree', '-L', '2']], [['git', 'tag', '-n5', '-l']],
  ])('treats %j as read-only', (argv) => {
    expect(isKnownReadOnly(argv)).toBe(true);
  });

  it('needs every name to be read-only: `cat` that is really a tar is not', () => {
    expect(isKnownReadOnly(['cat', 'x'], { aliases: ['/usr/bin/cat', '/usr/bin/tar'] })).toBe(false);
    expect(isKnownReadOnly(['which', 'ls'], { aliases: ['/usr/bin/which', '/usr/bin/which.debianutils'] })).toBe(true);
  });

  it('prepares read-only git with configuration-driven programs off (before the caller\'s options)', () => {
    const argv = prepareArgv(['git', '-C', 'sub', 'log', '-p'], { gitReadOnly: { filterDrivers: ['lfs'] } });
    expect(argv.slice(0, 2)).toEqual(['git', '--no-optional-locks']);
    expect(argv).toEqual(expect.arrayContaining(['core.fsmonitor=false', 'core.hooksPath=/dev/null', 'filter.lfs.clean=', 'filter.lfs.process=']));
    expect(argv.slice(-6)).toEqual(['-C', 'sub', 'log', '--no-ext-diff', '--no-textconv', '-p']);
    expect(prepareArgv(['git', 'log'])).toEqual(['git', 'log']); // not read-only: untouched
  });
});
