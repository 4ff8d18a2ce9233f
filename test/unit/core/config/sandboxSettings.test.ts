import { describe, expect, it } from 'vitest';
import { settingsFromVscode } from '../../../../src/core/config/vscodeSettings';
import { parseFlags } from '../../../../src/cli/flags';
import { parseConfigFile } from '../../../../src/core/config/configFile';
import { sandboxPath } from '../../../../src/server/isolation';

describe('sandbox path settings', () => {
  it('stops a cloned repository from turning on git writes in the sandbox (workspace allowGitWrites ignored)', () => {
    const { layer, ignored } = settingsFromVscode({ 'sandbox.allowGitWrites': { workspaceValue: true } });
    expect(layer.allowGitWrites).toBe(false);
    expect(ignored.map((i) => i.setting)).toContain('guardedShell.sandbox.allowGitWrites');
  });

  it('takes git writes from user settings, and a workspace may turn them off again', () => {
    expect(settingsFromVscode({ 'sandbox.allowGitWrites': { globalValue: true } }).layer.allowGitWrites).toBe(true);
    expect(settingsFromVscode({ 'sandbox.allowGitWrites': { globalValue: true, workspaceValue: false } }).layer.allowGitWrites).toBe(false);
  });

  it('adds workspace hidden and read-only paths to the user\'s (they only tighten)', () => {
    const { layer } = settingsFromVscode({
      'sandbox.hiddenPaths': { globalValue: ['~/.config/app'], workspaceValue: ['secrets'] },
      'sandbox.readOnlyPaths': { workspaceValue: ['deploy'] },
    });
    expect(layer.sandboxHiddenPaths).toEqual(['~/.config/app', 'secrets']);
    expect(layer.sandboxReadOnlyPaths).toEqual(['deploy']);
  });

  it('reads --hide, --read-only and --allow-git-writes', () => {
    const { layer } = parseFlags(['--hide', '/a', '/b', '--read-only', 'deploy', '--allow-git-writes']);
    expect(layer).toMatchObject({ sandboxHiddenPaths: ['/a', '/b'], sandboxReadOnlyPaths: ['deploy'], allowGitWrites: true });
  });

  it('reads hiddenPaths, readOnlyPaths and allowGitWrites from the config file', () => {
    const layer = parseConfigFile(JSON.stringify({ hiddenPaths: ['/x'], readOnlyPaths: ['d'], allowGitWrites: false }), '/tmp/c.json');
    expect(layer).toMatchObject({ sandboxHiddenPaths: ['/x'], sandboxReadOnlyPaths: ['d'], allowGitWrites: false });
  });

  it('resolves sandbox paths: ~ below home, relative below the root, absolute kept', () => {
    expect(sandboxPath('/ws', '~/.aws', '/home/u')).toBe('/home/u/.aws');
    expect(sandboxPath('/ws', 'deploy', '/home/u')).toBe('/ws/deploy');
    expect(sandboxPath('/ws', '/etc/app', '/home/u')).toBe('/etc/app');
  });
});
