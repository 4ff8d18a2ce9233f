import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * Issue 26, standalone: a command not on the allowlist becomes a question (MCP elicitation here), and "Always
 * allow" with a rule the person edited is saved to the config file the next start reads, applied at once: the next
 * matching command runs without a question, a non-matching one is asked about again. Real dist/cli.js, real SDK
 * client over Streamable HTTP, real files.
 */
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

function folders() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-always-')));
  const ws = path.join(base, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  return { base, ws };
}

async function asker(answer: (message: string) => Record<string, unknown>) {
  const client = await httpClient(server!.url, TOKEN, { elicitation: {} });
  const asked: { message: string; schema: Record<string, unknown> }[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    const params = req.params as { message: string; requestedSchema: Record<string, unknown> };
    asked.push({ message: params.message, schema: params.requestedSchema });
    return { action: 'accept', content: answer(params.message) as never };
  });
  return { client, asked };
}

const start = (ws: string, cwd: string, extra: string[] = []) =>
  startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'confirm', '--allow', 'echo', ...extra], {}, { cwd });

describe('a miss becomes a question, and "Always allow" saves an edited rule (standalone)', () => {
  it('creates guarded-shell.json with the rule when no config file was read, and applies it at once', async () => {
    const { base, ws } = folders();
    server = await start(ws, base);
    const { client, asked } = await asker(() => ({ approve: true, remember: 'always', rule: 'ls *' }));
    const first = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['ls', '-1'] } }));
    expect(first.outcome).toBe('ok');
    expect(first.stdout).toBe('a.txt\n');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('Not on your allowlist: "ls"');
    // The suggested rule was offered as the field's default.
    expect(JSON.stringify(asked[0]!.schema)).toContain('"default":"ls *"');
    const file = path.join(base, 'guarded-shell.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ autoApprove: ['ls *'] });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Matching: no question. Not matching (`cat` is not on the allowlist either): asked again.
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['ls', '-a'] } })).outcome).toBe('ok');
    expect(asked).toHaveLength(1);
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['cat', 'a.txt'] } })).outcome).toBe('ok');
    expect(asked).toHaveLength(2);
    await client.close();
  });

  it('adds the rule to the config file that was read, keeping its other keys, and the next start uses it', async () => {
    const { base, ws } = folders();
    const conf = path.join(base, 'my.json');
    fs.writeFileSync(conf, JSON.stringify({ timeout: 20, autoApprove: ['echo hi'] }, null, 2));
    server = await start(ws, base, ['--conf', conf]);
    const { client } = await asker(() => ({ approve: true, remember: 'always', rule: 'wc -l *' }));
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['wc', '-l', 'a.txt'] } })).outcome).toBe('ok');
    expect(JSON.parse(fs.readFileSync(conf, 'utf8'))).toEqual({ timeout: 20, autoApprove: ['echo hi', 'wc -l *'] });
    await client.close();
    await server.stop();
    server = await start(ws, base, ['--conf', conf]);
    const again = await asker(() => ({ approve: false }));
    expect(structured(await again.client.callTool({ name: 'shell_execute', arguments: { command: ['wc', '-l', 'a.txt'] } })).outcome).toBe('ok');
    expect(again.asked).toHaveLength(0);
    await again.client.close();
  });

  it('saves nothing when the edited rule does not cover the approved command (it runs once)', async () => {
    const { base, ws } = folders();
    server = await start(ws, base);
    const { client, asked } = await asker(() => ({ approve: true, remember: 'always', rule: 'cat *' }));
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['ls'] } })).outcome).toBe('ok');
    expect(fs.existsSync(path.join(base, 'guarded-shell.json'))).toBe(false);
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['ls'] } })).outcome).toBe('ok');
    expect(asked).toHaveLength(2);
    await client.close();
  });

  it('never adopts a guarded-shell.json that appeared after the start (the agent can write the folder)', async () => {
    const { ws } = folders();
    // The server's working directory is the workspace: the file the agent could plant is where the rule would go.
    server = await start(ws, ws);
    fs.writeFileSync(path.join(ws, 'guarded-shell.json'), JSON.stringify({ mode: 'auto' }));
    const { client } = await asker(() => ({ approve: true, remember: 'always', rule: 'ls *' }));
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['ls'] } })).outcome).toBe('ok');
    expect(JSON.parse(fs.readFileSync(path.join(ws, 'guarded-shell.json'), 'utf8'))).toEqual({ mode: 'auto' });
    expect(server.stdout() + server.stderr()).not.toContain('"autoApprove"');
    await client.close();
  });

  it('refuses a miss in auto mode (nobody is asked), naming where to allow it', async () => {
    const { base, ws } = folders();
    server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'auto', '--allow', 'echo'], {}, { cwd: base });
    const { client, asked } = await asker(() => ({ approve: true }));
    const r = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['ls'] } }));
    expect(r.denial.code).toBe('COMMAND_NOT_ALLOWED');
    expect(r.denial.message).toContain('auto mode asks nobody');
    expect(asked).toHaveLength(0);
    await client.close();
  });
});
