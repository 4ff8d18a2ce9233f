import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { failureSigns, sandboxHint, type HintFacts } from '../../src/core/commands/sandboxHint';
import { buildChildEnv, DEFAULT_SAFE_PATH } from '../../src/core/exec/env';
import { createExecutor } from '../../src/core/exec/executor';
import type { Executor } from '../../src/core/exec/types';
import { probeIsolation } from '../../src/core/isolation/probe';
import { selectSandbox } from '../../src/core/isolation/select';
import type { Sandbox, SandboxContext } from '../../src/core/isolation/types';
import { onPath } from '../helpers/capabilities';
import { describeWith } from '../helpers/needs';
import type { Launcher } from '../../src/core/exec/launch/contract';
import { createLinuxLauncher, probeLinuxContainment } from '../../src/core/exec/launch/linux';

/**
 * The sandbox hints are recognised from what the REAL programs print when the REAL sandbox stops them: git
 * writing a read-only .git, curl, wget, git, node, npm and Python without a network, make, sh, bash, env, node and
 * Python starting a program that is not on the commands' PATH. Each output is then classified by the pure
 * functions (failureSigns, sandboxHint), and the hint names the setting that lifts the limit — and nothing is said
 * when the same command fails for a reason of its own.
 */

let sandbox: Sandbox;
let launcher: Launcher;
let executor: Executor;
let base: string;
let ws: string;
let toolDir: string; // a folder on the "server's PATH" that commands do not get
const TOOL = 'gs-hint-tool';

const gitPath = () => onPath('git', DEFAULT_SAFE_PATH)[0] ?? 'git';
const which = (name: string) => onPath(name, DEFAULT_SAFE_PATH)[0] ?? onPath(name)[0] ?? name;

/** Runs argv in the real sandbox with the environment the server gives commands (no developer context). */
async function run(argv: string[], over: Partial<SandboxContext> = {}, extraEnv: Record<string, string> = {}): Promise<string> {
  const ctx: SandboxContext = { root: ws, cwd: ws, mode: 'auto', network: 'deny', home: path.join(base, 'home'), ...over };
  const env = { ...buildChildEnv({ parentEnv: {}, allowlist: [], platform: 'linux', offline: ctx.network === 'deny' }), ...extraEnv };
  const r = await executor.run({ launcher, stages: [launcher.prepare({ file: argv[0]!, args: argv.slice(1) }, ctx)], cwd: ws, env, timeoutMs: 60_000, outputLimitBytes: 1 << 20 });
  expect(r.outcome, `${argv.join(' ')} was expected to fail: ${r.stdout}${r.stderr}`).not.toBe('ok');
  return [r.stdout, r.stderr, r.error ?? ''].join('\n');
}

const facts = (over: Partial<HintFacts> = {}): HintFacts => ({
  sandboxed: true, host: 'vscode', allowGitWrites: false, workspaceReadOnly: false, network: 'fetch', commandsHaveNetwork: false,
  serverPath: `${toolDir}:${DEFAULT_SAFE_PATH}`, childPath: DEFAULT_SAFE_PATH, toolchainPath: false, toolchainSkipped: [], visible: () => true, ...over,
});

describeWith('bubblewrap', 'git', 'python3', 'hint-programs')('sandbox hints from the real programs in the real sandbox', () => {
  beforeAll(async () => {
    const probe = await probeIsolation('linux');
    const sel = selectSandbox('required', probe);
    if (!sel.sandbox) throw new Error(`bubblewrap must work here: ${sel.denial?.reason}`);
    sandbox = sel.sandbox;
    launcher = createLinuxLauncher({ containment: probeLinuxContainment(), sandbox });
    executor = createExecutor({ concurrency: 2, killGraceMs: 500 });
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-hints-')));
    ws = path.join(base, 'ws');
    fs.mkdirSync(ws);
    fs.mkdirSync(path.join(ws, '.git'));
    toolDir = path.join(base, 'home', '.tools', 'bin');
    fs.mkdirSync(toolDir, { recursive: true });
    fs.writeFileSync(path.join(toolDir, TOOL), '#!/bin/sh\necho tool\n', { mode: 0o755 });
    execFileSync(gitPath(), ['init', '-q', ws]);
    execFileSync(gitPath(), ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'first']);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(ws, 'Makefile'), `plain:\n\t${TOOL} --version\nshell:\n\t${TOOL} --version && echo done\n`);
    fs.writeFileSync(path.join(ws, 'via-env'), `#!/usr/bin/env ${TOOL}\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(ws, 'package.json'), '{"name":"x","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}}\n');
  });

  afterAll(async () => {
    await executor?.shutdown();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it('git add, commit and branch work in the sandbox (only .git\'s configuration and hooks are read-only)', async () => {
    const identity = { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    for (const args of [['add', 'a.txt'], ['commit', '-qm', 'x', '--allow-empty'], ['branch', 'b']]) {
      const c: SandboxContext = { root: ws, cwd: ws, mode: 'auto', network: 'deny', home: path.join(base, 'home') };
      const r = await executor.run({ launcher, stages: [launcher.prepare({ file: gitPath(), args }, c)], cwd: ws, env: { ...buildChildEnv({ parentEnv: {}, allowlist: [], platform: 'linux' }), ...identity }, timeoutMs: 15_000, outputLimitBytes: 1 << 20 });
      expect(r.outcome, `git ${args.join(' ')}: ${r.stderr}`).toBe('ok');
    }
  });

  it("git changing .git's read-only configuration (remote add, config): names sandbox.allowGitWrites, or --allow-git-writes standalone", async () => {
    // git renames its lock file over .git/config, which the sandbox binds read-only: EBUSY, not EROFS. (add, commit
    // and branch write the index, objects and refs, which are writable.)
    for (const args of [['remote', 'add', 'origin', 'https://example.com/x.git'], ['config', 'user.name', 'x']]) {
      const out = await run([gitPath(), ...args], {}, { GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' });
      expect(failureSigns(out).gitReadOnly, out).toBe(true);
      expect(sandboxHint(out, facts())).toMatchObject({ cause: 'git-read-only', text: expect.stringContaining('set guardedShell.sandbox.allowGitWrites to true in your user settings') });
      expect(sandboxHint(out, facts({ host: 'standalone' }))?.text).toContain('start the server with --allow-git-writes');
      // Not the sandbox's doing once git writes are allowed (or without a sandbox).
      expect(sandboxHint(out, facts({ allowGitWrites: true }))).toBeUndefined();
      expect(sandboxHint(out, facts({ sandboxed: false }))).toBeUndefined();
    }
  });

  it('a name lookup or a connection without a network (curl, wget, git, node, npm, Python): names guardedShell.network, or --network allow', async () => {
    const py = which('python3');
    const outputs = {
      curl: await run([which('curl'), '-sS', 'https://example.com/']),
      'curl to an address': await run([which('curl'), '-sS', 'http://192.0.2.1/']),
      wget: await run([which('wget'), '-O', '/dev/null', 'https://example.com/']),
      git: await run([gitPath(), 'ls-remote', 'https://example.com/x.git']),
      'node fetch': await run([process.execPath, '-e', 'fetch("https://example.com").catch((e) => { console.error(e.cause?.message ?? e); process.exit(1); })']),
      'node connect': await run([process.execPath, '-e', 'require("net").connect(80, "192.0.2.1").on("error", (e) => { console.error(e.message); process.exit(1); })']),
      // No retries (the environment the server gives commands without a network): it fails at once.
      npm: await run([which('npm'), 'install', '--no-audit', '--no-fund'], {}, { npm_config_cache: path.join(ws, '.npm-cache') }),
      python: await run([py, '-c', 'import urllib.request; urllib.request.urlopen("https://example.com")']),
      'python connect': await run([py, '-c', 'import socket; socket.create_connection(("192.0.2.1", 80))']),
    };
    for (const [what, out] of Object.entries(outputs)) {
      expect(failureSigns(out).network, `${what}: ${out}`).toBe(true);
      expect(sandboxHint(out, facts())).toMatchObject({ cause: 'network', text: expect.stringContaining('set guardedShell.network to "allow" in your user settings') });
      expect(sandboxHint(out, facts({ host: 'standalone', network: 'deny' }))?.text).toMatch(/\(--network is "deny"\).*start the server with --network allow\.$/);
      expect(sandboxHint(out, facts({ commandsHaveNetwork: true }))).toBeUndefined();
    }
  }, 120_000);

  it('a program the commands\' PATH does not have (make, sh, bash, env, node, Python): names the toolchain setting, or why the folder is left out', async () => {
    const outputs = {
      'make (exec)': await run([which('make'), 'plain']),
      'make (through sh)': await run([which('make'), 'shell']),
      bash: await run([which('bash'), '-c', `${TOOL} --version`]),
      'env shebang': await run([path.join(ws, 'via-env')]),
      node: await run([process.execPath, '-e', `const r = require("child_process").spawnSync("${TOOL}"); if (r.error) { console.error(String(r.error)); process.exit(1); }`]),
      python: await run([which('python3'), '-c', `import subprocess; subprocess.run(["${TOOL}"])`]),
    };
    for (const [what, out] of Object.entries(outputs)) {
      expect(failureSigns(out).missing, `${what}: ${out}`).toContain(TOOL);
      expect(sandboxHint(out, facts())).toMatchObject({ cause: 'program-missing', text: expect.stringContaining(`"${TOOL}" is in ${toolDir}`) });
      expect(sandboxHint(out, facts())?.text).toContain('set guardedShell.toolchainPath to true in your user settings');
      expect(sandboxHint(out, facts({ host: 'standalone' }))?.text).toContain('start the server without --no-toolchain-path (and without "toolchainPath": false in the config file)');
      expect(sandboxHint(out, facts({ toolchainPath: true, toolchainSkipped: [{ entry: toolDir, reason: 'anyone may write it' }] }))?.text).toContain('anyone may write it');
      // On the commands' PATH but hidden by the sandbox.
      expect(sandboxHint(out, facts({ childPath: `${toolDir}:${DEFAULT_SAFE_PATH}`, visible: (p) => !p.startsWith(base) }))?.text).toMatch(/sandbox hides that folder/);
    }
  });

  it('says nothing when the command fails for a reason of its own (a missing file, a program nobody has, a plain git error)', async () => {
    const outputs = [
      await run([which('cat'), 'no-such-file']),
      await run([which('bash'), '-c', 'gs-nobody-has-this']),
      await run([gitPath(), 'log', '--no-such-option']),
      await run([which('make'), 'no-such-target']),
    ];
    for (const out of outputs) expect(sandboxHint(out, facts()), out).toBeUndefined();
  });
});
