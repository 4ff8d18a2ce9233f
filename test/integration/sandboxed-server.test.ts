import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIXTURE_BIN, httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { pidsWithCmdline, uniqueSeconds } from '../helpers/procs';

// The whole product path with the real bubblewrap: CLI flags -> probe -> policy -> sandbox -> executor -> result.
describe('standalone server with --isolation required (real bubblewrap)', () => {
  let ws: string;
  let server: RunningServer;
  let client: Client;
  const outsideName = `gs-sandbox-escape-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-sbx-')));
    server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--allow', 'touch', 'cat', 'echo', 'ls', `${FIXTURE_BIN}/spawn-tree`]);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    fs.rmSync(path.join('/var/tmp', outsideName), { force: true });
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
    const s = await run([`${FIXTURE_BIN}/spawn-tree`, secs], { timeout: 1 });
    expect(s.outcome).toBe('timeout');
    expect(pidsWithCmdline(['sleep', secs])).toEqual([]);
  });
});
