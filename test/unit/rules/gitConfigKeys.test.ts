import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { judgeGitConfiguration } from '../../../src/core/commands/gitConfig';
import { HARMLESS_GIT_KEYS, harmlessFamilyOf, judgeRepositoryKey } from '../../../src/core/commands/rules/gitConfigKeys';

/**
 * The reviewed list of harmless repository configuration keys, family by family, and the keys that make read-only
 * git stop being read-only because the repository's own configuration names a program (the attack of issue 28:
 * gpg.program plus a %G format runs the agent's script on a plain `git log -1`). The real git proves the
 * programs run in gitConfig.real.test.ts and gitReadOnly.property.test.ts.
 */

const at = { root: '/ws', gitDir: '/ws/.git' };
/** A concrete key for a pattern (`*` → a name). */
const instance = (pattern: string) => pattern.replace(/\*/g, 'x');

describe('every family on the reviewed list', () => {
  for (const family of HARMLESS_GIT_KEYS) {
    it(`${family.family}: each listed key is harmless (${family.keys.join(', ')})`, () => {
      for (const key of family.keys) {
        expect(harmlessFamilyOf(instance(key))?.family).toBe(family.family);
        // git compares section and variable names in any case.
        expect(harmlessFamilyOf(instance(key).toUpperCase().replace(/\.X\./, '.x.'))?.family).toBe(family.family);
      }
      expect(family.why.length).toBeGreaterThan(20);
    });
  }
});

describe('keys that name a program, a driver or a file are not on the list (the call is not read-only)', () => {
  const hostile: [family: string, keys: string[]][] = [
    ['signature verification', ['gpg.program', 'gpg.openpgp.program', 'gpg.x509.program', 'gpg.ssh.program', 'gpg.ssh.defaultKeyCommand', 'gpg.ssh.allowedSignersFile', 'gpg.format', 'log.showSignature']],
    ['diff drivers', ['diff.external', 'diff.tc.textconv', 'diff.tc.command', 'diff.tool', 'diff.guitool', 'difftool.x.cmd']],
    ['filter drivers', ['filter.lfs.clean', 'filter.lfs.smudge', 'filter.lfs.process', 'filter.lfs.required']],
    ['merge drivers', ['merge.x.driver', 'merge.tool', 'mergetool.x.cmd']],
    ['pagers', ['core.pager', 'pager.log', 'pager.status']],
    ['fsmonitor', ['core.fsmonitor', 'core.fsmonitorHookVersion']],
    ['hooks', ['core.hooksPath', 'hook.x.command', 'hook.x.event']],
    ['credential helpers', ['credential.helper', 'credential.https://example.invalid.helper', 'core.askPass']],
    ['programs named *.command / *cmd', ['core.sshCommand', 'core.gitProxy', 'core.alternateRefsCommand', 'sendemail.sendmailcmd', 'sendemail.tocmd', 'imap.tunnel', 'uploadpack.packObjectsHook', 'trailer.x.command', 'trailer.x.cmd']],
    ['editors and browsers', ['core.editor', 'sequence.editor', 'web.browser', 'browser.x.cmd', 'man.x.cmd', 'help.browser']],
    ['aliases', ['alias.log', 'alias.st']],
    ['remote programs', ['remote.origin.uploadpack', 'remote.origin.receivepack', 'remote.origin.vcs', 'remote.origin.proxy', 'url.x.insteadOf', 'http.proxy', 'http.sslEngine']],
    ['submodule commands', ['submodule.x.update', 'submodule.recurse']],
    ['files written or read elsewhere', ['trace2.normalTarget', 'core.attributesFile', 'core.excludesFile', 'core.sharedRepository', 'gc.auto', 'protocol.file.allow', 'protocol.allow']],
    ['unknown keys (typos, new git features)', ['core.pagre', 'x.y', 'foo', 'core.worktreex', 'branchx.y', 'remote.url']],
  ];
  it.each(hostile)('%s', (_family, keys) => {
    for (const key of keys) {
      expect(harmlessFamilyOf(key), key).toBeUndefined();
      expect(judgeRepositoryKey(key, 'x', at), key).toMatch(/not on the reviewed list/);
    }
  });

  it('refuses a format with a signature placeholder (format.pretty, pretty.NAME), keeps other formats', () => {
    for (const key of ['format.pretty', 'pretty.sig']) {
      expect(judgeRepositoryKey(key, '%H %G?', at)).toMatch(/signature placeholder/);
      expect(judgeRepositoryKey(key, 'format:%GK', at)).toMatch(/signature placeholder/);
      expect(judgeRepositoryKey(key, '%h %s (%an)', at)).toBeUndefined();
    }
  });

  it('refuses core.worktree outside the workspace, keeps it inside (a submodule\'s ../../../sub)', () => {
    expect(judgeRepositoryKey('core.worktree', '../../../sub', { root: '/ws', gitDir: '/ws/.git/modules/sub' })).toBeUndefined();
    expect(judgeRepositoryKey('core.worktree', '/etc', at)).toMatch(/outside the workspace/);
    expect(judgeRepositoryKey('core.worktree', '../..', at)).toMatch(/outside the workspace/);
  });
});

describe('judgeGitConfiguration reads every file git will read', () => {
  let base = '';
  let root = '';
  let gitDir = '';
  let home = '';
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-gitkeys-')));
    root = path.join(base, 'ws');
    gitDir = path.join(root, '.git');
    home = path.join(base, 'home');
    fs.mkdirSync(path.join(gitDir, 'modules'), { recursive: true });
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote "origin"]\n\turl = https://example.invalid/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n\tvscode-merge-base = origin/main\n');
  });
  afterEach(() => {
    fs.rmSync(base, { recursive: true, force: true });
  });
  const repo = () => ({ gitDir, commonDir: gitDir });
  const judge = (env: Record<string, string> = { HOME: home }) => judgeGitConfiguration(repo(), { GIT_CONFIG_SYSTEM: path.join(base, 'no-system'), ...env }, root);
  const append = (file: string, text: string) => fs.appendFileSync(file, text);

  it('keeps a cloned repository\'s ordinary configuration read-only', () => {
    expect(judge()).toEqual({ filterDrivers: [] });
  });

  it('stops gpg.program with format.pretty=%G? in the repository\'s config', () => {
    append(path.join(gitDir, 'config'), '[gpg]\n\tprogram = /tmp/x\n[format]\n\tpretty = %G?\n');
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/gpg\.program is not on the reviewed list/) });
  });

  it.each([
    ['an include.path', '[include]\n\tpath = ../evil.inc\n'],
    ['an includeIf whose condition does not hold', '[includeIf "gitdir:/nowhere/"]\n\tpath = ../evil.inc\n'],
    ['a ~/ include into HOME', '[include]\n\tpath = ~/evil.inc\n'],
  ])('follows %s and judges the included file like the repository\'s own', (_t, include) => {
    fs.writeFileSync(path.join(root, 'evil.inc'), '[core]\n\tfsmonitor = /tmp/x\n');
    fs.writeFileSync(path.join(home, 'evil.inc'), '[core]\n\tfsmonitor = /tmp/x\n');
    append(path.join(gitDir, 'config'), include);
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/evil\.inc" line 2 sets core\.fsmonitor/) });
  });

  it('stops a key in config.worktree and in a submodule\'s (nested) git directory', () => {
    fs.writeFileSync(path.join(gitDir, 'config.worktree'), '[core]\n\tpager = /tmp/x\n');
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/config\.worktree" line 2 sets core\.pager/) });
    fs.rmSync(path.join(gitDir, 'config.worktree'));
    const nested = path.join(gitDir, 'modules', 'lib', 'a', 'modules', 'b');
    fs.mkdirSync(nested, { recursive: true });
    fs.writeFileSync(path.join(gitDir, 'modules', 'lib', 'a', 'HEAD'), 'x\n');
    fs.writeFileSync(path.join(gitDir, 'modules', 'lib', 'a', 'config'), '[core]\n\tworktree = ../../../../lib/a\n');
    expect(judge()).toEqual({ filterDrivers: [] });
    fs.writeFileSync(path.join(nested, 'config'), '[diff "x"]\n\ttextconv = /tmp/x\n');
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/modules\/b\/config" line 2 sets diff\.x\.textconv/) });
  });

  it('judges the developer\'s own files only for what the overrides cannot switch off (trace2), and collects their filters', () => {
    fs.writeFileSync(path.join(home, '.gitconfig'), '[gpg]\n\tprogram = /usr/bin/gpg\n[filter "lfs"]\n\tclean = git-lfs clean -- %f\n[alias]\n\tst = status\n');
    expect(judge()).toEqual({ filterDrivers: ['lfs'] });
    append(path.join(home, '.gitconfig'), '[trace2]\n\tnormalTarget = /tmp/trace\n');
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/trace2\.normaltarget makes git write trace output/) });
  });

  it('judges a developer file that lives inside the workspace like the repository\'s own', () => {
    fs.writeFileSync(path.join(root, 'global.cfg'), '[core]\n\tpager = /tmp/x\n');
    expect(judge({ GIT_CONFIG_GLOBAL: path.join(root, 'global.cfg') })).toMatchObject({ notReadOnly: expect.stringMatching(/core\.pager is not on/) });
  });

  it('stops configuration and trace files from the environment the operator passes through', () => {
    expect(judge({ GIT_CONFIG_PARAMETERS: "'core.pager'='x'" })).toMatchObject({ notReadOnly: expect.stringMatching(/GIT_CONFIG_PARAMETERS/) });
    expect(judge({ GIT_CONFIG_COUNT: '1' })).toMatchObject({ notReadOnly: expect.stringMatching(/GIT_CONFIG_COUNT/) });
    expect(judge({ GIT_TRACE: '/tmp/t' })).toMatchObject({ notReadOnly: expect.stringMatching(/GIT_TRACE=/) });
    expect(judge({ GIT_TRACE2_EVENT: 'af_unix:/tmp/s' })).toMatchObject({ notReadOnly: expect.stringMatching(/GIT_TRACE2_EVENT/) });
    expect(judge({ GIT_TRACE: '0' })).toEqual({ filterDrivers: [] });
  });

  it('fails closed on a file git could not read either (a parse error, a directory, too deep an include)', () => {
    fs.writeFileSync(path.join(root, 'bad.inc'), '[core\n');
    append(path.join(gitDir, 'config'), '[include]\n\tpath = ../bad.inc\n');
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/bad config line/) });
    fs.writeFileSync(path.join(gitDir, 'config'), '[include]\n\tpath = ../\n');
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/cannot be read \(EISDIR\)/) });
    for (let n = 0; n < 12; n++) fs.writeFileSync(path.join(root, `i${n}.inc`), `[include]\n\tpath = i${n + 1}.inc\n`);
    fs.writeFileSync(path.join(gitDir, 'config'), '[include]\n\tpath = ../i0.inc\n');
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/more than 10 deep/) });
  });

  it('fails closed on a symbolic link among the submodule git directories', () => {
    fs.symlinkSync(base, path.join(gitDir, 'modules', 'link'));
    expect(judge()).toMatchObject({ notReadOnly: expect.stringMatching(/symbolic link/) });
  });
});
