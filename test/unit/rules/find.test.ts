import { describe } from 'vitest';
import { runTable } from './table';

describe('find rule', () => {
  runTable([
    ['find -exec running a shell', ['find', '.', '-exec', 'sh', '-c', 'id', ';'], 'find.exec'],
    ['find -execdir', ['find', '.', '-execdir', 'id', ';'], 'find.exec'],
    ['find -ok', ['find', '.', '-ok', 'rm', '{}', ';'], 'find.exec'],
    ['find -okdir', ['find', '.', '-okdir', 'rm', '{}', ';'], 'find.exec'],
    ['find -delete', ['find', '.', '-name', '*.tmp', '-delete'], 'find.delete'],
    ['find -fprint writing a file anywhere', ['find', '.', '-fprint', '/tmp/out'], 'find.file-write'],
    ['find -fprint0', ['find', '.', '-fprint0', 'out'], 'find.file-write'],
    ['find -fprintf', ['find', '.', '-fprintf', 'out', '%p'], 'find.file-write'],
    ['find -fls', ['find', '.', '-fls', 'out'], 'find.file-write'],
    ['gfind -exec (GNU alias)', ['gfind', '.', '-exec', 'id', ';'], 'find.exec'],
    ['bfind -exec (alias)', ['bfind', '.', '-exec', 'id', ';'], 'find.exec'],
    ['/usr/bin/find -exec (path)', ['/usr/bin/find', '.', '-exec', 'id', ';'], 'find.exec'],
    ['-exec inside parentheses', ['find', '.', '(', '-name', 'x', '-o', '-exec', 'id', ';', ')'], 'find.exec'],
    ['-exec after a negation', ['find', '.', '!', '-exec', 'id', ';'], 'find.exec'],
    ['-exec right after the -D debug option value', ['find', '-D', 'stat', '.', '-exec', 'id', ';'], 'find.exec'],
    ['-exec after a -newerXY value', ['find', '.', '-newermt', '2020-01-01', '-exec', 'id', ';'], 'find.exec'],
    ['-exec after a BSD-only one-argument primary (read conservatively)', ['find', '.', '-flags', '-exec', 'id', ';'], 'find.exec'],
    ['listing files', ['find', '.', '-name', '*.ts', '-type', 'f'], 'allow'],
    ['a file called "-delete" (value of -name is data)', ['find', '.', '-name', '-delete'], 'allow'],
    ['a path pattern "-exec" (value of -path is data)', ['find', '.', '-path', '-exec'], 'allow'],
    ['-print0 and -printf to standard output', ['find', '.', '-print0', '-printf', '%p\n'], 'allow'],
    ['-maxdepth and -mtime', ['find', 'src', '-maxdepth', '2', '-mtime', '-1'], 'allow'],
  ]);
});
