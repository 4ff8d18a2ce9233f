import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeCallEnv } from '../../../src/core/commands/callEnv';
import { requires } from '../../helpers/needs';
import { judgeResolved } from './judgeResolved';

requires('rule-programs');

/**
 * Issue 28: gcc forwards options the compiler rule used to never read. Against the real gcc, g++ and cc with
 * binutils: each spelling first really loads the agent's shared object (its constructor writes a marker) or runs
 * its program, then the rule denies it — judged by the name and the file the PATH lookup finds, as decide does.
 * The ordinary uses of the same channels keep working, and the real toolchain builds with them.
 */

let dir = '';
let marker = '';
const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ccfwd-')));
  marker = path.join(dir, 'marker');
  // Loading it is running code: the constructor writes the marker (it is also a valid gcc and ld plugin shape).
  fs.writeFileSync(path.join(dir, 'evil.c'), `#include <stdio.h>\n__attribute__((constructor)) static void f(void){FILE*x=fopen("${marker}","a");if(x){fputs("loaded\\n",x);fclose(x);}}\nint plugin_is_GPL_compatible;\nint plugin_init(void*a,void*b){return 0;}\nint onload(void*t){return 0;}\n`);
  expect(run(['gcc', '-shared', '-fPIC', '-o', 'evil.so', 'evil.c']).status).toBe(0);
  fs.mkdirSync(path.join(dir, 'plugins'));
  fs.copyFileSync(path.join(dir, 'evil.so'), path.join(dir, 'plugins', 'evil.so'));
  fs.writeFileSync(path.join(dir, 'helper.sh'), `#!/bin/sh\necho ran >> '${marker}'\nexit 1\n`, { mode: 0o755 });
  fs.mkdirSync(path.join(dir, 'bdir'));
  fs.copyFileSync(path.join(dir, 'helper.sh'), path.join(dir, 'bdir', 'as'));
  fs.chmodSync(path.join(dir, 'bdir', 'as'), 0o755);
  fs.writeFileSync(path.join(dir, 't.c'), '#ifndef FOO\nint main(void){return 0;}\n#else\nint main(void){return FOO - 1;}\n#endif\n');
  fs.writeFileSync(path.join(dir, 'm.cc'), 'export module m;\nexport int f() { return 1; }\n');
  fs.writeFileSync(path.join(dir, 'ld.rsp'), `-plugin ${path.join(dir, 'evil.so')}\n`);
  fs.writeFileSync(path.join(dir, 'cpp.rsp'), `-fplugin=${path.join(dir, 'evil.so')}\n`);
  expect(run(['gcc', '-c', 't.c', '-o', 't.o']).status).toBe(0);
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(argv: readonly string[]): ReturnType<typeof spawnSync> {
  return spawnSync(argv[0]!, argv.slice(1), { cwd: dir, timeout: 60_000, env: { PATH, HOME: dir }, encoding: 'utf8' });
}

/** Runs the argv for real and reports whether the shared object was loaded or the helper ran. */
function loadedOrRan(argv: readonly string[]): boolean {
  fs.rmSync(marker, { force: true });
  run(argv);
  return fs.existsSync(marker);
}

const judgeReal = (argv: readonly string[]) => judgeResolved(argv, { pathEnv: PATH, cwd: dir });

const fill = (argv: readonly string[]) => argv.map((a) => a.replaceAll('EVIL', path.join(dir, 'evil.so')).replaceAll('DIR', dir));

describe('every forwarding channel is unpacked and judged by the receiving program\'s rule (the real toolchain loads the code)', () => {
  const link = ['t.c', '-o', 't.out'];
  const compile = ['-c', 't.c', '-o', 't2.o'];
  const cases: [title: string, argv: string[], rule: string][] = [
    ['-Wl,@file (a linker response file naming a plugin)', ['gcc', ...link, '-Wl,@ld.rsp'], 'cc.forwarded-option'],
    ['-Wl,-O1,@file (the response file inside a list)', ['gcc', ...link, '-Wl,-O1,@ld.rsp'], 'cc.forwarded-option'],
    ['--for-linker=@file', ['gcc', ...link, '--for-linker=@ld.rsp'], 'cc.forwarded-option'],
    ['--for-linker=--plugin=…', ['gcc', ...link, '--for-linker=--plugin=EVIL'], 'cc.forwarded-option'],
    ['--for-linker -plugin --for-linker …', ['gcc', ...link, '--for-linker', '-plugin', '--for-linker', 'EVIL'], 'cc.forwarded-option'],
    ['-Xlinker -plugin -Xlinker …', ['gcc', ...link, '-Xlinker', '-plugin', '-Xlinker', 'EVIL'], 'cc.forwarded-option'],
    ['-Wl,--plugin,…', ['gcc', ...link, '-Wl,--plugin,EVIL'], 'cc.forwarded-option'],
    ['-Wp,-fplugin=… (cc1 loads it)', ['gcc', ...compile, '-Wp,-fplugin=EVIL'], 'cc.forwarded-option'],
    ['-Wp,@file (a preprocessor response file)', ['gcc', ...compile, '-Wp,@cpp.rsp'], 'cc.forwarded-option'],
    ['-Xpreprocessor -fplugin=…', ['gcc', ...compile, '-Xpreprocessor', '-fplugin=EVIL'], 'cc.forwarded-option'],
    ['-Wp,-iplugindir=DIR,-fplugin=NAME', ['gcc', ...compile, '-Wp,-iplugindir=DIR/plugins,-fplugin=evil'], 'cc.forwarded-option'],
    ['-fcompare-debug=-fplugin=… (a second compilation with these options)', ['gcc', ...compile, '-fcompare-debug=-fplugin=EVIL'], 'cc.helper-option'],
    ['-fcompare-debug=-B… (the second compilation runs DIR/as)', ['gcc', ...compile, '-fcompare-debug=-BDIR/bdir/'], 'cc.helper-option'],
    ['--prefix=DIR (the long spelling of -B)', ['gcc', '--prefix=DIR/bdir/', ...compile], 'cc.helper-option'],
    ['--prefix DIR', ['gcc', '--prefix', 'DIR/bdir/', ...compile], 'cc.helper-option'],
    ['-iplugindir=DIR -fplugin=NAME', ['gcc', '-iplugindir=DIR/plugins', '-fplugin=evil', ...compile], 'cc.helper-option'],
    ['g++ -fmodule-mapper=|CMD (the module mapper is a program)', ['g++', '-std=c++20', '-fmodules-ts', '-fmodule-mapper=|DIR/helper.sh', '-c', 'm.cc', '-o', 'm.o'], 'cc.helper-option'],
    // The same channels through the other driver names.
    ['g++ -Wl,-O1,@file', ['g++', '-x', 'c', ...link, '-Wl,-O1,@ld.rsp'], 'cc.forwarded-option'],
    ['g++ --for-linker=--plugin=…', ['g++', '-x', 'c', ...link, '--for-linker=--plugin=EVIL'], 'cc.forwarded-option'],
    ['g++ -Wp,-fplugin=… (cc1plus loads it)', ['g++', ...compile, '-Wp,-fplugin=EVIL'], 'cc.forwarded-option'],
    ['g++ -fcompare-debug=-fplugin=…', ['g++', ...compile, '-fcompare-debug=-fplugin=EVIL'], 'cc.helper-option'],
    ['cc -Wl,@file', ['cc', ...link, '-Wl,@ld.rsp'], 'cc.forwarded-option'],
    ['cc -Xlinker -plugin -Xlinker …', ['cc', ...link, '-Xlinker', '-plugin', '-Xlinker', 'EVIL'], 'cc.forwarded-option'],
    ['cc -Wp,-fplugin=…', ['cc', ...compile, '-Wp,-fplugin=EVIL'], 'cc.forwarded-option'],
    ['cc -fcompare-debug=-B…', ['cc', ...compile, '-fcompare-debug=-BDIR/bdir/'], 'cc.helper-option'],
  ];
  for (const [title, template, rule] of cases) {
    it(`stops ${title}`, () => {
      const argv = fill(template);
      expect(loadedOrRan(argv), 'the real toolchain runs the agent\'s code for this spelling').toBe(true);
      expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule });
    });
  }
});

describe('the linker called directly gets the same rule', () => {
  it('stops ld -plugin, ld --plugin=, ld @file', () => {
    for (const args of [['-plugin', 'EVIL'], ['--plugin=EVIL'], ['@ld.rsp']]) {
      const argv = fill(['ld', ...args, '-o', 'direct.out', 't.o']);
      expect(loadedOrRan(argv)).toBe(true);
      expect(judgeReal(argv)).toMatchObject({ kind: 'deny', rule: 'ld.forwarded-option' });
    }
  });
});

describe('legitimate uses of the channels keep working with the real toolchain', () => {
  const legit: [title: string, argv: string[], check?: () => void][] = [
    ['-Wl,-O1,--as-needed', ['gcc', 't.c', '-o', 'ok1', '-Wl,-O1,--as-needed']],
    ['-Wp,-DFOO=1 (the macro reaches the preprocessor)', ['gcc', 't.c', '-o', 'ok2', '-Wp,-DFOO=1'], () => expect(spawnSync(path.join(dir, 'ok2')).status).toBe(0)],
    ['-Xlinker --as-needed', ['gcc', 't.c', '-o', 'ok3', '-Xlinker', '--as-needed']],
    ['-MMD -MF dep.d (writes the dependency file)', ['gcc', '-MMD', '-MF', 'dep.d', '-c', 't.c', '-o', 'ok4.o'], () => expect(fs.readFileSync(path.join(dir, 'dep.d'), 'utf8')).toContain('t.c')],
    ['-Wp,-MD,dep2.d (the kernel build\'s spelling)', ['gcc', '-Wp,-MD,dep2.d', '-c', 't.c', '-o', 'ok5.o'], () => expect(fs.existsSync(path.join(dir, 'dep2.d'))).toBe(true)],
    ['-z now -Wl,-rpath,/usr/lib,-soname,libok.so', ['gcc', '-shared', '-fPIC', 't.c', '-o', 'libok.so', '-z', 'now', '-Wl,-rpath,/usr/lib,-soname,libok.so']],
    ['-Wa,--noexecstack and --for-assembler=--64', ['gcc', '-c', 't.c', '-o', 'ok6.o', '-Wa,--noexecstack', '--for-assembler=--64']],
    ['-fcompare-debug=-gtoggle', ['gcc', '-c', 't.c', '-o', 'ok7.o', '-fcompare-debug=-gtoggle']],
    ['g++ and cc with -Wl,--as-needed', ['g++', '-x', 'c', 't.c', '-o', 'ok8', '-Wl,--as-needed']],
    ['ld -o out t.o … with ordinary options', ['ld', '-r', '-o', 'ok9.o', 't.o', '--build-id']],
  ];
  for (const [title, argv, check] of legit) {
    it(`keeps ${title}`, () => {
      expect(judgeReal(argv)).toMatchObject({ kind: 'allow' });
      const r = run(argv);
      expect(r.status, String(r.stderr)).toBe(0);
      check?.();
    });
  }
});

describe('compiler variables in the per-call environment are refused even when the operator passes them through', () => {
  it('stops GCC_COMPARE_DEBUG (a second compilation with -fplugin loads the agent\'s code)', () => {
    fs.rmSync(marker, { force: true });
    spawnSync('gcc', ['-c', 't.c', '-o', 'env1.o'], { cwd: dir, env: { PATH, HOME: dir, GCC_COMPARE_DEBUG: `-fplugin=${path.join(dir, 'evil.so')}` } });
    expect(fs.existsSync(marker)).toBe(true);
    expect(judgeCallEnv({ GCC_COMPARE_DEBUG: '-fplugin=./evil.so' }, dir, { operatorAllowlist: ['GCC_COMPARE_DEBUG'] })).toMatchObject({ kind: 'deny', rule: 'env.per-call-refused' });
  });

  it('stops DEPENDENCIES_OUTPUT and SUNPRO_DEPENDENCIES (gcc writes a dependency file wherever they say)', () => {
    for (const name of ['DEPENDENCIES_OUTPUT', 'SUNPRO_DEPENDENCIES']) {
      const outside = path.join(dir, `written-by-${name}.d`);
      spawnSync('gcc', ['-c', 't.c', '-o', 'env2.o'], { cwd: dir, env: { PATH, HOME: dir, [name]: outside } });
      expect(fs.existsSync(outside), name).toBe(true);
      expect(judgeCallEnv({ [name]: outside }, dir, { operatorAllowlist: [name] })).toMatchObject({ kind: 'deny', rule: 'env.per-call-refused' });
    }
  });
});
