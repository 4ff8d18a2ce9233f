import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decideCommand } from '../../../src/core/commands/decide';
import { NON_INTERACTIVE_ENV } from '../../../src/core/commands/run';
import { hardenGitReadOnlyArgs } from '../../../src/core/commands/rules/gitHarden';
import { parsePolicy, type Mode } from '../../../src/core/policy';
import { git, GIT_BASE_ENV, makeSignedRepo, writeMarkerProgram } from '../../helpers/gitRepos';
import { requires } from '../../helpers/needs';

requires('git');

/**
 * Issue 28, with the real git: a repository's own configuration names a program (gpg.program plus a %G format
 * makes a plain `git log -1` run it). Each case first shows the real git running the agent's program for the plain
 * read, then that decide does not classify the call read-only (read-only mode refuses it, shell_readonly refuses
 * it, an asking mode asks) — and, as a second layer, that the hardened argv does not run it either. The same keys
 * in the developer's own (global) configuration keep git read-only, and the hardened argv runs none of them.
 */

let base = '';
let ws = '';
let home = '';
let marker = '';
let helper = '';
let decoys = '';
const repoConfig = () => path.join(ws, '.git', 'config');
let pristineConfig = '';

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-gitcfg-real-')));
  ws = path.join(base, 'ws');
  home = path.join(base, 'home');
  marker = path.join(base, 'marker');
  helper = path.join(base, 'helper.sh');
  decoys = path.join(base, 'decoys');
  fs.mkdirSync(home);
  fs.mkdirSync(decoys);
  writeMarkerProgram(helper, marker);
  // The default verifiers, found on the PATH when no program is configured.
  for (const name of ['gpg', 'gpgsm', 'ssh-keygen']) writeMarkerProgram(path.join(decoys, name), marker);
  makeSignedRepo(ws);
  pristineConfig = fs.readFileSync(repoConfig(), 'utf8');
});
afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});
let touches = 0;
beforeEach(() => {
  // Stats the index has not recorded yet: the next refresh rewrites the index (an unchanged file's new mtime:
  // index hooks run) and reads the changed file's content (filters and fsmonitor run).
  touches++;
  for (const f of ['a.txt', '.gitattributes']) fs.utimesSync(path.join(ws, f), new Date(2001, 0, 1 + touches), new Date(2001, 0, 1 + touches));
  fs.writeFileSync(repoConfig(), pristineConfig);
  fs.rmSync(path.join(home, '.gitconfig'), { force: true });
  fs.rmSync(path.join(ws, '.git', 'config.worktree'), { force: true });
});

const PATH_WITH_DECOYS = () => `${decoys}:${GIT_BASE_ENV.PATH}`;
/** The developer's environment, passed through to commands: HOME (global config) and a PATH with the decoys. */
const devEnv = () => ({ PATH: PATH_WITH_DECOYS(), HOME: home });
const policy = (mode: Mode) => parsePolicy({ root: ws, allowCommands: ['git'], mode, childEnvAllowlist: ['HOME', 'PATH'] });
const decide = (args: string[], mode: Mode = 'readOnly', readOnlyOnly = false) =>
  decideCommand({ command: ['git', ...args], ...(readOnlyOnly && { readOnlyOnly: { tool: 'shell_readonly', instead: 'shell_execute' } }) }, policy(mode), { parentEnv: devEnv() });

/** Runs an argv as the executor would (the child's environment plus the non-interactive one) and returns the marker's lines. */
function ran(argv: readonly string[]): string {
  fs.rmSync(marker, { force: true });
  spawnSync(argv[0]!, argv.slice(1), { cwd: ws, env: { ...GIT_BASE_ENV, ...devEnv(), ...NON_INTERACTIVE_ENV }, encoding: 'utf8', timeout: 20_000 });
  return fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '';
}

const set = (file: string, entries: readonly (readonly [string, string])[]) => {
  for (const [k, v] of entries) git(['config', '--file', file, k, v], ws);
};

function expectNotReadOnly(args: string[]): void {
  expect(decide(args).verdict).toMatchObject({ kind: 'deny', code: 'MODE_READ_ONLY' });
  // shell_readonly says which file and key made it not read-only.
  expect(decide(args, 'readOnly', true).verdict).toMatchObject({ kind: 'deny', code: 'NOT_READ_ONLY', reason: expect.stringMatching(/is not read-only here: ".*" line \d+ sets /) });
  expect(decide(args, 'confirmChanges').verdict.kind).toBe('ask');
}

describe('the signature-verifier attack: gpg.program and a %G format in the repository\'s own config', () => {
  const attacks: [title: string, config: [string, string][], args: string[]][] = [
    ['format.pretty=%G? runs gpg.program on git log -1', [['gpg.program', 'HELPER'], ['format.pretty', '%H %G?']], ['log', '-1']],
    ['format.pretty=%G? runs gpg.program on git show -s HEAD', [['gpg.program', 'HELPER'], ['format.pretty', '%H %G?']], ['show', '-s', 'HEAD']],
    ['a pretty.<name> alias with %G?, chosen by format.pretty', [['gpg.program', 'HELPER'], ['pretty.sig', '%h %G?'], ['format.pretty', 'sig']], ['log', '-1']],
    ['a pretty.<name> alias with %G?, chosen by --pretty=NAME', [['gpg.program', 'HELPER'], ['pretty.sig', '%h %G?']], ['log', '-1', '--pretty=sig']],
    ['gpg.openpgp.program', [['gpg.openpgp.program', 'HELPER'], ['format.pretty', '%G?']], ['log', '-1']],
    ['gpg.ssh.program for an SSH-signed commit', [['gpg.ssh.program', 'HELPER'], ['gpg.ssh.allowedSignersFile', '/dev/null'], ['format.pretty', '%G?']], ['log', '-2']],
    ['gpg.x509.program for an X.509-signed commit', [['gpg.x509.program', 'HELPER'], ['format.pretty', '%G?']], ['log', '-3']],
    ['log.showSignature=true', [['gpg.program', 'HELPER'], ['log.showSignature', 'true']], ['log', '-1']],
  ];
  for (const [title, config, args] of attacks) {
    it(`stops ${title}`, () => {
      set(repoConfig(), config.map(([k, v]) => [k, v.replace('HELPER', helper)] as const));
      expect(ran(['git', ...args]), 'the real git runs the configured program for the plain read').toContain(helper);
      expectNotReadOnly(args);
      // Second layer: even if the classification let it through, the hardened argv runs no verifier.
      expect(ran(['git', ...hardenGitReadOnlyArgs(args)!])).toBe('');
    });
  }
});

describe('the same programs in the developer\'s own configuration: read-only, and the hardened argv runs none of them', () => {
  const configs: [title: string, config: [string, string][], args: string[]][] = [
    ['gpg.program with format.pretty=%G?', [['gpg.program', 'HELPER'], ['format.pretty', '%H %G?']], ['log', '-1']],
    ['the default gpg on the PATH (format.pretty=%G?, no program configured)', [['format.pretty', '%G?']], ['log', '-1']],
    ['the default ssh-keygen and gpgsm on the PATH', [['format.pretty', '%G?'], ['gpg.ssh.allowedSignersFile', '/dev/null']], ['log', '-3']],
    ['gpg.ssh.program and gpg.x509.program', [['gpg.ssh.program', 'HELPER'], ['gpg.x509.program', 'HELPER'], ['gpg.ssh.allowedSignersFile', '/dev/null'], ['pretty.sig', '%G?']], ['log', '-3', '--pretty=sig']],
    ['log.showSignature=true', [['log.showSignature', 'true'], ['gpg.program', 'HELPER']], ['show', '-s', 'HEAD']],
    ['core.fsmonitor', [['core.fsmonitor', 'HELPER']], ['status']],
    ['a clean filter selected by .gitattributes', [['filter.ff.clean', 'HELPER']], ['diff']],
    ['a textconv driver selected by .gitattributes', [['diff.tc.textconv', 'HELPER']], ['log', '-p', '-1', 'HEAD~3']],
    ['diff.external and a diff driver command', [['diff.external', 'HELPER'], ['diff.tc.command', 'HELPER']], ['diff']],
  ];
  for (const [title, config, args] of configs) {
    it(`keeps git ${args.join(' ')} read-only with ${title}, and runs nothing`, () => {
      set(path.join(home, '.gitconfig'), config.map(([k, v]) => [k, v.replace('HELPER', helper)] as const));
      expect(ran(['git', ...args]), 'the plain read runs a program').not.toBe('');
      const d = decide(args);
      expect(d.verdict.kind).toBe('allow');
      expect(d.plan!.readOnly).toBe(true);
      expect(ran(d.plan!.spawnArgv[0]!)).toBe('');
    });
  }
});

describe('each hostile key family in the repository\'s own configuration makes git not read-only', () => {
  const families: [family: string, config: [string, string][], args: string[], where?: 'worktree' | 'include'][] = [
    ['fsmonitor', [['core.fsmonitor', 'HELPER']], ['status']],
    ['filter drivers', [['filter.ff.clean', 'HELPER']], ['diff']],
    ['diff drivers (textconv)', [['diff.tc.textconv', 'HELPER']], ['log', '-p', '-1', 'HEAD~3']],
    ['diff drivers (command)', [['diff.tc.command', 'HELPER']], ['diff']],
    ['external diff', [['diff.external', 'HELPER']], ['diff']],
    ['hooks (core.hooksPath with a post-index-change hook)', [['core.hooksPath', 'HOOKS']], ['status']],
    ['signing (through config.worktree)', [['extensions.worktreeConfig', 'true'], ['gpg.program', 'HELPER'], ['format.pretty', '%G?']], ['log', '-1'], 'worktree'],
    ['an included file', [['core.fsmonitor', 'HELPER']], ['status'], 'include'],
  ];
  for (const [family, config, args, where] of families) {
    it(`stops ${family}`, () => {
      const hooks = path.join(base, 'hooks');
      fs.mkdirSync(hooks, { recursive: true });
      writeMarkerProgram(path.join(hooks, 'post-index-change'), marker);
      const entries = config.map(([k, v]) => [k, v.replace('HELPER', helper).replace('HOOKS', hooks)] as const);
      if (where === 'worktree') {
        set(repoConfig(), [entries[0]!]);
        set(path.join(ws, '.git', 'config.worktree'), entries.slice(1));
      } else if (where === 'include') {
        const inc = path.join(base, 'included.cfg');
        fs.writeFileSync(inc, '');
        set(inc, entries);
        set(repoConfig(), [['include.path', inc]]);
      } else set(repoConfig(), entries);
      expect(ran(['git', ...args]), 'the real git runs the configured program for the plain read').not.toBe('');
      expectNotReadOnly(args);
    });
  }

  it('keeps a plain git log read-only in a repository with ordinary configuration (remote, branch, identity, colours, a harmless format)', () => {
    set(repoConfig(), [['remote.origin.url', 'https://example.invalid/r.git'], ['remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'], ['branch.main.remote', 'origin'], ['branch.main.merge', 'refs/heads/main'], ['user.name', 'Dev'], ['color.ui', 'auto'], ['format.pretty', '%h %s'], ['pull.rebase', 'true']]);
    const d = decide(['log', '-3']);
    expect(d.verdict.kind).toBe('allow');
    const r = spawnSync(d.plan!.spawnArgv[0]![0]!, d.plan!.spawnArgv[0]!.slice(1), { cwd: ws, env: { ...GIT_BASE_ENV, ...devEnv(), ...NON_INTERACTIVE_ENV }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('openpgp signed');
  });
});
