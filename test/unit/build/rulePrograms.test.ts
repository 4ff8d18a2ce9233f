import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INSTALL, RULE_PROGRAM_PACKAGES, RULE_PROGRAMS } from '../../helpers/capabilities';
import { REPO } from '../../helpers/serverProcess';

/**
 * One list of the programs the rules are proven against (test/helpers/rule-programs.txt): rsync's rule once went
 * untested because CI did not install rsync. The CI script installs from the list itself, the capability probe
 * requires every program on it, and the programs the issue-28 suites run are on it.
 */

const ciRun = fs.readFileSync(path.join(REPO, '.ci', 'run'), 'utf8');

describe('the one list of rule programs', () => {
  it('is what .ci/run installs: its loop, run on a machine that has none of them, asks for every package', () => {
    const loop = /^while read -r program package; do[\s\S]*?^done < test\/helpers\/rule-programs\.txt$/m.exec(ciRun);
    expect(loop, '.ci/run reads test/helpers/rule-programs.txt').not.toBeNull();
    const r = spawnSync('/bin/bash', ['-c', `need=()\n${loop![0]}\nprintf '%s\\n' "\${need[@]}"`], { cwd: REPO, encoding: 'utf8', env: { PATH: '/nonexistent' } });
    expect(r.status, r.stderr).toBe(0);
    expect(new Set(r.stdout.trim().split('\n'))).toEqual(new Set(RULE_PROGRAM_PACKAGES.values()));
  });

  it('names no rule program by hand anywhere else in .ci/run', () => {
    for (const program of ['rsync', 'original-awk', 'mawk', 'openssl', 'run-parts', 'g++', 'binutils', 'gawk', 'libarchive-tools']) {
      expect(ciRun.includes(program), program).toBe(false);
    }
  });

  it('holds the programs the forwarding, git and rsync rules are proven against, and the install hint names their packages', () => {
    for (const program of ['git', 'gcc', 'g++', 'cc', 'ld', 'rsync']) expect(RULE_PROGRAMS).toContain(program);
    for (const pkg of RULE_PROGRAM_PACKAGES.values()) expect(INSTALL['rule-programs'].install).toContain(pkg);
  });
});
