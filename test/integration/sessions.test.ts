import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailableApprover } from '../../src/core/approval';
import { AuditLog } from '../../src/core/audit';
import { createExecutor } from '../../src/core/exec/executor';
import { NO_ISOLATION } from '../../src/core/isolationState';
import { parsePolicy } from '../../src/core/policy';
import { ServerContext } from '../../src/server/context';
import { createServer } from '../../src/server/createServer';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http/httpServer';
import { httpClient, structured, TOKEN } from '../helpers/serverProcess';
import { sleep } from '../helpers/procs';

// Clients that vanish without DELETE must not keep their server objects forever; a long call is not idleness.
describe('idle Streamable HTTP sessions', () => {
  let http: RunningHttpServer;
  beforeAll(async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-sess-')));
    const ctx = new ServerContext(parsePolicy({ root, allowCommands: ['echo', 'sleep'] }), createExecutor({ concurrency: 2 }), new AuditLog(), NO_ISOLATION, unavailableApprover, 'test');
    http = await startHttpServer(() => createServer(ctx), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http', sessionIdleMs: 1_000 });
  });
  afterAll(async () => http?.close());

  it('closes a session nobody used for longer than the idle time', async () => {
    const client = await httpClient(http.url);
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'a'] } })).outcome).toBe('ok');
    // The SDK client keeps a GET stream open; drop it the way a vanished client would.
    await client.close();
    const before = http.sessions();
    expect(before).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 40 && http.sessions() >= before; i++) await sleep(100);
    expect(http.sessions()).toBe(before - 1);
  });

  it('keeps a session alive while one of its calls runs longer than the idle time', async () => {
    const client = await httpClient(http.url);
    const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '2.5'] } });
    expect(structured(r).outcome).toBe('ok');
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'still here'] } })).stdout).toBe('still here\n');
    await client.close();
  });
});
