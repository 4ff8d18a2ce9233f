import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { describeWith } from '../helpers/needs';

/**
 * Issue 12, "mounts that stay writable": with real bubblewrap, every .git below the root (nested repositories,
 * a submodule's gitdir), whatever --protect matches, and a root .git that did not exist must not be writable
 * from a command (hooks planted there run later, outside the sandbox).
 */

describeWith('bubblewrap')('sandbox mounts (real bubblewrap)', () => {
  let root: string;
  let server: RunningServer;
  let client: Client;
  const start = async (extra: string[] = []) => {
    server = await startServer(['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--mode', 'auto', '--allow', 'touch', 'mkdir', 'readlink', 'tee', '--protect', '.env', 'secrets/**', ...extra]);
    client = await httpClient(server.url);
  };
  const stop = async () => {
    await client?.close();
    await server?.stop();
  };
  const sh = async (command: string[]) => structured(await client.callTool({ name: 'shell_execute', arguments: { command } }));

  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-mounts-')));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
  beforeEach(() => {
    for (const e of fs.readdirSync(root)) fs.rmSync(path.join(root, e), { recursive: true, force: true });
    fs.mkdirSync(path.join(root, 'nested', '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(path.join(root, 'deep', 'er', 'repo', '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(path.join(root, 'gitdirs', 'sub', 'hooks'), { recursive: true });
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub', '.git'), 'gitdir: ../gitdirs/sub\n'); // a submodule's gitfile
    fs.writeFileSync(path.join(root, '.env'), 'TOKEN=1\n');
    fs.mkdirSync(path.join(root, 'app', 'secrets'), { recursive: true });
    fs.mkdirSync(path.join(root, 'secrets'));
    fs.writeFileSync(path.join(root, 'secrets', 'db.txt'), 'pw\n');
  });

  it('stops planting a hook in a nested repository, a deeper one, or a submodule gitdir', async () => {
    await start();
    try {
      for (const hook of ['nested/.git/hooks/pre-commit', 'deep/er/repo/.git/hooks/pre-commit', 'gitdirs/sub/hooks/pre-commit']) {
        const r = await sh(['touch', hook]);
        expect(r.exitCode).not.toBe(0);
        expect(r.stderr).toMatch(/Read-only file system/);
        expect(fs.existsSync(path.join(root, hook))).toBe(false);
      }
      // The rest of the workspace stays writable.
      expect((await sh(['touch', 'nested/ok.txt'])).exitCode).toBe(0);
    } finally {
      await stop();
    }
  });

  it('makes --protect matches read-only inside the sandbox (.env at any depth, secrets/**)', async () => {
    await start();
    try {
      expect((await sh(['touch', '.env'])).stderr).toMatch(/Read-only file system/);
      expect((await sh(['touch', 'secrets/new.txt'])).stderr).toMatch(/Read-only file system/);
      expect(fs.readFileSync(path.join(root, '.env'), 'utf8')).toBe('TOKEN=1\n');
      expect(fs.existsSync(path.join(root, 'secrets', 'new.txt'))).toBe(false);
    } finally {
      await stop();
    }
  });

  it('does not let a root .git be created where none existed (moved aside after the command, and said so)', async () => {
    await start();
    try {
      const r = await sh(['mkdir', '-p', '.git/hooks']);
      expect(r.exitCode).toBe(0);
      expect(fs.existsSync(path.join(root, '.git'))).toBe(false);
      const aside = fs.readdirSync(root).filter((n) => n.startsWith('.git.blocked-'));
      expect(aside).toHaveLength(1);
      expect(r.warning).toMatch(/created "\.git" at the workspace root/);
    } finally {
      await stop();
    }
  });

  it('hands the sandboxed command no directory descriptor (openat(fd, "..") would walk past its mounts)', async () => {
    await start();
    try {
      for (const fd of [4, 5, 6]) {
        const r = await sh(['readlink', `/proc/self/fd/${fd}`]);
        expect(r.exitCode).not.toBe(0);
        expect(r.stdout).toBe('');
      }
    } finally {
      await stop();
    }
  });

  it('stops writing a read-only file through the input redirect (reopening /proc/self/fd/0 for writing)', async () => {
    fs.mkdirSync(path.join(root, '.git'));
    fs.writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
    await start();
    try {
      // The redirect reaches tee as a pipe the server fills, as a shell's `cat .git/config | tee /proc/self/fd/0`:
      // reopened, it is that pipe, which tee then feeds itself until the call's time is up. The file stays as it was.
      const r = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['tee', '/proc/self/fd/0', '<', '.git/config'], timeout: 3 } }));
      expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe('[core]\n');
      expect(r.outcome === 'denied' || r.exitCode !== 0 || r.stdout === '[core]\n').toBe(true);
    } finally {
      await stop();
    }
  });

  it('with --allow-git-writes, nested .git is writable (the control: the mounts are what stopped it)', async () => {
    await start(['--allow-git-writes']);
    try {
      expect((await sh(['touch', 'nested/.git/hooks/pre-commit'])).exitCode).toBe(0);
      expect(fs.existsSync(path.join(root, 'nested', '.git', 'hooks', 'pre-commit'))).toBe(true);
    } finally {
      await stop();
    }
  });
});
