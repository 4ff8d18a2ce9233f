import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Real git repositories for the read-only git suites: a small history whose newest commits carry an OpenPGP, an
 * SSH and an X.509 signature (fake ones: git only has to see the signature to start the configured verifier), a
 * tag, a dirty tracked file with an old mtime (so an index refresh runs filters and fsmonitor), attributes that
 * select a diff and a filter driver, and optionally a submodule whose git directory lives in .git/modules.
 */

export const GIT_IDENTITY = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
export const GIT_BASE_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/nonexistent-home-gs', GIT_CONFIG_NOSYSTEM: '1', ...GIT_IDENTITY };

export function git(args: readonly string[], cwd: string, env: Readonly<Record<string, string>> = GIT_BASE_ENV): string {
  const r = spawnSync('git', args, { cwd, env, encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${r.stderr}`);
  return r.stdout;
}

const SIGNATURES = {
  openpgp: ['-----BEGIN PGP SIGNATURE-----', '', 'AAAA', '-----END PGP SIGNATURE-----'],
  ssh: ['-----BEGIN SSH SIGNATURE-----', 'AAAA', '-----END SSH SIGNATURE-----'],
  x509: ['-----BEGIN SIGNED MESSAGE-----', 'AAAA', '-----END SIGNED MESSAGE-----'],
};

/** Adds a commit on HEAD carrying a (fake) signature of the given kind; git verifies it with that kind's program. */
function commitSigned(repo: string, kind: keyof typeof SIGNATURES, message: string): void {
  const tree = git(['rev-parse', 'HEAD^{tree}'], repo).trim();
  const parent = git(['rev-parse', 'HEAD'], repo).trim();
  const sig = SIGNATURES[kind].map((l, i) => (i === 0 ? `gpgsig ${l}` : ` ${l}`)).join('\n');
  const body = `tree ${tree}\nparent ${parent}\nauthor t <t@example.invalid> 1700000000 +0000\ncommitter t <t@example.invalid> 1700000000 +0000\n${sig}\n\n${message}\n`;
  const file = path.join(repo, '.git', 'commit-body');
  fs.writeFileSync(file, body);
  const id = git(['hash-object', '-t', 'commit', '-w', file], repo).trim();
  fs.rmSync(file);
  git(['update-ref', 'HEAD', id], repo);
}

export interface RepoOptions {
  /** Add a submodule at sub/ whose git directory is .git/modules/sub. */
  readonly submodule?: boolean;
}

/** Creates the repository in `repo` (an empty or missing directory). */
export function makeSignedRepo(repo: string, options: RepoOptions = {}): void {
  fs.mkdirSync(repo, { recursive: true });
  git(['init', '-q', '-b', 'main', '.'], repo);
  fs.writeFileSync(path.join(repo, 'a.txt'), 'hi\nneedle\n');
  fs.writeFileSync(path.join(repo, '.gitattributes'), '*.txt diff=tc filter=ff\n');
  git(['add', '.'], repo);
  git(['commit', '-qm', 'one'], repo);
  git(['tag', 'v1'], repo);
  if (options.submodule) {
    const origin = `${repo}-sub-origin`;
    fs.mkdirSync(origin);
    git(['init', '-q', '-b', 'main', '.'], origin);
    fs.writeFileSync(path.join(origin, 's.txt'), 'needle in sub\n');
    git(['add', '.'], origin);
    git(['commit', '-qm', 'sub'], origin);
    git(['-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', origin, 'sub'], repo);
    git(['commit', '-qm', 'add sub'], repo);
    fs.rmSync(origin, { recursive: true, force: true });
  }
  commitSigned(repo, 'x509', 'x509 signed');
  commitSigned(repo, 'ssh', 'ssh signed');
  commitSigned(repo, 'openpgp', 'openpgp signed');
  fs.appendFileSync(path.join(repo, 'a.txt'), 'more\n');
  fs.utimesSync(path.join(repo, 'a.txt'), new Date('2001-01-01'), new Date('2001-01-01'));
}

/**
 * A helper program that appends a line to `marker` (and passes its input through, like a filter would). By
 * absolute path only: it may itself be a decoy called `cat` first on the PATH.
 */
export function writeMarkerProgram(file: string, marker: string): void {
  fs.writeFileSync(file, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexec /bin/cat\n`, { mode: 0o755 });
}
