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
 * rsync names programs in options and operands: `-e`/`--rsh` (the remote shell), `--rsync-path` (what that shell
 * starts), a `host:path` operand (ssh from the PATH), `-M`/`--remote-option` (options for the other rsync). The
 * first review found `rsync -e` passing because CI never installed rsync; here the real rsync runs every
 * spelling and starts the helper (or writes through the forwarded option), then the rule denies it.
 */

let dir = '';
let marker = '';
let fakeBin = '';
const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-rsync-')));
  marker = path.join(dir, 'marker');
  fs.writeFileSync(path.join(dir, 'helper.sh'), `#!/bin/sh\necho "ran $*" >> '${marker}'\nexit 1\n`, { mode: 0o755 });
  // ssh as rsync finds it on the PATH: a stand-in that only records it was started.
  fakeBin = path.join(dir, 'bin');
  fs.mkdirSync(fakeBin);
  fs.copyFileSync(path.join(dir, 'helper.sh'), path.join(fakeBin, 'ssh'));
  fs.chmodSync(path.join(fakeBin, 'ssh'), 0o755);
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'f.txt'), 'x\n');
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(argv: readonly string[], pathEnv = PATH): ReturnType<typeof spawnSync> {
  return spawnSync(argv[0]!, argv.slice(1), { cwd: dir, timeout: 20_000, env: { PATH: pathEnv, HOME: dir }, encoding: 'utf8', input: '' });
}

function ran(argv: readonly string[], pathEnv = PATH): boolean {
  fs.rmSync(marker, { force: true });
  run(argv, pathEnv);
  return fs.existsSync(marker);
}

const judgeReal = (argv: readonly string[]) => judgeResolved(argv, { pathEnv: PATH, cwd: dir });

describe('rsync starts the programs it is told to', () => {
  const H = () => path.join(dir, 'helper.sh');
  const cases: [title: string, argv: () => string[], rule: string, pathEnv?: () => string][] = [
    ['-e CMD', () => ['rsync', '-a', '-e', H(), 'src/', 'localhost:dst/'], 'rsync.helper-option'],
    ['-eCMD (attached)', () => ['rsync', '-a', `-e${H()}`, 'src/', 'localhost:dst/'], 'rsync.helper-option'],
    ['-ae CMD (in a cluster)', () => ['rsync', '-ae', H(), 'src/', 'localhost:dst/'], 'rsync.helper-option'],
    ['-aeCMD (in a cluster, attached)', () => ['rsync', `-ae${H()}`, 'src/', 'localhost:dst/'], 'rsync.helper-option'],
    ['--rsh=CMD', () => ['rsync', '-a', `--rsh=${H()}`, 'src/', 'localhost:dst/'], 'rsync.helper-option'],
    ['--rsh CMD', () => ['rsync', '-a', '--rsh', H(), 'src/', 'localhost:dst/'], 'rsync.helper-option'],
    ['--rsh=CMD to a daemon address (host::module goes through the remote shell too)', () => ['rsync', '-a', `--rsh=${H()}`, 'src/', 'localhost::mod/'], 'rsync.helper-option'],
    ['-e CMD after the operands', () => ['rsync', '-a', 'src/', 'localhost::mod/', '-e', H()], 'rsync.helper-option'],
    ['a host:path operand (ssh from the PATH)', () => ['rsync', '-a', 'src/', 'localhost:dst/'], 'rsync.remote-shell', () => `${fakeBin}:${PATH}`],
    ['a user@host:path operand', () => ['rsync', '-a', 'src/', 'me@localhost:dst/'], 'rsync.remote-shell', () => `${fakeBin}:${PATH}`],
    ['--rsync-path=CMD (what the remote shell starts)', () => ['rsync', '-a', `--rsync-path=${H()}`, 'src/', 'localhost:dst/'], 'rsync.helper-option', () => `${fakeBin}:${PATH}`],
  ];
  for (const [title, argv, rule, pathEnv] of cases) {
    it(`stops rsync ${title}`, () => {
      expect(ran(argv(), pathEnv?.())).toBe(true);
      expect(judgeReal(argv())).toMatchObject({ kind: 'deny', rule });
    });
  }

  it('judges -M/--remote-option by the rsync rule again (the other rsync applies it: here it writes the log)', () => {
    for (const forwarded of [[`-M--log-file=${marker}`], [`--remote-option=--log-file=${marker}`]]) {
      expect(ran(['rsync', '-a', ...forwarded, 'src/', 'dst/'])).toBe(true); // the receiving side wrote the marker
    }
    expect(judgeReal(['rsync', '-a', `-M--rsh=${path.join(dir, 'helper.sh')}`, 'src/', 'dst/'])).toMatchObject({ kind: 'deny', rule: 'rsync.helper-option' });
    expect(judgeReal(['rsync', '-a', '--remote-option=-e', 'src/', 'dst/'])).toMatchObject({ kind: 'deny', rule: 'rsync.helper-option' });
    expect(judgeReal(['rsync', '-a', '-M--log-file=x.log', 'src/', 'dst/'])).toMatchObject({ kind: 'allow' });
  });

  it('denies the daemon and server modes and abbreviations of every program option', () => {
    for (const args of [['--daemon'], ['--config=x.conf'], ['--server', '--sender', '.'], ['--rs=x'], ['--rsync-p=x'], ['--dparam=x=y']]) {
      expect(judgeReal(['rsync', ...args, 'src/', 'dst/'])).toMatchObject({ kind: 'deny', rule: 'rsync.helper-option' });
    }
  });
});

describe('rsync\'s program variables in the per-call environment', () => {
  it('stops RSYNC_RSH and RSYNC_CONNECT_PROG even when the operator passes them through', () => {
    for (const [name, operand] of [['RSYNC_RSH', 'localhost:dst/'], ['RSYNC_CONNECT_PROG', 'rsync://localhost/mod/']] as const) {
      fs.rmSync(marker, { force: true });
      spawnSync('rsync', ['-a', 'src/', operand], { cwd: dir, env: { PATH, HOME: dir, [name]: path.join(dir, 'helper.sh') }, input: '', timeout: 20_000 });
      expect(fs.existsSync(marker), name).toBe(true);
      expect(judgeCallEnv({ [name]: path.join(dir, 'helper.sh') }, dir, { operatorAllowlist: [name] })).toMatchObject({ kind: 'deny', rule: 'env.per-call-refused' });
    }
  });
});

describe('ordinary rsync keeps working', () => {
  it('keeps rsync -a a/ b/ (copies, starts nothing)', () => {
    const argv = ['rsync', '-a', 'src/', 'copy/'];
    expect(judgeReal(argv)).toMatchObject({ kind: 'allow' });
    expect(ran(argv, `${fakeBin}:${PATH}`)).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'copy', 'f.txt'), 'utf8')).toBe('x\n');
  });

  it('keeps values that look like hosts (--chown user:group, a local ./a:b) and daemon addresses', () => {
    for (const argv of [['rsync', '-a', '--chown', 'root:root', 'src/', 'copy2/'], ['rsync', '-a', 'src/', './a:b/'], ['rsync', '-a', 'src/', 'localhost::mod/'], ['rsync', '-a', 'src/', 'rsync://localhost/mod/']]) {
      expect(judgeReal(argv)).toMatchObject({ kind: 'allow' });
    }
    expect(run(['rsync', '-a', 'src/', './a:b/']).status).toBe(0);
    expect(fs.existsSync(path.join(dir, 'a:b', 'f.txt'))).toBe(true);
  });
});
