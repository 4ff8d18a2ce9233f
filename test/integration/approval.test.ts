import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { AuditLog, memorySink } from '../../src/core/audit';
import { createExecutor } from '../../src/core/exec/executor';
import { parsePolicy } from '../../src/core/policy';
import { runCommand, type CommandDeps } from '../../src/core/commands/run';
import { ApprovalMemory } from '../../src/core/approvalMemory';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../../src/core/approval';

function workspace(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-appr-')));
}

describe('approval in the standalone server (no VS Code)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(['--cwd', workspace(), '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'confirm', '--allow', 'echo']);
  });
  afterAll(async () => server?.stop());

  it('denies with APPROVAL_UNAVAILABLE when the client cannot be asked (no elicitation)', async () => {
    const client = await httpClient(server.url);
    const s = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'hi'] } }));
    expect(s.outcome).toBe('denied');
    expect(s.denial.code).toBe('APPROVAL_UNAVAILABLE');
    await client.close();
  });

  it('asks through MCP elicitation and runs the command when the user accepts', async () => {
    const client = await httpClient(server.url, TOKEN, { elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params.message);
      return { action: 'accept', content: { approve: true } };
    });
    const s = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'approved run'] } }));
    expect(s.outcome).toBe('ok');
    expect(s.stdout).toBe('approved run\n');
    expect(s.approvedBy).toBe('elicitation');
    expect(asked[0]).toContain('"echo" "approved run"');
    await client.close();
  });

  it('asks a client that never opened the optional standalone stream on the call\'s own stream (the question is not dropped)', async () => {
    // A client may answer GET /mcp with nothing (405 here): the elicitation must still reach it, inside the call.
    const onlyPost: typeof fetch = (url, init) => (init?.method === 'GET' ? Promise.resolve(new Response(null, { status: 405 })) : fetch(url, init));
    const client = new Client({ name: 'post-only', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: onlyPost, requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
    // Dropped, the question would leave the call waiting for the approval timeout (minutes): the client gives up first.
    const s = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'post only'] } }, undefined, { timeout: 15_000 }));
    expect(s.outcome).toBe('ok');
    expect(s.stdout).toBe('post only\n');
    await client.close();
  });

  it('returns the person\'s reason to the agent when the user declines through elicitation', async () => {
    const client = await httpClient(server.url, TOKEN, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: false, reason: 'not now' } }));
    const s = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'x'] } }));
    expect(s.outcome).toBe('denied');
    expect(s.denial).toMatchObject({ code: 'APPROVAL_DENIED', message: 'not now' });
    await client.close();
  });
});

describe('remembered approvals', () => {
  function deps(decide: (r: ApprovalRequest) => ApprovalDecision) {
    const asked: ApprovalRequest[] = [];
    const approver: Approver = { kind: 'test', approve: async (r) => (asked.push(r), decide(r)) };
    const sink = memorySink();
    const audit = new AuditLog([sink]);
    const d: CommandDeps = {
      policy: () => parsePolicy({ root: workspace(), allowCommands: ['echo'], mode: 'confirm' }),
      executor: createExecutor({ concurrency: 2 }),
      approver: () => approver,
      audit,
      isolation: () => ({ kind: 'none' }),
      memory: new ApprovalMemory(),
    };
    return { d, asked, records: sink.records };
  }

  it('audits every decision, approvals and denials alike, with who decided and the option', async () => {
    let answer: ApprovalDecision = { approved: true, by: 'user', option: 'timed' };
    const { d, records } = deps(() => answer);
    await runCommand({ command: ['echo', 'one'] }, d, { tool: 'shell_execute' });
    answer = { approved: false, by: 'user', reason: 'no thanks' };
    const denied = await runCommand({ command: ['echo', 'two'] }, d, { tool: 'shell_execute' });
    expect(denied.denial).toMatchObject({ code: 'APPROVAL_DENIED', message: 'no thanks' });
    const decisions = records.filter((r) => r.event === 'approval_audit');
    expect(decisions).toEqual([
      expect.objectContaining({ result_type: 'approved', decided_by: 'user', option: 'timed', command: 'echo one' }),
      expect.objectContaining({ result_type: 'approval_denied', decided_by: 'user', rejection_reason: 'no thanks', command: 'echo two' }),
    ]);
  });

  it('"allow for this session" lets the same exact command run again without asking, and only that command', async () => {
    const { d, asked } = deps(() => ({ approved: true, by: 'user', option: 'session' }));
    const call = { tool: 'shell_execute' };
    expect((await runCommand({ command: ['echo', 'a'] }, d, call)).outcome).toBe('ok');
    expect((await runCommand({ command: ['echo', 'a'] }, d, call)).outcome).toBe('ok');
    expect(asked).toHaveLength(1);
    await runCommand({ command: ['echo', 'b'] }, d, call);
    expect(asked).toHaveLength(2);
  });

  it('"once" is not remembered', async () => {
    const { d, asked } = deps(() => ({ approved: true, by: 'user', option: 'once' }));
    await runCommand({ command: ['echo', 'a'] }, d, { tool: 'shell_execute' });
    await runCommand({ command: ['echo', 'a'] }, d, { tool: 'shell_execute' });
    expect(asked).toHaveLength(2);
  });

  it('stops a lookalike: approving `echo "x > y"` for the session does not pre-approve the redirect `echo x > y`', async () => {
    const { d, asked } = deps(() => ({ approved: true, by: 'user', option: 'session' }));
    await runCommand({ command: ['echo', 'x > y'] }, d, { tool: 'shell_execute' });
    await runCommand({ command: ['echo', 'x', '>', 'y'] }, d, { tool: 'shell_execute' });
    expect(asked).toHaveLength(2);
  });
});

describe('a sandbox that cannot confine a call', () => {
  it('stops the command instead of running it unsandboxed', async () => {
    const records = memorySink();
    const root = workspace();
    const d: CommandDeps = {
      policy: () => parsePolicy({ root, allowCommands: ['echo'] }),
      executor: createExecutor({ concurrency: 1 }),
      approver: () => ({ kind: 'none', approve: async () => ({ approved: false, by: 'unavailable' }) }),
      audit: new AuditLog([records]),
      isolation: () => ({ kind: 'bwrap', wrap: () => { throw new Error('the workspace root cannot be "/"'); } }),
    };
    const r = await runCommand({ command: ['echo', 'x'] }, d, { tool: 'shell_execute' });
    expect(r.outcome).toBe('denied');
    expect(r.denial).toMatchObject({ code: 'ISOLATION_UNAVAILABLE', rule: 'isolation.wrap-failed' });
    expect(records.records.at(-1)).toMatchObject({ result_type: 'rejected', rule: 'isolation.wrap-failed' });
  });
});
