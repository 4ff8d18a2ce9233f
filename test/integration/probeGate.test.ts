import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailableApprover } from '../../src/core/approval';
import { AuditLog } from '../../src/core/audit';
import { createExecutor } from '../../src/core/exec/executor';
import { NO_ISOLATION, PROBE_PENDING } from '../../src/core/isolationState';
import { parsePolicy } from '../../src/core/policy';
import { ServerContext } from '../../src/server/context';
import { createServer } from '../../src/server/createServer';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http/httpServer';
import { httpClient, stdioClient, structured, TOKEN } from '../helpers/serverProcess';
import { describeWith } from '../helpers/needs';
import { sleep } from '../helpers/procs';

/**
 * The sandbox probe runs while the transport starts (start-up is faster), so a client can call before it has
 * answered. Such a call must wait for the answer and then run under it — never run unsandboxed because the
 * probe was not done.
 */
describe('a call that arrives before the sandbox probe has answered', () => {
  let root: string;
  let ctx: ServerContext;
  let http: RunningHttpServer;
  let answer: () => void;
  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-probe-gate-')));
    ctx = new ServerContext(parsePolicy({ root, allowCommands: ['echo', 'touch'], mode: 'auto' } as never), createExecutor({ concurrency: 2 }), new AuditLog(), PROBE_PENDING, unavailableApprover, 'test');
    ctx.ready = new Promise<void>((resolve) => (answer = resolve));
    http = await startHttpServer(() => createServer(ctx), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http' });
  });
  afterAll(async () => {
    await http?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('waits for the probe and runs under the isolation it found, not before', async () => {
    const client = await httpClient(http.url);
    let done = false;
    const call = client.callTool({ name: 'shell_execute', arguments: { command: ['touch', 'made'] } }).finally(() => (done = true));
    await sleep(400);
    expect(done).toBe(false);
    expect(fs.existsSync(path.join(root, 'made'))).toBe(false); // nothing ran while the probe was out
    // The probe answers (the way startStandalone applies it): the call now runs under that isolation.
    ctx.isolation = { ...NO_ISOLATION, kind: 'probed-test' };
    answer();
    const r = structured(await call);
    expect(r.outcome).toBe('ok');
    expect(r.isolation).toBe('probed-test');
    expect(fs.existsSync(path.join(root, 'made'))).toBe(true);
    await client.close();
  });

  it('the isolation in force before the answer denies every command, whatever waits or not', async () => {
    const c2 = new ServerContext(ctx.policy, createExecutor({ concurrency: 1 }), new AuditLog(), PROBE_PENDING, unavailableApprover, 'test');
    const s = await startHttpServer(() => createServer(c2), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http' });
    try {
      const client = await httpClient(s.url);
      const r = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['touch', 'never'] } }));
      expect(r.outcome).toBe('denied');
      expect(r.denial.code).toBe('ISOLATION_UNAVAILABLE');
      expect(fs.existsSync(path.join(root, 'never'))).toBe(false);
      await client.close();
    } finally {
      await s.close();
    }
  });
});

describeWith('bubblewrap')('the real server process, called the instant it is ready (stdio, --isolation required)', () => {
  it('runs the first command inside bubblewrap', async () => {
    const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-probe-first-')));
    const { client, transport } = await stdioClient(['--cwd', ws, '--quiet', '--isolation', 'required', '--allow', 'echo']);
    try {
      const r = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'first'] } }));
      expect(r.outcome).toBe('ok');
      expect(r.isolation).toBe('bwrap');
      expect(r.stdout).toBe('first\n');
    } finally {
      await client.close();
      await transport.close();
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
