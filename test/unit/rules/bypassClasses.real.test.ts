import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isKnownReadOnly, judgeCommand } from '../../../src/core/commands/rules';
import { requires } from '../../helpers/needs';
import { judgeResolved } from './judgeResolved';
import { resolveProgram } from '../../../src/core/commands/resolve';


requires('gawk', 'rule-programs');
/**
 * Issue 13's bypass classes against the REAL programs on this machine: each case first proves the program
 * really runs the helper (so the denial is needed, not hypothetical), then that the rule denies it — judged by
 * the name AND by what the name resolves to (resolveProgram: PATH lookup + realpath), as decide does.
 * Needs: mawk, gawk, original-awk (BWK), GNU tar, zip, run-parts, logsave, the dynamic loader.
 * A program missing here skips the file with one summary line (a failure under GUARDED_SHELL_STRICT=1).
 */

let dir = '';
let marker = '';
const helper = () => path.join(dir, 'helper.sh');
const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-bypass-')));
  marker = path.join(dir, 'marker');
  fs.writeFileSync(helper(), `#!/bin/sh\necho ran >> '${marker}'\ncat >/dev/null 2>&1\nexit 0\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'file.txt'), 'b\na\n');
  fs.mkdirSync(path.join(dir, 'parts'));
  fs.copyFileSync(helper(), path.join(dir, 'parts', 'helper'));
  fs.chmodSync(path.join(dir, 'parts', 'helper'), 0o755);
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(argv: readonly string[], input = ''): ReturnType<typeof spawnSync> {
  return spawnSync(argv[0]!, argv.slice(1), { cwd: dir, input, timeout: 20_000, env: { PATH, HOME: dir } });
}

/** Runs the argv for real and reports whether the helper ran (or the marker was written). */
function helperRan(argv: readonly string[], input = 'x\n'): boolean {
  fs.rmSync(marker, { force: true });
  run(argv, input);
  return fs.existsSync(marker);
}

/** Judges as decide does: by the name and by the file the PATH lookup finds. */
const judgeReal = (argv: readonly string[]) => judgeResolved(argv, { pathEnv: PATH, cwd: dir });

const fill = (argv: readonly string[]) => argv.map((a) => a.replaceAll('HELPER', helper()).replaceAll('MARKER', marker).replaceAll('DIR', dir));

describe('awk as each installed awk runs it: the hidden command runs, and the rule denies it', () => {
  const programs: [title: string, awk: string[], program: string, rule: string][] = [
    ['mawk reads `length / "…` as a regex, so a pipe after it runs', ['mawk'], '{ x = length / "/ ; "HELPER" | getline y; # " \n}', 'awk.pipe'],
    ['mawk reads `case / 1` as a division (case is a variable)', ['mawk'], '{ case = 2; x = case / 1; "HELPER" | getline z; y = 1 / 1 }', 'awk.pipe'],
    ['gawk --posix reads `case / 1` as a division', ['gawk', '--posix'], '{ case = 2; x = case / 1; "HELPER" | getline z; y = 1 / 1 }', 'awk.pipe'],
    ['gawk --traditional reads `case / 1` as a division', ['gawk', '--traditional'], '{ case = 2; x = case / 1; "HELPER" | getline z; y = 1 / 1 }', 'awk.pipe'],
    ['BWK awk reads `case / 1` as a division', ['original-awk'], '{ case = 2; x = case / 1; "HELPER" | getline z; y = 1 / 1 }', 'awk.pipe'],
    ['mawk reads a regex after a postfix ++', ['mawk'], 'function f(a) { if (0) x++ / "/ ; "HELPER" | getline q ; #" \n ; return 1 } { f(1) }', 'awk.pipe'],
    ['gawk reads a regex after the ) of an if condition', ['gawk'], 'BEGIN { if (1) /"/ ; "HELPER" | getline x; #"/ \n}', 'awk.pipe'],
    ['BWK awk reads a regex after the ) of a while condition', ['original-awk'], 'BEGIN { while (n++ < 1) /"/ ; "HELPER" | getline x; #"/ \n}', 'awk.pipe'],
    ['gawk --posix reads a regex after the ) of a for header', ['gawk', '--posix'], 'BEGIN { for (i = 0; i < 1; i++) /"/ ; "HELPER" | getline x; #"/ \n}', 'awk.pipe'],
    ['every awk reads a regex after exit', ['mawk'], 'function f(a) { if (0) exit / "/ ; "HELPER" | getline q ; #" \n ; return 1 } { f(1) }', 'awk.pipe'],
  ];
  for (const [title, awk, program, rule] of programs) {
    it(`stops ${title}`, () => {
      const argv = [...awk, fill([program])[0]!];
      expect(helperRan(argv)).toBe(true);
      const v = judgeReal(argv);
      expect(v.kind).toBe('deny');
      expect(v.rule).toBe(rule);
    });
  }

  it.each(['mawk', 'gawk', 'original-awk'])('stops getline < FILE (%s reads a file of its choosing)', (awk) => {
    fs.writeFileSync(path.join(dir, 'secret'), 'SECRET\n');
    const r = run([awk, `BEGIN { while ((getline line < "${path.join(dir, 'secret')}") > 0) print line }`]);
    expect(String(r.stdout)).toBe('SECRET\n');
    expect(judgeReal([awk, 'BEGIN { while ((getline line < "secret") > 0) print line }'])).toMatchObject({ kind: 'deny', rule: 'awk.redirect' });
  });

  it.each(['mawk', 'gawk', 'original-awk'])('keeps allowing ordinary programs in %s (comparison after getline, length < n, a/b/c)', (awk) => {
    for (const program of ['{ if (length < 3) print }', 'BEGIN { while ((getline line) > 0) n++; if (n < 3) print n }', '{ print $1 / 2 / 4 }', '/a|b/ { print }']) {
      const r = run([awk, program], 'ab\n');
      expect(r.status).toBe(0);
      expect(judgeReal([awk, program]).kind).toBe('allow');
    }
  });
});

describe('names that are not the real program', () => {
  it('stops the dynamic loader running a shell: ld.so and its real file name', () => {
    const ldso = resolveProgram('ld.so', { pathEnv: PATH, cwd: dir });
    const loaders = ['/lib64/ld-linux-x86-64.so.2', '/lib/ld-linux-aarch64.so.1', '/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2'].filter((p) => fs.existsSync(p));
    expect(loaders.length).toBeGreaterThan(0);
    expect(helperRan([loaders[0]!, '/bin/sh', helper()])).toBe(true);
    for (const l of loaders) expect(judgeReal([l, '/bin/sh', '-c', 'id'])).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN' });
    if (!('notFound' in ldso)) expect(judgeReal(['ld.so', '/bin/sh'])).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN' });
  });

  it('stops /proc/self/exe (here: node itself) and any /proc/*/exe or fd path', () => {
    const r = spawnSync('/proc/self/exe', ['-e', 'process.stdout.write("node ran")'], { encoding: 'utf8' });
    expect(r.stdout).toBe('node ran');
    for (const p of ['/proc/self/exe', `/proc/${process.pid}/exe`, '/proc/thread-self/exe', '/proc/self/fd/3', '/dev/fd/3', '/proc/1/root/bin/sh', '//proc/self/exe']) {
      expect(judgeCommand([p, '-e', 'x'])).toMatchObject({ kind: 'deny', rule: 'forbidden.process-image' });
    }
  });

  it('stops run-parts, which runs every program in a folder', () => {
    expect(helperRan(['run-parts', path.join(dir, 'parts')])).toBe(true);
    expect(judgeReal(['run-parts', 'parts'])).toMatchObject({ kind: 'deny', rule: 'forbidden.wrapper' });
  });

  it('stops logsave, which runs the command after its log file', () => {
    expect(helperRan(['logsave', path.join(dir, 'log'), helper()])).toBe(true);
    expect(judgeReal(['logsave', 'log', 'x'])).toMatchObject({ kind: 'deny', rule: 'forbidden.wrapper' });
  });

  it('stops dbus-run-session, which runs the command it is given', () => {
    expect(helperRan(['dbus-run-session', '--', helper()])).toBe(true);
    expect(judgeReal(['dbus-run-session', '--', 'x'])).toMatchObject({ kind: 'deny', rule: 'forbidden.wrapper' });
  });

  it('stops editor / sensible-editor / vim.basic by name and by what they resolve to', () => {
    for (const name of ['editor', 'sensible-editor', 'vim.basic', 'vim.tiny', 'select-editor', 'pager']) {
      expect(judgeCommand([name])).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN' });
    }
    const editor = resolveProgram('editor', { pathEnv: PATH, cwd: dir });
    if (!('notFound' in editor)) {
      // Whatever the alternatives link points at (vim.basic, nano …), the file is judged too.
      expect(judgeCommand(['my-edit'], { aliases: [editor.path, editor.real] })).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN' });
    }
  });

  it('stops a harmless-looking name that is a link to a shell (judged by the file it resolves to)', () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.symlinkSync('/bin/sh', path.join(bin, 'listing'));
    const r = resolveProgram('listing', { pathEnv: bin, cwd: dir });
    expect('notFound' in r).toBe(false);
    if ('notFound' in r) return;
    expect(judgeCommand(['listing', '-c', 'id'])).toMatchObject({ kind: 'allow' }); // the name alone says nothing
    expect(judgeCommand(['listing', '-c', 'id'], { aliases: [r.path, r.real] })).toMatchObject({ kind: 'deny', code: 'COMMAND_FORBIDDEN' });
  });
});

describe('zip -T/-TT/--unzip-command in every spelling the real zip accepts', () => {
  const spellings = [['-T', '-TT', 'HELPER'], ['-T', '-TT=HELPER'], ['-T', '--unzip-command', 'HELPER'], ['-T', '--unz', 'HELPER'], ['-T', '--unzip-c=HELPER'], ['--test', '--unzip-command=HELPER'], ['-qT', '-TT', 'HELPER'], ['-Tq', '-TT', 'HELPER']];
  for (const s of spellings) {
    it(`stops zip ${s.join(' ')}`, () => {
      fs.rmSync(path.join(dir, 'x.zip'), { force: true });
      const argv = ['zip', ...fill(s), 'x.zip', 'file.txt'];
      expect(helperRan(argv)).toBe(true);
      expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule: 'zip.test-command' });
    });
  }
  it('keeps allowing zip -r -q', () => {
    expect(judgeReal(['zip', '-rq', 'y.zip', '.'])).toMatchObject({ kind: 'allow' });
  });
});

describe('wget helper programs (the real wget runs them before it even connects)', () => {
  for (const s of [['--use-askpass=HELPER'], ['--use-a=HELPER'], ['-e', 'use_askpass=HELPER'], ['-qe', 'use_askpass=HELPER'], ['--execute', 'use_askpass=HELPER']]) {
    it(`stops wget ${s.join(' ')}`, () => {
      const argv = ['wget', '-q', ...fill(s), '--user=u', '--tries=1', 'http://127.0.0.1:1/'];
      expect(helperRan(argv)).toBe(true);
      expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule: 'wget.helper-option' });
    });
  }
  it('keeps allowing wget -q -O - URL', () => {
    expect(judgeReal(['wget', '-q', '-O', '-', 'http://127.0.0.1:1/'])).toMatchObject({ kind: 'allow' });
  });
});

describe('compiler drivers start the programs they are told to (the real gcc)', () => {
  it('stops gcc -wrapper CMD (runs CMD in front of cc1, as, ld)', () => {
    fs.writeFileSync(path.join(dir, 't.c'), 'int main(void){return 0;}\n');
    const argv = ['gcc', '-wrapper', helper(), 't.c', '-o', 't.out'];
    expect(helperRan(argv)).toBe(true);
    expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule: 'cc.helper-option' });
  });
  it('stops gcc -B DIR (runs DIR/as), attached and separate', () => {
    fs.writeFileSync(path.join(dir, 't.c'), 'int main(void){return 0;}\n');
    fs.mkdirSync(path.join(dir, 'bdir'), { recursive: true });
    fs.copyFileSync(helper(), path.join(dir, 'bdir', 'as'));
    fs.chmodSync(path.join(dir, 'bdir', 'as'), 0o755);
    expect(helperRan(['gcc', `-B${path.join(dir, 'bdir')}/`, '-c', 't.c', '-o', 't.o'])).toBe(true);
    expect(judgeReal(['gcc', '-Bbdir/', '-c', 't.c'])).toMatchObject({ kind: 'deny', rule: 'cc.helper-option' });
    expect(judgeReal(['cc', '-B', 'bdir/', '-c', 't.c'])).toMatchObject({ kind: 'deny', rule: 'cc.helper-option' });
  });
  it('keeps allowing an ordinary compile', () => {
    expect(judgeReal(['gcc', '-O2', '-Wall', '-c', 't.c', '-o', 't.o'])).toMatchObject({ kind: 'allow' });
  });
});

describe('openssl and curl load shared objects they are told to (the real programs run the constructor)', () => {
  /** A shared object whose constructor writes the marker: loading it is running code. */
  function buildEvilSo(): void {
    fs.writeFileSync(path.join(dir, 'evil.c'), `#include <stdio.h>\n__attribute__((constructor)) static void f(void){FILE*x=fopen("${marker}","a");fputs("ran\\n",x);fclose(x);}\n`);
    expect(run(['gcc', '-shared', '-fPIC', '-o', 'evil.so', 'evil.c']).status).toBe(0);
  }

  it('stops openssl -engine PATH and -provider-path/-provider', () => {
    buildEvilSo();
    for (const argv of [['openssl', 'dgst', '-engine', path.join(dir, 'evil.so'), '-sha256', 'file.txt'], ['openssl', 'dgst', '-provider-path', dir, '-provider', 'evil', '-sha256', 'file.txt']]) {
      expect(helperRan(argv)).toBe(true);
      expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule: 'openssl.load-module' });
    }
    expect(judgeReal(['openssl', 'dgst', '-sha256', 'file.txt'])).toMatchObject({ kind: 'allow' });
  });

  it('stops curl --engine PATH, its abbreviation and a -K config file naming the engine', () => {
    buildEvilSo();
    fs.writeFileSync(path.join(dir, 'curlrc'), `engine = "${path.join(dir, 'evil.so')}"\n`);
    for (const opts of [['--engine', path.join(dir, 'evil.so')], ['--eng', path.join(dir, 'evil.so')], ['-K', 'curlrc'], ['-sK', 'curlrc']]) {
      const argv = ['curl', ...opts, 'http://127.0.0.1:1/'];
      expect(helperRan(argv)).toBe(true);
      expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule: 'curl.load-module' });
    }
    expect(judgeReal(['curl', '-sS', '-o', 'out', 'http://127.0.0.1:1/'])).toMatchObject({ kind: 'allow' });
  });
});

describe('tar side files the real GNU tar writes where it is told', () => {
  const cases: [string, string[], string][] = [
    ['--index-file', ['tar', '-cvf', 'a.tar', '--index-file=SIDE', 'file.txt'], 'SIDE'],
    ['--index (abbreviation)', ['tar', '-cvf', 'b.tar', '--index', 'SIDE', 'file.txt'], 'SIDE'],
    ['-g in a cluster', ['tar', '-cg', 'SIDE', '-f', 'c.tar', 'file.txt'], 'SIDE'],
    ['-g attached', ['tar', '-cf', 'd.tar', '-gSIDE', 'file.txt'], 'SIDE'],
    ['old-style cgf', ['tar', 'cgf', 'SIDE', 'e.tar', 'file.txt'], 'SIDE'],
    ['--listed (abbreviation)', ['tar', '-cf', 'f.tar', '--listed=SIDE', 'file.txt'], 'SIDE'],
  ];
  for (const [title, template, side] of cases) {
    it(`stops tar ${title}`, () => {
      const sideFile = path.join(dir, `side-${title.replace(/\W/g, '')}`);
      const argv = template.map((a) => a.replace('SIDE', sideFile));
      run(argv);
      expect(fs.existsSync(sideFile)).toBe(true);
      expect(side).toBe('SIDE');
      expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule: 'tar.side-file' });
    });
  }
});

describe('the read-only table reads options as the real program does', () => {
  it('file --comp (an abbreviation of --compile) writes a .mgc file, so it is not read-only', () => {
    fs.writeFileSync(path.join(dir, 'mymagic'), '0\tstring\tHELLO\thello file\n');
    run(['file', '--comp', '-m', 'mymagic']);
    expect(fs.existsSync(path.join(dir, 'mymagic.mgc'))).toBe(true);
    const r = resolveProgram('file', { pathEnv: PATH, cwd: dir });
    const aliases = 'notFound' in r ? [] : [r.path, r.real];
    expect(isKnownReadOnly(['file', '--comp', '-m', 'mymagic'], { aliases })).toBe(false);
    expect(isKnownReadOnly(['file', '-b', 'file.txt'], { aliases })).toBe(true);
  });
});
