import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeCommand, prepareArgv } from '../../../src/core/commands/rules';
import { skipWithout } from '../../helpers/needs';

/**
 * The rules model real grammars; these tests run the REAL programs (GNU tar 1.34, bsdtar, GNU sort, GNU sed,
 * gawk, git) in a temp directory to prove two things for each spelling: the program really does start the
 * helper (so the denial is needed, the spelling is not hypothetical), and the rule denies it. Counter-examples
 * prove that an allowed spelling really does NOT reach the helper.
 * Needs: tar (GNU), bsdtar (libarchive-tools), sed (GNU), sort (GNU), gawk, git.
 */

let dir = '';
let marker = '';
const helper = () => path.join(dir, 'helper.sh');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-rules-'));
  marker = path.join(dir, 'marker');
  fs.writeFileSync(helper(), `#!/bin/sh\necho ran >> '${marker}'\ncat >/dev/null\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'file.txt'), 'b\na\n');
  run(['tar', '-cf', 'plain.tar', 'file.txt']);
  fs.mkdirSync(path.join(dir, 'repo'));
  const env = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
  for (const a of [['init', '-q', '.'], ['add', '.'], ['commit', '-qm', 'one']]) {
    if (a[0] === 'add') fs.writeFileSync(path.join(dir, 'repo', 'a.txt'), 'needle\n');
    spawnSync('git', a, { cwd: path.join(dir, 'repo'), env: { ...process.env, ...env } });
  }
});
afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function run(argv: readonly string[], cwd = dir, input = ''): number | null {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd, input, timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } });
  return r.status;
}

/** Runs the argv for real and reports whether the helper ran; the marker is reset before each run. */
function helperRan(argv: readonly string[], cwd = dir, input = ''): boolean {
  fs.rmSync(marker, { force: true });
  run(argv, cwd, input);
  return fs.existsSync(marker);
}

const dangerous: [title: string, argv: string[], rule: string, cwd?: string][] = [
  ['GNU tar --use-comp (abbreviation) runs the compressor', ['tar', '-cf', 'x1.tar', '--use-comp=HELPER', 'file.txt'], 'tar.helper-option'],
  ['GNU tar --to-c (abbreviation) pipes members into a command', ['tar', '-xf', 'plain.tar', '--to-c=HELPER'], 'tar.helper-option'],
  ['GNU tar old-style cIf runs the compressor', ['tar', 'cIf', 'HELPER', 'x2.tar', 'file.txt'], 'tar.helper-option'],
  ['GNU tar --checkpoint-ac=exec (abbreviation) runs a command', ['tar', '-cf', 'x3.tar', '--checkpoint=1', '--checkpoint-ac=exec=HELPER', 'file.txt'], 'tar.helper-option'],
  ['GNU tar helper option after the operands', ['tar', '-cf', 'x4.tar', 'file.txt', '--use-compress-program', 'HELPER'], 'tar.helper-option'],
  ['bsdtar -W use-compress-program runs the compressor', ['bsdtar', '-cf', 'x5.tar', '-W', 'use-compress-program=HELPER', 'file.txt'], 'tar.helper-option'],
  ['bsdtar --use-comp (abbreviation) runs the compressor', ['bsdtar', '-cf', 'x6.tar', '--use-comp', 'HELPER', 'file.txt'], 'tar.helper-option'],
  ['GNU sed s///e runs the pattern space', ['sed', 's|.*|HELPER|e'], 'sed.exec'],
  ['gawk indirect call reaches system() by name', ['gawk', 'BEGIN{f="system"; @f("HELPER")}'], 'awk.gawk-directive'],
  ['gawk command | getline', ['gawk', 'BEGIN{"HELPER" | getline x}'], 'awk.pipe'],
  ['git grep --op (abbreviation) opens files in a program', ['git', 'grep', '--op=HELPER', 'needle'], 'git.grep-pager', 'repo'],
  ['git grep -nO cluster with an attached pager', ['git', 'grep', '-nOHELPER', 'needle'], 'git.grep-pager', 'repo'],
];

describe('spellings the real programs execute are denied', () => {
  for (const [title, template, rule, sub] of dangerous) {
    it(`stops ${title}`, (ctx) => {
      if (template[0] === 'gawk' || template[0] === 'bsdtar' || template[0] === 'git') skipWithout(ctx, template[0]);
      const argv = template.map((a) => a.replace('HELPER', helper()));
      const cwd = sub ? path.join(dir, sub) : dir;
      expect(helperRan(argv, cwd, 'x\n')).toBe(true);
      const v = judgeCommand(argv);
      expect(v.kind).toBe('deny');
      expect(v.rule).toBe(rule);
    });
  }

  it('stops sort --outp (abbreviation of --output) writing a file of its choosing', () => {
    fs.rmSync(path.join(dir, 'sorted.txt'), { force: true });
    run(['sort', '--outp=sorted.txt', 'file.txt']);
    expect(fs.readFileSync(path.join(dir, 'sorted.txt'), 'utf8')).toBe('a\nb\n');
    expect(judgeCommand(['sort', '--outp=sorted.txt', 'file.txt']).rule).toBe('sort.output-file');
  });

  it('stops sed e even if the script reader missed it: --sandbox (added by prepareArgv) makes sed refuse', () => {
    const argv = prepareArgv(['sed', `s|.*|${helper()}|e`]);
    expect(argv[1]).toBe('--sandbox');
    fs.rmSync(marker, { force: true });
    const status = run(argv, dir, 'x\n');
    expect(status).not.toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('allowed counter-examples really do not reach a helper', () => {
  it('keeps allowing sort -- --output=data, which sorts a FILE named --output=data', () => {
    fs.writeFileSync(path.join(dir, '--output=data'), 'z\ny\n');
    const argv = ['sort', '--', '--output=data'];
    const r = spawnSync('sort', argv.slice(1), { cwd: dir, encoding: 'utf8' });
    expect(r.stdout).toBe('y\nz\n');
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
    expect(judgeCommand(argv).kind).toBe('allow');
  });

  it('keeps allowing git grep -e -O data (the -O is the pattern)', (ctx) => {
    skipWithout(ctx, 'git');
    const argv = ['git', 'grep', '-e', '-O', 'data'];
    expect(helperRan(argv, path.join(dir, 'repo'))).toBe(false);
    expect(judgeCommand(argv).kind).toBe('allow');
  });

  it('keeps allowing tar -cf with an archive NAMED like --to-command=HELPER', () => {
    const argv = ['tar', '-cf', `--to-command=${helper()}`, 'file.txt'];
    const sub = path.join(dir, 'named');
    fs.mkdirSync(sub, { recursive: true });
    fs.copyFileSync(path.join(dir, 'file.txt'), path.join(sub, 'file.txt'));
    expect(helperRan(argv, sub)).toBe(false);
    expect(judgeCommand(argv).kind).toBe('allow');
  });

  it('keeps allowing sed with --sandbox for an ordinary substitution', () => {
    const r = spawnSync('sed', prepareArgv(['sed', '-n', 's/a/A/p']).slice(1), { input: 'a\nb\n', encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('A\n');
  });
});
