import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { perCallEnvAllowlist } from '../../../src/core/commands/callEnv';
import { decideCommand } from '../../../src/core/commands/decide';
import { NON_INTERACTIVE_ENV } from '../../../src/core/commands/run';
import { buildChildEnv } from '../../../src/core/exec/env';
import { parsePolicy } from '../../../src/core/policy';
import { git, GIT_BASE_ENV, makeSignedRepo, writeMarkerProgram } from '../../helpers/gitRepos';
import { requires } from '../../helpers/needs';
import { mulberry32 } from '../../helpers/prng';

requires('git');

/**
 * The property of read-only classification (issue 28), with the real git: NO git command that decide classifies
 * read-only changes the file system or starts a program the allowlist did not name — across a seeded corpus of
 * repositories whose configuration is hostile, in every place configuration can come from (the repository's
 * config, config.worktree, a file it includes inside or outside the workspace, a submodule's git directory, the
 * developer's global file, a system file passed through).
 *
 * "A program the allowlist did not name": every configured program is a script that writes a marker outside the
 * repository, and the PATH starts with decoys of the programs git starts by default (gpg, gpgsm, ssh-keygen, ssh,
 * less, an editor, cat, false) that write the same marker. "Changes the file system": the repository, its git
 * directory, HOME and the included files are snapshotted (type, mode, content) before and after each run.
 *
 * Not vacuous: the corpus is shown to be hostile (the PLAIN command runs the marker program in many repositories),
 * and many commands are classified read-only and run, also under hostile developer configuration (which the
 * classification trusts and the hardened argv must neutralise).
 */

type Scope = 'repo' | 'worktree' | 'include-inside' | 'include-outside' | 'submodule' | 'global' | 'system';
const REPOSITORY_SCOPES: readonly Scope[] = ['repo', 'worktree', 'include-inside', 'include-outside', 'submodule'];
const OPERATOR_SCOPES: readonly Scope[] = ['global', 'system'];

interface Arming {
  readonly name: string;
  readonly entries: readonly (readonly [string, string])[];
  /** Only meaningful in these scopes (trace2 is read from the developer's files only). */
  readonly scopes?: readonly Scope[];
}

/** H: the marker program; HOOKS: a directory where every hook is the marker program; MARKER: the marker file. */
const HOSTILE: readonly Arming[] = [
  { name: 'openpgp verifier + %G? format', entries: [['gpg.program', 'H'], ['format.pretty', '%H %G?']] },
  { name: 'verifier + %G? alias', entries: [['gpg.program', 'H'], ['pretty.sig', '%G? %s'], ['format.pretty', 'sig']] },
  { name: 'ssh verifier', entries: [['gpg.ssh.program', 'H'], ['gpg.ssh.allowedSignersFile', '/dev/null'], ['format.pretty', '%G?']] },
  { name: 'x509 verifier', entries: [['gpg.x509.program', 'H'], ['format.pretty', '%G?']] },
  { name: 'default verifiers on the PATH', entries: [['format.pretty', '%G?'], ['gpg.ssh.allowedSignersFile', '/dev/null']] },
  { name: 'log.showSignature', entries: [['log.showSignature', 'true'], ['gpg.program', 'H']] },
  { name: 'fsmonitor', entries: [['core.fsmonitor', 'H']] },
  { name: 'filter driver', entries: [['filter.ff.clean', 'H'], ['filter.ff.smudge', 'H']] },
  { name: 'textconv driver', entries: [['diff.tc.textconv', 'H']] },
  { name: 'external diff', entries: [['diff.external', 'H'], ['diff.tc.command', 'H']] },
  { name: 'pager', entries: [['core.pager', 'H'], ['pager.log', 'H'], ['pager.status', 'true']] },
  { name: 'hooks', entries: [['core.hooksPath', 'HOOKS']] },
  { name: 'credential helper and askpass', entries: [['credential.helper', '!H'], ['core.askPass', 'H']] },
  { name: 'ssh command', entries: [['core.sshCommand', 'H'], ['remote.origin.url', 'ssh://example.invalid/x']] },
  { name: 'editors', entries: [['core.editor', 'H'], ['sequence.editor', 'H']] },
  { name: 'aliases over builtins', entries: [['alias.log', '!H'], ['alias.status', '!H']] },
  { name: 'merge driver', entries: [['merge.x.driver', 'H']] },
  { name: 'trace2 target', entries: [['trace2.normalTarget', 'MARKER']], scopes: OPERATOR_SCOPES },
  { name: 'work tree outside', entries: [['core.worktree', '/']], scopes: ['repo'] },
];

const BENIGN: readonly Arming[] = [
  { name: 'remote and branch', entries: [['remote.origin.url', 'https://example.invalid/r.git'], ['remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*'], ['branch.main.remote', 'origin'], ['branch.main.merge', 'refs/heads/main']] },
  { name: 'identity and colours', entries: [['user.name', 'Dev'], ['user.email', 'dev@example.invalid'], ['color.ui', 'always'], ['color.diff.meta', 'blue']] },
  { name: 'a harmless format', entries: [['format.pretty', '%h %s (%an)'], ['log.date', 'iso']] },
  { name: 'line endings', entries: [['core.autocrlf', 'input'], ['pull.rebase', 'true']] },
];

const COMMANDS: readonly (readonly string[])[] = [
  ['status'], ['status', '--porcelain'], ['status', '--ignore-submodules=none'], ['diff'], ['diff', 'HEAD~3'], ['diff', '--stat'],
  ['log', '-1'], ['log', '-3'], ['log', '-p', '-1', 'HEAD~3'], ['log', '--pretty=sig', '-3'], ['show', '-s', 'HEAD'], ['show', 'HEAD~3'],
  ['blame', 'a.txt'], ['grep', 'needle'], ['grep', '--recurse-submodules', 'needle'], ['ls-files', '-m'], ['ls-files', '--recurse-submodules'],
  ['describe', '--always', '--dirty'], ['rev-parse', 'HEAD'], ['cat-file', '-p', 'HEAD'], ['shortlog', '-s', 'HEAD'], ['for-each-ref'],
  ['branch', '-a', '-v'], ['tag', '-l'], ['reflog'], ['stash', 'list'], ['remote', '-v'], ['whatchanged', '-1'], ['diff-files', '-p'],
  ['diff-index', '-p', 'HEAD'], ['config', '--list'], ['check-attr', '-a', 'a.txt'], ['count-objects', '-v'],
];

const DECOYS = ['gpg', 'gpg2', 'gpgsm', 'ssh-keygen', 'ssh', 'less', 'more', 'vi', 'vim', 'nano', 'editor', 'pager', 'sensible-pager', 'cat', 'false'];

let base = '';
let template = '';
let marker = '';
let helper = '';
let hooks = '';
let decoys = '';

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-git-prop-')));
  marker = path.join(base, 'marker');
  helper = path.join(base, 'helper.sh');
  hooks = path.join(base, 'hooks');
  decoys = path.join(base, 'decoys');
  writeMarkerProgram(helper, marker);
  fs.mkdirSync(hooks);
  for (const h of ['post-index-change', 'pre-commit', 'post-checkout', 'reference-transaction', 'fsmonitor-watchman', 'pre-auto-gc', 'post-rewrite']) writeMarkerProgram(path.join(hooks, h), marker);
  fs.mkdirSync(decoys);
  for (const d of DECOYS) writeMarkerProgram(path.join(decoys, d), marker);
  template = path.join(base, 'template');
  makeSignedRepo(path.join(template, 'ws'), { submodule: true });
  fs.mkdirSync(path.join(template, 'home'));
  fs.mkdirSync(path.join(template, 'etc'));
}, 120_000);
afterAll(() => {
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** Every entry under `dir`: type, mode, and content (a hash) or link target. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (e.isSymbolicLink()) out.set(rel, `link ${fs.readlinkSync(p)}`);
      else if (e.isDirectory()) {
        out.set(rel, `dir ${st.mode}`);
        walk(p);
      } else out.set(rel, `file ${st.mode} ${createHash('sha1').update(fs.readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return out;
}

interface Repo {
  readonly dir: string;
  readonly ws: string;
  readonly parentEnv: Record<string, string>;
  readonly childEnvAllowlist: string[];
  readonly hostile: readonly string[];
  readonly operatorHostile: boolean;
}

function arm(dir: string, ws: string, scope: Scope, entries: readonly (readonly [string, string])[]): void {
  const value = (v: string) => v.replace('HOOKS', hooks).replace('MARKER', marker).replace(/^(!?)H$/, `$1${helper}`);
  const setIn = (file: string) => {
    if (!fs.existsSync(file)) fs.writeFileSync(file, '');
    for (const [k, v] of entries) git(['config', '--file', file, '--add', k, value(v)], ws);
  };
  switch (scope) {
    case 'repo': return setIn(path.join(ws, '.git', 'config'));
    case 'worktree':
      git(['config', 'extensions.worktreeConfig', 'true'], ws);
      return setIn(path.join(ws, '.git', 'config.worktree'));
    case 'include-inside':
    case 'include-outside': {
      const inc = scope === 'include-inside' ? path.join(ws, 'team.gitconfig') : path.join(dir, 'etc', 'team.gitconfig');
      setIn(inc);
      git(['config', '--add', 'include.path', inc], ws);
      return;
    }
    case 'submodule': return setIn(path.join(ws, '.git', 'modules', 'sub', 'config'));
    case 'global': return setIn(path.join(dir, 'home', '.gitconfig'));
    case 'system': return setIn(path.join(dir, 'etc', 'gitconfig'));
  }
}

function makeRepo(n: number, rnd: () => number): Repo {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const dir = path.join(base, `repo${n}`);
  fs.cpSync(template, dir, { recursive: true });
  const ws = path.join(dir, 'ws');
  // The submodule's git file and core.worktree point by relative paths, so the copy is self-contained.
  const hostile: string[] = [];
  let operatorHostile = false;
  for (const a of [pick(BENIGN), ...(rnd() < 0.5 ? [pick(BENIGN)] : [])]) arm(dir, ws, pick(REPOSITORY_SCOPES), a.entries);
  const count = n % 4 === 0 ? 0 : 1 + Math.floor(rnd() * 2);
  for (let i = 0; i < count; i++) {
    const a = pick(HOSTILE);
    // Half of the hostile configuration goes where the developer keeps theirs (trusted by the classification).
    const scope = pick(a.scopes ?? (rnd() < 0.5 ? OPERATOR_SCOPES : REPOSITORY_SCOPES));
    arm(dir, ws, scope, a.entries);
    hostile.push(`${a.name} in ${scope}`);
    if (OPERATOR_SCOPES.includes(scope)) operatorHostile = true;
  }
  // A stat the index has not recorded: refreshes run filters, fsmonitor and index hooks.
  for (const f of ['a.txt', '.gitattributes']) fs.utimesSync(path.join(ws, f), new Date(2002, 0, 1 + n), new Date(2002, 0, 1 + n));
  const parentEnv = { PATH: `${decoys}:${GIT_BASE_ENV.PATH}`, HOME: path.join(dir, 'home'), GIT_CONFIG_SYSTEM: path.join(dir, 'etc', 'gitconfig') };
  return { dir, ws, parentEnv, childEnvAllowlist: ['PATH', 'HOME', 'GIT_CONFIG_SYSTEM'], hostile, operatorHostile };
}

/** Runs an argv with exactly the environment the executor gives a child; returns whether the marker appeared. */
function runs(repo: Repo, argv: readonly string[], policyEnv: Record<string, string>): boolean {
  fs.rmSync(marker, { force: true });
  spawnSync(argv[0]!, argv.slice(1), { cwd: repo.ws, env: policyEnv, encoding: 'utf8', timeout: 20_000 });
  return fs.existsSync(marker);
}

describe('read-only git never writes or starts an unnamed program, whatever the configuration', () => {
  it('holds across a seeded corpus of hostile repositories (real git)', () => {
    const seed = 2828;
    const rnd = mulberry32(seed);
    let readOnlyRuns = 0;
    let readOnlyRunsUnderHostileDeveloperConfig = 0;
    let refused = 0;
    const liveRepos = new Set<string>();
    const REPOS = 24;
    for (let n = 0; n < REPOS; n++) {
      const repo = makeRepo(n, rnd);
      const policy = parsePolicy({ root: repo.ws, allowCommands: ['git'], mode: 'readOnly', childEnvAllowlist: repo.childEnvAllowlist });
      const env = { ...NON_INTERACTIVE_ENV, ...buildChildEnv({ parentEnv: repo.parentEnv, allowlist: perCallEnvAllowlist(policy.childEnvAllowlist, undefined) }) };
      const commands = [...COMMANDS].sort(() => rnd() - 0.5).slice(0, 10);
      for (const args of commands) {
        const where = `seed ${seed}, repo ${n} [${repo.hostile.join('; ') || 'benign'}], git ${args.join(' ')}`;
        const d = decideCommand({ command: ['git', ...args] }, policy, { parentEnv: repo.parentEnv });
        if (d.verdict.kind !== 'allow') {
          expect(d.verdict, where).toMatchObject({ kind: 'deny', code: 'MODE_READ_ONLY' });
          refused++;
        } else {
          expect(d.plan!.readOnly, where).toBe(true);
          const before = snapshot(repo.dir);
          expect(runs(repo, d.plan!.spawnArgv[0]!, env), `${where}: a read-only command started a program (${fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').replace(/\n/g, ' | ') : ''})`).toBe(false);
          const after = snapshot(repo.dir);
          const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
          expect(changed, `${where}: a read-only command changed the file system`).toEqual([]);
          readOnlyRuns++;
          if (repo.operatorHostile) readOnlyRunsUnderHostileDeveloperConfig++;
        }
        // The corpus is hostile: the same command without the server's judgement runs the agent's program.
        // (Once per repository is enough, and keeps the run short.)
        const key = `${n}: ${repo.hostile.join('; ')}`;
        if (repo.hostile.length && !liveRepos.has(key) && runs(repo, ['git', ...args], env)) liveRepos.add(key);
      }
    }
    console.log(`read-only runs ${readOnlyRuns}, under hostile developer config ${readOnlyRunsUnderHostileDeveloperConfig}, refused ${refused}, live hostile repositories ${liveRepos.size}`);
    expect(readOnlyRuns).toBeGreaterThan(80);
    expect(readOnlyRunsUnderHostileDeveloperConfig).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
    expect(liveRepos.size, [...liveRepos].join('\n')).toBeGreaterThan(8);
  }, 600_000);
});
