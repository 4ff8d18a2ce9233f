import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unavailableApprover } from '../../src/core/approval';
import { AuditLog } from '../../src/core/audit';
import { createExecutor } from '../../src/core/exec/executor';
import { NO_ISOLATION } from '../../src/core/isolationState';
import { parsePolicy, type Policy } from '../../src/core/policy';
import { ServerContext } from '../../src/server/context';
import { createServer } from '../../src/server/createServer';
import { startHttpServer, type RunningHttpServer } from '../../src/server/http/httpServer';
import { notOffered, TOOLS } from '../../src/server/tools';
import { hintsAt, nonDefaultHints } from '../../src/server/tools/annotations';
import { isolationNote } from '../../src/server/tools/describe';
import { acceptNullAsOmitted } from '../../src/server/tools/nullArgs';
import { httpClient, structured, TOKEN } from '../helpers/serverProcess';
import { sleep } from '../helpers/procs';

/**
 * The tools/list every session answers from the per-process schema cache and per-policy descriptions
 * (src/server/toolCatalog.ts) must be exactly what the SDK's own handler would list, and must follow the live
 * policy in an open session: a cache that served a stale list would offer a tool the policy forbids.
 */

/** A server listing the tools the SDK's way (raw shapes, its own tools/list handler), for `policy`. */
function sdkReference(policy: Policy): { server: McpServer; dispose: () => void } {
  const server = new McpServer({ name: 'reference', version: '0' }, { capabilities: { tools: { listChanged: true } } });
  for (const def of TOOLS) {
    const text = def.description(policy);
    // Registered the way registerTools does (null-tolerant input, no output schema, non-default hints, the
    // no-sandbox note where the limits are), but through the SDK's own tools/list.
    const t = server.registerTool(
      def.name,
      { title: def.title, description: text.includes('Allowed: ') ? text + isolationNote('none', policy) : text, inputSchema: acceptNullAsOmitted(def.inputSchema), annotations: nonDefaultHints(hintsAt(def.annotations, { policy, isolation: 'unsandboxed' })) },
      async () => ({ content: [] }),
    );
    t.execution = undefined;
    if (notOffered(def.name, policy)) t.disable();
  }
  return { server, dispose: () => {} };
}

describe('tools/list from the per-process cache', () => {
  let root: string;
  let ctx: ServerContext;
  let ours: RunningHttpServer;
  const started: RunningHttpServer[] = [];
  const policy = (mode: string, allow: string[]) => parsePolicy({ root, mode, allowCommands: allow } as never);
  const reference = async (p: Policy) => {
    const s = await startHttpServer(() => sdkReference(p), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http' });
    started.push(s);
    const c = await httpClient(s.url);
    const list = await c.listTools();
    await c.close();
    // The catalog leaves out the dialect line the SDK adds to every input schema (toolCatalog.ts).
    for (const t of list.tools) delete (t.inputSchema as Record<string, unknown>).$schema;
    return list;
  };

  beforeAll(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-catalog-')));
    ctx = new ServerContext(policy('auto', ['echo', 'sleep']), createExecutor({ concurrency: 2 }), new AuditLog(), NO_ISOLATION, unavailableApprover, 'test');
    ours = await startHttpServer(() => createServer(ctx), { host: '127.0.0.1', port: 0, token: TOKEN, corsOrigins: [], transport: 'http' });
  });
  afterAll(async () => {
    await ours?.close();
    for (const s of started) await s.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists exactly what the SDK lists, in every session, for the same policy', async () => {
    const expected = await reference(ctx.policy);
    for (let i = 0; i < 3; i++) {
      const c = await httpClient(ours.url);
      expect(await c.listTools()).toEqual(expected);
      await c.close();
    }
  });

  it('a policy change reaches an open session at once: tools it forbids vanish, descriptions follow, a call to one is refused', async () => {
    const c = await httpClient(ours.url);
    let changed = 0;
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const before = await c.listTools();
    expect(before.tools.map((t) => t.name)).toContain('writeFile');

    const readOnly = policy('readOnly', ['echo', 'wc']);
    ctx.setPolicy(readOnly);
    const after = await c.listTools();
    expect(after).toEqual(await reference(readOnly));
    expect(after.tools.map((t) => t.name)).not.toContain('writeFile');
    expect(after.tools.find((t) => t.name === 'shell_execute')!.description).toContain('Allowed: echo wc.');
    const refused = await c.callTool({ name: 'writeFile', arguments: { path: 'x.txt', content: 'no' } });
    expect(refused.isError).toBe(true);
    expect(fs.existsSync(path.join(root, 'x.txt'))).toBe(false);
    for (let i = 0; i < 20 && changed === 0; i++) await sleep(50);
    expect(changed).toBeGreaterThan(0);

    // And back: the earlier policy's list again (descriptions are per policy object, not stale).
    const auto = policy('auto', ['echo', 'sleep']);
    ctx.setPolicy(auto);
    expect(await c.listTools()).toEqual(await reference(auto));
    expect(structured(await c.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'ok'] } })).stdout).toBe('ok\n');
    await c.close();
  });
});
