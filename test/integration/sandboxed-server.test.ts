import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURE_BIN, httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { pidsWithCmdline, uniqueSeconds } from '../helpers/procs';
import { describeWith } from '../helpers/needs';

// The whole product path with the real bubblewrap: CLI flags -> probe -> policy -> sandbox -> executor -> result.
describeWith('bubblewrap')('standalone server with --isolation required (real bubblewrap)', () => {
  let ws: string;
  let server: RunningServer;
  let client: Client;
  const outsideName = `gs-sandbox-escape-${process.pid}-${Date.now()}`;
  // The sandbox hides /tmp and the home directory, where a checkout may live: the fixture must be visible inside,
  // so it is copied to a folder the sandbox shows read-only.
  let fixtureDir: string;
  let spawnTree: string;

  beforeAll(async () => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-sbx-')));
    fixtureDir = fs.mkdtempSync('/var/tmp/gs-sbx-fixture-');
    spawnTree = path.join(fixtureDir, 'spawn-tree');
    fs.copyFileSync(path.join(FIXTURE_BIN, 'spawn-tree'), spawnTree);
    fs.chmodSync(spawnTree, 0o755);
    server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--allow', 'touch', 'cat', 'echo', 'ls', spawnTree]);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    fs.rmSync(path.join('/var/tmp', outsideName), { force: true });
    fs.rmSync(fixtureDir, { recursive: true, force: true });
  });

  const run = async (command: string[], extra: Record<string, unknown> = {}) =>
    structured(await client.callTool({ name: 'shell_execute', arguments: { command, ...extra } }));

  it('reports the sandbox it used in every result', async () => {
    const s = await run(['echo', 'inside']);
    expect(s).toMatchObject({ outcome: 'ok', stdout: 'inside\n', isolation: 'bwrap' });
  });

  it('stops an allowed command from writing outside the workspace (read-only system)', async () => {
    const s = await run(['touch', `/var/tmp/${outsideName}`]);
    expect(s.outcome).toBe('failed');
    expect(s.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(fs.existsSync(path.join('/var/tmp', outsideName))).toBe(false);
  });

  it('lets commands write inside the workspace', async () => {
    expect((await run(['touch', 'made-inside.txt'])).outcome).toBe('ok');
    expect(fs.existsSync(path.join(ws, 'made-inside.txt'))).toBe(true);
  });

  it('keeps server-managed redirects working inside the sandbox', async () => {
    expect((await run(['echo', 'redirected', '>', 'r.txt'])).outcome).toBe('ok');
    expect((await run(['cat', '<', 'r.txt'])).stdout).toBe('redirected\n');
  });

  it('kills the whole tree inside the sandbox at the timeout', async () => {
    const secs = uniqueSeconds();
    const s = await run([spawnTree, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });
});

describeWith('bubblewrap')('sandbox paths configured on the command line (real bubblewrap)', () => {
  let ws: string;
  let secretDir: string;
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-sbx-paths-')));
    secretDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-sbx-secret-')));
    fs.writeFileSync(path.join(secretDir, 'token.txt'), 'top secret');
    fs.mkdirSync(path.join(ws, 'deploy'));
    fs.mkdirSync(path.join(ws, '.git'));
    server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--allow', 'touch', 'cat',
      '--hide', secretDir, '--read-only', 'deploy']);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });
  const run = async (command: string[]) => structured(await client.callTool({ name: 'shell_execute', arguments: { command } }));

  it('stops a command from reading a path hidden with --hide', async () => {
    const s = await run(['cat', path.join(secretDir, 'token.txt')]);
    expect(s.outcome).toBe('failed');
    expect(s.stdout).not.toContain('top secret');
  });

  it('stops a command from writing a folder made read-only with --read-only', async () => {
    const s = await run(['touch', 'deploy/planted']);
    expect(s.outcome).toBe('failed');
    expect(fs.existsSync(path.join(ws, 'deploy', 'planted'))).toBe(false);
  });

  it(".git's hooks and config are read-only without --allow-git-writes; the rest of .git is not", async () => {
    fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.git', 'config'), '[core]\n');
    const s = await run(['touch', '.git/hooks/pre-commit']);
    expect(s.outcome).toBe('failed');
    expect(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect((await run(['touch', '.git/config'])).outcome).toBe('failed');
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect((await run(['touch', '.git/ORIG_HEAD'])).outcome).toBe('ok');
  });

  it('still lets commands write elsewhere in the workspace', async () => {
    expect((await run(['touch', 'fine.txt'])).outcome).toBe('ok');
  });
});
