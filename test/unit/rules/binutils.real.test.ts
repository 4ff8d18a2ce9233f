import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeCommand } from '../../../src/core/commands/rules';
import { requires } from '../../helpers/needs';
import { judgeResolved } from './judgeResolved';

requires('rule-programs');

/**
 * binutils' ar, nm and ranlib load a BFD plugin named by `--plugin`: a shared object whose constructor runs as the
 * tool. Against the real programs: each spelling first really loads the agent's object (its constructor writes a
 * marker), then the rule denies it — judged by the name and the file the PATH lookup finds, as decide does. Their
 * ordinary uses keep working.
 */

let dir = '';
let marker = '';
const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

function run(argv: readonly string[]): ReturnType<typeof spawnSync> {
  return spawnSync(argv[0]!, argv.slice(1), { cwd: dir, timeout: 60_000, env: { PATH, HOME: dir }, encoding: 'utf8' });
}

function loaded(argv: readonly string[]): boolean {
  fs.rmSync(marker, { force: true });
  run(argv);
  return fs.existsSync(marker);
}

const judgeReal = (argv: readonly string[]) => judgeResolved(argv, { pathEnv: PATH, cwd: dir });

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-binutils-')));
  marker = path.join(dir, 'marker');
  fs.writeFileSync(path.join(dir, 'evil.c'), `#include <stdio.h>\n__attribute__((constructor)) static void f(void){FILE*x=fopen("${marker}","a");if(x){fputs("loaded\\n",x);fclose(x);}}\n`);
  expect(run(['gcc', '-shared', '-fPIC', '-o', 'evil.so', 'evil.c']).status).toBe(0);
  fs.writeFileSync(path.join(dir, 't.c'), 'int answer(void){return 42;}\n');
  expect(run(['gcc', '-c', 't.c', '-o', 't.o']).status).toBe(0);
  expect(run(['ar', 'rcs', 'libt.a', 't.o']).status).toBe(0);
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('binutils plugins: ar, nm and ranlib never load the caller\'s shared object', () => {
  const so = () => path.join(dir, 'evil.so');
  const attacks: [string, () => string[]][] = [
    ['nm --plugin', () => ['nm', '--plugin', so(), 't.o']],
    ['nm --plugin=', () => ['nm', `--plugin=${so()}`, 't.o']],
    ['nm --plu (an abbreviation)', () => ['nm', '--plu', so(), 't.o']],
    ['nm, the option after the operand (permuted)', () => ['nm', 't.o', '--plugin', so()]],
    ['ar --plugin', () => ['ar', '--plugin', so(), 'rcs', 'libu.a', 't.o']],
    ['ar --plugin=, writing the index', () => ['ar', `--plugin=${so()}`, 's', 'libt.a']],
    ['ar --p (an abbreviation ar reads as --plugin)', () => ['ar', '--p', so(), 'rcs', 'libv.a', 't.o']],
    ['ranlib --plugin', () => ['ranlib', '--plugin', so(), 'libt.a']],
    ['ranlib --plugi=', () => ['ranlib', `--plugi=${so()}`, 'libt.a']],
  ];
  for (const [what, argv] of attacks) {
    it(`stops ${what} from loading a shared object`, () => {
      expect(loaded(argv()), `${what} loads the object when run directly`).toBe(true);
      expect(judgeReal(argv())).toMatchObject({ kind: 'deny', rule: 'binutils.plugin' });
    });
  }

  it('stops a response file from carrying --plugin past the rule (libiberty expands @FILE before any option is read)', () => {
    fs.writeFileSync(path.join(dir, 'opts.rsp'), `--plugin ${so()}\n`);
    for (const argv of [['nm', '@opts.rsp', 't.o'], ['nm', 't.o', '@opts.rsp'], ['ar', '@opts.rsp', 's', 'libt.a'], ['ranlib', '@opts.rsp', 'libt.a']]) {
      expect(loaded(argv), `${argv.join(' ')} loads the object when run directly`).toBe(true);
      expect(judgeReal(argv), argv.join(' ')).toMatchObject({ kind: 'deny', rule: 'binutils.response-file' });
    }
  });

  it('judges every name of the program: a target-prefixed or versioned name, and gcc\'s wrappers', () => {
    for (const name of ['x86_64-linux-gnu-nm', 'gcc-ar', 'gcc-nm-12', 'llvm-ranlib', '/usr/bin/nm']) {
      expect(judgeCommand([name, '--plugin', '/x.so', 'a.o']), name).toMatchObject({ kind: 'deny', rule: 'binutils.plugin' });
    }
  });

  it('lets their ordinary uses run (symbols, archive listing, index), and a file named like the option after --', () => {
    for (const argv of [['nm', '-C', '--defined-only', 't.o'], ['nm', '--print-size', 't.o'], ['ar', 't', 'libt.a'], ['ranlib', 'libt.a'], ['nm', '--', '--plugin']]) {
      expect(judgeReal(argv), argv.join(' ')).toMatchObject({ kind: 'allow' });
    }
    expect(String(run(['nm', 't.o']).stdout)).toContain('answer');
  });
});
