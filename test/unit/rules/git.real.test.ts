import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideCommand } from '../../../src/core/commands/decide';
import { NON_INTERACTIVE_ENV } from '../../../src/core/commands/run';
import { parsePolicy, type Mode } from '../../../src/core/policy';
import { requires } from '../../helpers/needs';


requires('git');
/**
 * git with the real git: the developer's own (global) git configuration names a helper for every
 * configuration-driven program (core.fsmonitor, a clean filter, a textconv driver, diff.external, core.pager,
 * signature verification), the workspace repository has the attributes that select them and a
 * post-index-change hook. Each test proves the helper really runs for the plain command, then that the argv
 * decide plans to spawn (spawnArgv: the judged path plus the read-only hardening) does NOT run it — or that
 * decide refuses. The same keys in the repository's OWN configuration make git not read-only at all
 * (gitConfig.real.test.ts covers that list family by family).
 */

let base = '';
let ws = '';
let home = '';
let marker = '';
const helper = () => path.join(base, 'helper.sh');
const GIT_ID = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/nonexistent-home-gs', ...GIT_ID };
/** The developer's environment: HOME (with the armed .gitconfig) passed through to commands. */
const armedEnv = () => ({ ...ENV, HOME: home });

function git(args: string[], cwd = ws): ReturnType<typeof spawnSync> {
  return spawnSync('git', args, { cwd, env: ENV, encoding: 'utf8', timeout: 20_000 });
}

/** The developer's global configuration names the helper everywhere; the repository selects it by attributes. */
function armHome(repo: string): void {
  for (const [k, v] of [
    ['core.fsmonitor', helper()], ['diff.external', helper()], ['diff.tc.textconv', helper()],
    ['filter.ff.clean', helper()], ['core.pager', helper()], ['pager.status', 'true'],
  ]) spawnSync('git', ['config', '--global', k!, v!], { env: armedEnv() });
  fs.writeFileSync(path.join(repo, '.gitattributes'), '*.txt diff=tc filter=ff\n');
  const hooks = path.join(repo, '.git', 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  fs.writeFileSync(path.join(hooks, 'post-index-change'), `#!/bin/sh\necho hook >> '${marker}'\n`, { mode: 0o755 });
}

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-gitreal-')));
  ws = path.join(base, 'ws');
  marker = path.join(base, 'marker');
  home = path.join(base, 'home');
  fs.mkdirSync(ws);
  fs.mkdirSync(home);
  fs.writeFileSync(helper(), `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`, { mode: 0o755 });
  git(['init', '-q', '.']);
  fs.writeFileSync(path.join(ws, 'a.txt'), 'hi\n');
  git(['add', '.']);
  git(['commit', '-qm', 'one']);
  armHome(ws);
  fs.appendFileSync(path.join(ws, 'a.txt'), 'more\n');
  fs.utimesSync(path.join(ws, 'a.txt'), new Date('2001-01-01'), new Date('2001-01-01'));
});
afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

const policy = (mode: Mode = 'readOnly') => parsePolicy({ root: ws, allowCommands: ['git', 'git-log', 'git-status'], mode, childEnvAllowlist: ['HOME'] });
const decide = (command: string[], directory?: string, mode: Mode = 'readOnly') => decideCommand({ command, ...(directory && { directory }) }, policy(mode), { parentEnv: { PATH: ENV.PATH, HOME: home } });

/** Runs an argv for real (no shell) and reports what the helper logged. */
function ranHelper(argv: readonly string[], cwd = ws): string {
  fs.rmSync(marker, { force: true });
  spawnSync(argv[0]!, argv.slice(1), { cwd, env: { ...armedEnv(), ...NON_INTERACTIVE_ENV, GIT_PAGER: '' }, encoding: 'utf8', timeout: 20_000 });
  return fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '';
}

describe('read-only git runs with configuration-driven programs off', () => {
  const commands = [['status'], ['diff'], ['log', '-p', '-1'], ['show'], ['blame', 'a.txt'], ['grep', 'hi'], ['ls-files', '-m'], ['diff', '--stat'], ['whatchanged', '-p', '-1'], ['diff-files', '-p']];
  for (const args of commands) {
    it(`git ${args.join(' ')}: the helper runs without hardening, not with it`, () => {
      expect(ranHelper(['git', ...args])).not.toBe('');
      const d = decide(['git', ...args]);
      expect(d.verdict.kind).toBe('allow');
      expect(d.plan!.readOnly).toBe(true);
      const spawn = d.plan!.spawnArgv[0]!;
      expect(path.isAbsolute(spawn[0]!)).toBe(true);
      expect(spawn).toContain('core.fsmonitor=false');
      expect(spawn).toContain('filter.ff.clean=');
      expect(ranHelper(spawn)).toBe('');
    });
  }

  it('keeps the output of the hardened command (git status still reports the change)', () => {
    const spawn = decide(['git', 'status', '--porcelain']).plan!.spawnArgv[0]!;
    const r = spawnSync(spawn[0]!, spawn.slice(1), { cwd: ws, env: armedEnv(), encoding: 'utf8' });
    expect(r.stdout).toContain('a.txt');
  });

  it.each([
    [['log', '--ext-diff', '-p']], [['show', '--textconv']], [['cat-file', '--filters', 'HEAD:a.txt']], [['log', '--show-signature']],
    [['log', '--format=%G?']], [['tag', '-v', 'x']], [['remote', 'show', 'origin']],
  ])('does not call git %j read-only (it runs a program or contacts a remote)', (args) => {
    expect(decide(['git', ...args]).verdict).toMatchObject({ kind: 'deny', code: 'MODE_READ_ONLY' });
  });
});

describe('read-only git reaches no remote', () => {
  it('does not lazily fetch a missing object from a partial clone\'s promisor remote, even where the clone allows the protocol', () => {
    const origin = path.join(base, 'origin');
    fs.mkdirSync(origin);
    git(['init', '-q', '.'], origin);
    fs.writeFileSync(path.join(origin, 'f.txt'), 'from the remote\n');
    git(['add', '.'], origin);
    git(['commit', '-qm', 'one'], origin);
    git(['config', 'uploadpack.allowFilter', 'true'], origin);
    git(['config', 'uploadpack.allowAnySHA1InWant', 'true'], origin);
    const clone = path.join(base, 'partial');
    git(['clone', '-q', '--no-checkout', '--filter=blob:none', `file://${origin}`, clone], base);
    // A per-protocol setting outranks protocol.allow: the developer's own configuration allows file://.
    const devHome = path.join(base, 'partial-home');
    fs.mkdirSync(devHome);
    fs.writeFileSync(path.join(devHome, '.gitconfig'), '[protocol "file"]\n\tallow = always\n');
    const devEnv = { ...ENV, HOME: devHome };
    const missing = () => String(git(['rev-list', '--objects', '--missing=print', '--all'], clone).stdout).split('\n').filter((l) => l.startsWith('?'));
    expect(missing()).toHaveLength(1);
    const p = parsePolicy({ root: clone, allowCommands: ['git'], mode: 'readOnly', childEnvAllowlist: ['HOME'] });
    const d = decideCommand({ command: ['git', 'show', 'HEAD:f.txt'] }, p, { parentEnv: { PATH: ENV.PATH, HOME: devHome } });
    expect(d.plan!.readOnly).toBe(true); // a partial clone's own configuration is on the harmless list
    const spawn = d.plan!.spawnArgv[0]!;
    const hardened = spawnSync(spawn[0]!, spawn.slice(1), { cwd: clone, env: devEnv, encoding: 'utf8', timeout: 20_000 });
    expect(hardened.status).not.toBe(0);
    expect(hardened.stderr).toMatch(/not allowed/);
    expect(missing()).toHaveLength(1); // nothing was fetched
    // The same read without the hardening does reach the remote: the test above proves something.
    expect(String(spawnSync('git', ['show', 'HEAD:f.txt'], { cwd: clone, env: devEnv, encoding: 'utf8' }).stdout)).toBe('from the remote\n');
    expect(missing()).toHaveLength(0);
  });
});

describe('a git directory other than the workspace\'s own cannot supply configuration', () => {
  it('stops git in a nested repository the agent wrote (its fsmonitor runs for git status)', () => {
    const nested = path.join(ws, 'nested');
    fs.mkdirSync(nested, { recursive: true });
    git(['init', '-q', '.'], nested);
    git(['config', 'core.fsmonitor', helper()], nested);
    fs.writeFileSync(path.join(nested, 'f'), 'x');
    expect(ranHelper(['git', 'status'], nested)).not.toBe('');
    for (const [command, dir] of [[['git', 'status'], 'nested'], [['git', '-C', 'nested', 'status'], undefined], [['git', 'log'], 'nested']] as const) {
      expect(decide([...command], dir, 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.foreign-git-dir' });
    }
  });

  it('stops --git-dir naming another git directory, with --work-tree=. (the agent-written config runs)', () => {
    const evil = path.join(ws, 'evil');
    git(['init', '-q', '--bare', evil]);
    git(['config', 'core.fsmonitor', helper()], evil);
    expect(ranHelper(['git', `--git-dir=${evil}`, '--work-tree=.', 'status'])).not.toBe('');
    expect(decide(['git', '--git-dir=evil', '--work-tree=.', 'status'], undefined, 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.foreign-git-dir' });
    expect(decide(['git', '--git-dir', 'evil', 'status'], undefined, 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.foreign-git-dir' });
    expect(decide(['git', 'status'], 'evil', 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.foreign-git-dir' });
    expect(decide(['git', '--bare', 'log'], 'evil', 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.foreign-git-dir' });
  });

  it('stops GIT_DIR passed through from the server environment when it names another git directory', () => {
    const p = parsePolicy({ root: ws, allowCommands: ['git'], childEnvAllowlist: ['GIT_DIR'] });
    const other = path.join(base, 'other.git');
    git(['init', '-q', '--bare', other]);
    expect(decideCommand({ command: ['git', 'status'] }, p, { parentEnv: { PATH: ENV.PATH, GIT_DIR: other } }).verdict).toMatchObject({ kind: 'deny', rule: 'git.foreign-git-dir' });
    expect(decideCommand({ command: ['git', 'status'] }, p, { parentEnv: { PATH: ENV.PATH, GIT_DIR: path.join(ws, '.git') } }).verdict.kind).toBe('allow');
  });

  it('stops --work-tree outside the workspace', () => {
    expect(decide(['git', `--work-tree=${base}`, 'status'], undefined, 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.foreign-work-tree' });
  });

  it('keeps allowing the own repository from a subfolder, by --git-dir=.git, and in a submodule-style gitfile into .git/modules', () => {
    fs.mkdirSync(path.join(ws, 'plain'), { recursive: true });
    expect(decide(['git', 'status'], 'plain', 'auto').verdict.kind).toBe('allow');
    expect(decide(['git', '--git-dir=.git', 'status'], undefined, 'auto').verdict.kind).toBe('allow');
    const modules = path.join(ws, '.git', 'modules', 'sub');
    git(['init', '-q', '--bare', modules]);
    fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'sub', '.git'), `gitdir: ../.git/modules/sub\n`);
    expect(decide(['git', 'status'], 'sub', 'auto').verdict.kind).toBe('allow');
    expect(decide(['git', 'status'], 'sub').plan!.readOnly).toBe(true);
    // THAT git directory's own configuration is judged too: a filter there makes the call not read-only.
    git(['config', 'filter.subf.clean', helper()], modules);
    expect(decide(['git', 'status'], 'sub').plan!.readOnly).toBe(false);
    expect(decide(['git', 'status'], 'sub').verdict).toMatchObject({ kind: 'deny', code: 'MODE_READ_ONLY' });
    expect(decide(['git', 'status']).plan!.readOnly).toBe(false); // the superproject's reads may recurse into it
    git(['config', '--unset', 'filter.subf.clean'], modules);
  });
});

describe('git by other doors', () => {
  it('stops dashed programs and git-core paths with the git rules (git-log --output writes a file)', () => {
    const gitCore = spawnSync('git', ['--exec-path'], { encoding: 'utf8' }).stdout.trim();
    const out = path.join(base, 'written-by-git-log');
    spawnSync(path.join(gitCore, 'git-log'), [`--output=${out}`, '-1'], { cwd: ws, env: ENV });
    expect(fs.existsSync(out)).toBe(true);
    const d = decideCommand({ command: [path.join(gitCore, 'git-log'), `--output=${out}`, '-1'] }, parsePolicy({ root: ws, allowCommands: [path.join(gitCore, 'git-log')] }), { parentEnv: { PATH: ENV.PATH } });
    expect(d.verdict).toMatchObject({ kind: 'deny', rule: 'git.output-file' });
  });

  it('stops git remote-ext, which runs its argument', () => {
    const r = spawnSync('git', ['remote-ext', 'x', `${helper()} %S`], { cwd: ws, env: ENV, input: 'capabilities\n\n', encoding: 'utf8', timeout: 10_000 });
    expect(fs.readFileSync(marker, 'utf8')).toContain(helper());
    expect(r.error).toBeUndefined();
    expect(decide(['git', 'remote-ext', 'x', 'sh %S'], undefined, 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.remote-helper' });
  });

  it('stops git init --template (it copies hooks that then run) in full and abbreviated form', () => {
    const tpl = path.join(base, 'tpl');
    fs.mkdirSync(path.join(tpl, 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(tpl, 'hooks', 'post-checkout'), `#!/bin/sh\necho hook >> '${marker}'\n`, { mode: 0o755 });
    const target = path.join(base, 'inited');
    git(['init', '-q', `--templ=${tpl}`, target]);
    expect(fs.existsSync(path.join(target, '.git', 'hooks', 'post-checkout'))).toBe(true);
    for (const form of [['--template', tpl], [`--template=${tpl}`], [`--templ=${tpl}`], ['--separate-git-dir', 'x'], ['--sep=x']]) {
      expect(decide(['git', 'init', ...form, 'newrepo'], undefined, 'auto').verdict.kind).toBe('deny');
    }
  });

  it('stops git archive -o / -vo / -ofile and format-patch -o / -ko in clusters', () => {
    const out = path.join(base, 'arch.tar');
    git(['archive', `-o${out}`, 'HEAD']);
    expect(fs.existsSync(out)).toBe(true);
    for (const args of [['archive', '-o', 'x.tar', 'HEAD'], ['archive', '-ox.tar', 'HEAD'], ['archive', '-vo', 'x.tar', 'HEAD'], ['format-patch', '-o', 'd', '-1'], ['format-patch', '-ko', 'd', '-1'], ['format-patch', '--output-directory=d', '-1'], ['format-patch', '--output-d=d', '-1'], ['log', '--outp=x']]) {
      expect(decide(['git', ...args], undefined, 'auto').verdict).toMatchObject({ kind: 'deny', rule: 'git.output-file' });
    }
  });
});
