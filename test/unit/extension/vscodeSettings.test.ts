import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings } from '../../../src/core/config/settings';
import { settingsFromVscode, VSCODE_SETTING_KEYS, type InspectedSettings } from '../../../src/core/config/vscodeSettings';
import { DEFAULT_ALLOW_COMMANDS } from '../../../src/core/policy';

/** The policy the server would run with: the layer goes through the same resolveSettings as every other source. */
function policyOf(inspected: InspectedSettings) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-vscode-settings-'));
  try {
    const { layer, ignored } = settingsFromVscode(inspected);
    return { policy: resolveSettings([{ cwd: root }, layer]).policy, layer, ignored };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

describe('VS Code settings -> policy: defaults', () => {
  it('asks before everything by default (mode confirm), unlike the CLI', () => {
    const { policy, ignored } = policyOf({});
    expect(policy.mode).toBe('confirm');
    expect(policy.isolation).toBe('auto');
    expect(policy.network).toBe('fetch');
    expect(policy.allowCommands).toEqual([...DEFAULT_ALLOW_COMMANDS]);
    expect(ignored).toEqual([]);
  });

  it('takes every value from user settings', () => {
    const { policy } = policyOf({
      mode: { globalValue: 'auto' },
      isolation: { globalValue: 'none' },
      'timeout.default': { globalValue: 10 },
      'timeout.max': { globalValue: 60 },
      concurrency: { globalValue: 2 },
      outputLimitBytes: { globalValue: 4096 },
      allowCommands: { globalValue: ['echo', 'touch'] },
      allowPatterns: { globalValue: ['git-[a-z]+'] },
      autoApprove: { globalValue: ['touch x'] },
      childEnvAllowlist: { globalValue: ['LANG'] },
      disableTools: { globalValue: ['cmdshell'] },
      approvalTimeout: { globalValue: 45 },
    });
    expect(policy).toMatchObject({
      mode: 'auto', isolation: 'none', defaultTimeoutSeconds: 10, maxTimeoutSeconds: 60, concurrency: 2,
      outputLimitBytes: 4096, allowCommands: ['echo', 'touch'], allowPatterns: ['git-[a-z]+'], autoApprove: ['touch x'],
      childEnvAllowlist: ['LANG'], disableTools: ['cmdshell'], approvalTimeoutSeconds: 45,
    });
  });
});

describe('VS Code settings -> policy: a cloned repository cannot loosen the policy', () => {
  it('stops a workspace .vscode/settings.json from switching on auto-approval with mode auto', () => {
    const { policy, ignored } = policyOf({ mode: { workspaceValue: 'auto' } });
    expect(policy.mode).toBe('confirm');
    expect(ignored).toEqual([expect.objectContaining({ setting: 'guardedShell.mode', scope: 'workspace', value: 'auto' })]);
    expect(ignored[0]!.reason).toMatch(/loosen/);
  });

  it('stops a folder setting from relaxing confirm to confirmChanges', () => {
    const { policy, ignored } = policyOf({ mode: { globalValue: 'confirm', workspaceFolderValue: 'confirmChanges' } });
    expect(policy.mode).toBe('confirm');
    expect(ignored[0]).toMatchObject({ scope: 'workspaceFolder', value: 'confirmChanges' });
  });

  it('stops a workspace from turning the sandbox off with isolation none', () => {
    const { policy, ignored } = policyOf({ isolation: { globalValue: 'required', workspaceValue: 'none' } });
    expect(policy.isolation).toBe('required');
    expect(ignored).toHaveLength(1);
  });

  it('stops a workspace from allowing the network', () => {
    expect(policyOf({ network: { workspaceValue: 'allow' } }).policy.network).toBe('fetch');
  });

  it('stops a workspace from trading network fetch for domains, or domains for fetch (each lets someone reach more)', () => {
    let r = policyOf({ network: { globalValue: 'fetch', workspaceValue: 'domains' } });
    expect(r.policy.network).toBe('fetch');
    expect(r.ignored[0]).toMatchObject({ setting: 'guardedShell.network', value: 'domains' });
    r = policyOf({ network: { globalValue: 'domains', workspaceValue: 'fetch' } });
    expect(r.policy.network).toBe('domains');
    expect(r.ignored).toHaveLength(1);
    // Stricter everywhere: taken.
    expect(policyOf({ network: { globalValue: 'allow', workspaceValue: 'domains' } }).policy.network).toBe('domains');
    expect(policyOf({ network: { globalValue: 'domains', workspaceValue: 'deny' } }).policy.network).toBe('deny');
  });

  it('takes the fetch address exceptions (loopback, private) from user settings only', () => {
    const { policy, ignored } = policyOf({ 'fetch.allowLoopback': { globalValue: true }, 'fetch.allowPrivate': { workspaceValue: true } });
    expect(policy.fetch).toMatchObject({ allowLoopback: true, allowPrivate: false });
    expect(ignored).toEqual([expect.objectContaining({ setting: 'guardedShell.fetch.allowPrivate', scope: 'workspace' })]);
  });

  it('stops a workspace from adding hosts to the allowed domains or presets; it may only narrow them', () => {
    const { policy, ignored } = policyOf({
      'domains.allowed': { globalValue: ['*.example.org', 'pypi.org'], workspaceValue: ['api.example.org', 'evil.test', 'example.org'] },
      'domains.presets': { globalValue: ['npm'], workspaceValue: ['npm', 'github'] },
    });
    expect(policy.allowedDomains).toEqual(['api.example.org']);
    expect(policy.domainPresets).toEqual(['npm']);
    expect(ignored).toEqual([
      expect.objectContaining({ setting: 'guardedShell.domains.allowed', value: ['evil.test', 'example.org'] }),
      expect.objectContaining({ setting: 'guardedShell.domains.presets', value: ['github'] }),
    ]);
  });

  it('a workspace that names only presets drops the user\'s other hosts there (narrowing), and may add denied domains', () => {
    const { policy, ignored } = policyOf({
      'domains.allowed': { globalValue: ['registry.npmjs.org', 'internal.example'] },
      'domains.presets': { workspaceValue: ['npm'] },
      'domains.denied': { globalValue: ['a.test'], workspaceValue: ['b.test'] },
    });
    expect(policy.allowedDomains).toEqual([]);
    expect(policy.domainPresets).toEqual(['npm']); // every host of it is on the user's list
    expect(policy.deniedDomains).toEqual(['a.test', 'b.test']);
    expect(ignored).toEqual([]);
  });

  it('without a workspace value the user\'s lists apply as they are; a bad entry is dropped alone, reported', () => {
    const { policy, ignored } = policyOf({ 'domains.allowed': { globalValue: ['ok.example', 'http://bad.example'] }, 'domains.presets': { globalValue: ['pypi', 'nosuch'] } });
    expect(policy.allowedDomains).toEqual(['ok.example']);
    expect(policy.domainPresets).toEqual(['pypi']);
    expect(ignored.map((i) => i.value)).toEqual(['http://bad.example', 'nosuch']);
  });

  it('stops a workspace from adding commands (curl, sh) to the allowlist', () => {
    const { policy, ignored } = policyOf({ allowCommands: { globalValue: ['ls', 'cat'], workspaceValue: ['ls', 'curl', 'sh'] } });
    expect(policy.allowCommands).toEqual(['ls']);
    expect(ignored[0]).toMatchObject({ setting: 'guardedShell.allowCommands', value: ['curl', 'sh'] });
  });

  it('stops a workspace from adding commands beyond the built-in list when the user set none', () => {
    const { policy } = policyOf({ allowCommands: { workspaceValue: ['cat', 'python3'] } });
    expect(policy.allowCommands).toEqual(['cat']);
    expect(policy.allowPatterns).toEqual([]);
  });

  it('stops a workspace from widening the allowlist with a catch-all pattern', () => {
    const { policy, ignored } = policyOf({ allowPatterns: { workspaceValue: ['.*'] } });
    expect(policy.allowPatterns).toEqual([]);
    expect(policy.allowCommands).toEqual([...DEFAULT_ALLOW_COMMANDS]);
    expect(ignored[0]).toMatchObject({ setting: 'guardedShell.allowPatterns', scope: 'workspace' });
  });

  it('stops a workspace from auto-approving a command line', () => {
    const { policy, ignored } = policyOf({ autoApprove: { workspaceValue: ['rm -rf .'] } });
    expect(policy.autoApprove).toEqual([]);
    expect(ignored[0]!.reason).toMatch(/user settings only/);
  });

  it('stops a workspace from passing secrets to children through the environment allowlist', () => {
    const { policy } = policyOf({ childEnvAllowlist: { workspaceFolderValue: ['AWS_SECRET_ACCESS_KEY'] } });
    expect(policy.childEnvAllowlist).toEqual([]);
  });

  it('stops a workspace from pointing the audit log at a file of its choice', () => {
    const { layer, ignored } = policyOf({ auditLog: { workspaceValue: '/home/someone/.bashrc' } });
    expect(layer.auditLog).toBeUndefined();
    expect(ignored[0]).toMatchObject({ setting: 'guardedShell.auditLog' });
  });

  it('stops a workspace from raising the timeout, output, concurrency and approval-wait limits', () => {
    const { policy, ignored } = policyOf({
      'timeout.default': { workspaceValue: 200 },
      'timeout.max': { workspaceValue: 3000 },
      concurrency: { globalValue: 2, workspaceValue: 16 },
      outputLimitBytes: { workspaceValue: 1e9 },
      approvalTimeout: { workspaceValue: 100000 },
    });
    expect(policy).toMatchObject({ defaultTimeoutSeconds: 30, maxTimeoutSeconds: 300, concurrency: 2, outputLimitBytes: 1024 * 1024, approvalTimeoutSeconds: 300 });
    expect(ignored).toHaveLength(5);
  });
});

describe('VS Code settings -> policy: a workspace may tighten', () => {
  it('applies a stricter workspace mode and a still stricter folder mode', () => {
    expect(policyOf({ mode: { globalValue: 'auto', workspaceValue: 'confirmChanges' } }).policy.mode).toBe('confirmChanges');
    // readOnly is stricter than confirm for changes but looser for read-only commands: both apply (strictest per action).
    expect(policyOf({ mode: { globalValue: 'auto', workspaceValue: 'confirm', workspaceFolderValue: 'readOnly' } }).policy.mode).toEqual(['readOnly', 'confirm']);
  });

  it('applies a stricter isolation and network', () => {
    const { policy } = policyOf({ isolation: { globalValue: 'none', workspaceValue: 'required' }, network: { globalValue: 'allow', workspaceValue: 'deny' } });
    expect(policy.isolation).toBe('required');
    expect(policy.network).toBe('deny');
  });

  it('narrows the allowlist to the intersection and drops the user patterns', () => {
    const { policy } = policyOf({
      allowCommands: { globalValue: ['ls', 'cat'], workspaceValue: ['cat', 'git-log'] },
      allowPatterns: { globalValue: ['git-[a-z]+'] },
    });
    expect(policy.allowCommands).toEqual(['cat', 'git-log']);
    expect(policy.allowPatterns).toEqual([]);
  });

  it('lowers limits, and a lowered maximum pulls the default timeout down with it', () => {
    const { policy } = policyOf({ 'timeout.max': { workspaceValue: 10 }, concurrency: { workspaceFolderValue: 1 }, outputLimitBytes: { workspaceValue: 1000 } });
    expect(policy).toMatchObject({ maxTimeoutSeconds: 10, defaultTimeoutSeconds: 10, concurrency: 1, outputLimitBytes: 1000 });
  });

  it('adds disabled tools and protected paths to the user ones', () => {
    const { policy } = policyOf({
      disableTools: { globalValue: ['cmdshell'], workspaceValue: ['writeFile'] },
      protectedPaths: { workspaceValue: ['.env', 'secrets/**'], workspaceFolderValue: ['.npmrc'] },
    });
    expect(policy.disableTools).toEqual(['cmdshell', 'writeFile']);
    expect(policy.protectedPaths).toEqual(['.env', 'secrets/**', '.npmrc']);
  });
});

describe('VS Code settings -> policy: invalid values', () => {
  it('ignores a mistyped user value and names it, keeping the safe default', () => {
    const { policy, ignored } = policyOf({ mode: { globalValue: 'yolo' }, concurrency: { globalValue: '8' } });
    expect(policy.mode).toBe('confirm');
    expect(policy.concurrency).toBe(4);
    expect(ignored.map((i) => i.setting)).toEqual(['guardedShell.mode', 'guardedShell.concurrency']);
  });

  it('drops a command name carrying shell metacharacters (rm;sh) and keeps the rest, rather than widening to the default list', () => {
    const { policy, ignored } = policyOf({ allowCommands: { globalValue: ['ls', 'rm;sh'] } });
    expect(policy.allowCommands).toEqual(['ls']);
    expect(ignored[0]).toMatchObject({ setting: 'guardedShell.allowCommands', value: 'rm;sh' });
    expect(ignored[0]!.reason).toMatch(/metacharacters/);
  });

  it('refuses a relative audit log path (it would land wherever the server happens to run)', () => {
    const { layer, ignored } = policyOf({ auditLog: { globalValue: 'audit.jsonl' } });
    expect(layer.auditLog).toBeUndefined();
    expect(ignored[0]!.reason).toMatch(/absolute/);
  });

  it('caps a user default timeout above the maximum at the maximum', () => {
    const { policy, ignored } = policyOf({ 'timeout.default': { globalValue: 500 } });
    expect(policy.defaultTimeoutSeconds).toBe(300);
    expect(ignored).toHaveLength(1);
  });
});

describe('the manifest matches this module', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
  const props: Record<string, { default?: unknown; markdownDescription?: string; enum?: unknown[]; markdownEnumDescriptions?: unknown[] }> =
    pkg.contributes?.configuration?.properties ?? {};

  it('declares every setting read here, each with a markdown description (and enum descriptions)', () => {
    for (const key of VSCODE_SETTING_KEYS) {
      const p = props[`guardedShell.${key}`];
      expect(p, key).toBeDefined();
      expect(p!.markdownDescription, key).toBeTruthy();
      if (p!.enum) expect(p!.markdownEnumDescriptions?.length, key).toBe(p!.enum.length);
    }
  });

  it('shows the same defaults VS Code users get (mode confirm, the built-in allowlist)', () => {
    expect(props['guardedShell.mode']!.default).toBe('confirm');
    expect(props['guardedShell.isolation']!.default).toBe('auto');
    expect(props['guardedShell.allowCommands']!.default).toEqual([...DEFAULT_ALLOW_COMMANDS]);
    expect(props['guardedShell.timeout.default']!.default).toBe(30);
    expect(props['guardedShell.timeout.max']!.default).toBe(300);
    expect(props['guardedShell.concurrency']!.default).toBe(4);
  });
});
