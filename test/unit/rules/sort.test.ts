import { describe } from 'vitest';
import { runTable } from './table';

describe('sort rule', () => {
  runTable([
    ['--compress-program', ['sort', '--compress-program=sh', 'x'], 'sort.helper-option'],
    ['--co abbreviation of --compress-program', ['sort', '--co', 'sh', 'x'], 'sort.helper-option'],
    ['--c abbreviation (ambiguous with --check)', ['sort', '--c=sh', 'x'], 'sort.helper-option'],
    ['-o', ['sort', '-o', '/tmp/out', 'x'], 'sort.output-file'],
    ['-o attached', ['sort', '-o/tmp/out', 'x'], 'sort.output-file'],
    ['-ro FILE cluster', ['sort', '-ro', 'out', 'x'], 'sort.output-file'],
    ['--output', ['sort', '--output=out', 'x'], 'sort.output-file'],
    ['--o abbreviation', ['sort', '--o', 'out', 'x'], 'sort.output-file'],
    ['--outp abbreviation', ['sort', '--outp=out', 'x'], 'sort.output-file'],
    ['-o after operands (GNU sort permutes)', ['sort', 'x', '-o', 'out'], 'sort.output-file'],
    ['--files0-from', ['sort', '--files0-from=list'], 'sort.file-list'],
    ['--f abbreviation (could mean --files0-from)', ['sort', '--f', 'list'], 'sort.file-list'],
    ['-T', ['sort', '-T', '/tmp', 'x'], 'sort.temp-dir'],
    ['-rT DIR cluster', ['sort', '-rT', '/tmp', 'x'], 'sort.temp-dir'],
    ['--temporary-directory', ['sort', '--temporary-directory=/tmp', 'x'], 'sort.temp-dir'],
    ['--t abbreviation of --temporary-directory', ['sort', '--t=/tmp', 'x'], 'sort.temp-dir'],
    ['-o after a key value', ['sort', '-k', '1', '-o', 'out'], 'sort.output-file'],
    ['gsort alias', ['gsort', '-o', 'out', 'x'], 'sort.output-file'],
    ['an option-like file name after --', ['sort', '--', '--output=data'], 'allow'],
    ['-t o: the separator is "o"', ['sort', '-t', 'o', 'x'], 'allow'],
    ['-to attached separator "o"', ['sort', '-to', 'x'], 'allow'],
    ['-k value "o"', ['sort', '-ko', 'x'], 'allow'],
    ['-S value', ['sort', '-S', '-o', 'x'], 'allow'],
    ['ordinary numeric reverse sort', ['sort', '-rn', '-k', '2,2', 'x'], 'allow'],
    ['--check (exact, not --compress-program)', ['sort', '--check', 'x'], 'allow'],
    ['--debug and --unique', ['sort', '--debug', '--unique', 'x'], 'allow'],
  ]);
});
