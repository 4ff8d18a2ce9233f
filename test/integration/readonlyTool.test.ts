import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * shell_readonly through the real server and the real MCP SDK client: it runs what the mode table calls a
 * read-only command and refuses everything else — with a message naming shell_execute — before anything runs or
 * anyone is asked. Mode confirmChanges and a client without elicitation: a request that needed a person would come
 * back APPROVAL_UNAVAILABLE, so "ok" proves that a read-only command ran with no card.
 */

const ALLOW = ['ls', 'cat', 'grep', 'wc', 'sed', 'find', 'sort', 'tee', 'touch', 'head'];
const TEXT = 'b\na\nc\n';

describe('shell_readonly', () => {
  let ws: string;
  let server: RunningServer;
  let client: Client;
  const readonly = async (command: string[], extra: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name: 'shell_readonly', arguments: { command, ...extra } });
    return { result, s: structured(result), text: (result.content as { text: string }[])[0]!.text };
  };
  /** Every file in the workspace with its bytes: a refused call must leave this exactly as it was. */
  const snapshot = () => Object.fromEntries(fs.readdirSync(ws).sort().map((f) => [f, fs.readFileSync(path.join(ws, f), 'utf8')]));

  beforeAll(async () => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-ro-')));
    fs.writeFileSync(path.join(ws, 'f.txt'), TEXT);
    server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'confirmChanges', '--allow', ...ALLOW]);
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('is listed as read-only and closed-world, next to shell_execute', async () => {
    const { tools } = await client.listTools();
    const ro = tools.find((t) => t.name === 'shell_readonly')!;
    expect(ro.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(ro.description).toContain('use shell_execute');
    // The agent is told once (the session's instructions) to look around with it.
    expect(client.getInstructions()).toContain('prefer shell_readonly');
    // Without a sandbox a command can reach the network: shell_execute says so.
    expect(tools.find((t) => t.name === 'shell_execute')!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it('runs read-only commands, pipelines and input redirects at once in confirmChanges (no approval asked)', async () => {
    const cases: [string[], string][] = [
      [['ls'], 'f.txt\n'],
      [['sort', 'f.txt'], 'a\nb\nc\n'],
      [['cat', '<', 'f.txt'], TEXT],
      [['grep', '-c', '', 'f.txt', '|', 'wc', '-l'], '1\n'],
      [['find', '.', '-name', '*.txt'], './f.txt\n'],
      [['sed', '-n', '2p', 'f.txt'], 'a\n'],
    ];
    for (const [command, stdout] of cases) {
      const { result, s } = await readonly(command);
      expect(result.isError, `${command.join(' ')}: ${JSON.stringify(s)}`).toBe(false);
      expect(s).toMatchObject({ outcome: 'ok', stdout, approvalMs: 0 });
      expect(s.approvedBy).toBeUndefined();
    }
    // The same pipeline's mode: shell_execute asks for a writing command (and nobody can answer here).
    const touch = structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['touch', 'x'] } }));
    expect(touch.denial.code).toBe('APPROVAL_UNAVAILABLE');
  });

  it('shell_readonly refuses tee, touch, output redirects and a pipeline stage that writes, naming shell_execute', async () => {
    const before = snapshot();
    const refused: string[][] = [
      ['tee', 'out.txt'],
      ['touch', 'made.txt'],
      ['ls', '>', 'out.txt'],
      ['ls', '>>', 'f.txt'],
      ['cat', 'f.txt', '|', 'tee', 'out.txt'],
      ['ls', '|', 'sort', '|', 'tee', 'out.txt'],
    ];
    for (const command of refused) {
      const { result, s, text } = await readonly(command);
      expect(result.isError).toBe(true);
      expect(s.outcome, command.join(' ')).toBe('denied');
      expect(s.denial.code, command.join(' ')).toBe('NOT_READ_ONLY');
      expect(text).toContain('Use shell_execute for it');
      expect(s.stdout).toBe('');
    }
    expect(snapshot()).toEqual(before);
    const redirect = await readonly(['ls', '>', 'out.txt']);
    expect(redirect.s.denial.rule).toBe('tool.read-only-only.redirect');
    const tee = await readonly(['cat', 'f.txt', '|', 'tee', 'out.txt']);
    expect(tee.text).toContain('"tee out.txt" is not known to be read-only');
  });

  it('shell_readonly refuses sed -i / find -delete / sort -o in every spelling, and changes nothing', async () => {
    const before = snapshot();
    const writing: string[][] = [
      ['sed', '-i', 's/a/z/', 'f.txt'],
      ['sed', '-ni', 's/a/z/p', 'f.txt'],
      ['sed', '--in-place=.bak', 's/a/z/', 'f.txt'],
      ['sed', '--in-pl', 's/a/z/', 'f.txt'],
      ['sed', 's/a/z/w out.txt', 'f.txt'],
      ['find', '.', '-delete'],
      ['find', '.', '-fprint', 'out.txt'],
      ['find', '.', '-exec', 'touch', 'x', ';'],
      ['sort', '-o', 'f.txt', 'f.txt'],
      ['sort', '-of.txt', 'f.txt'],
      ['sort', '--output=f.txt', 'f.txt'],
      ['sort', '--outp', 'f.txt', 'f.txt'],
    ];
    for (const command of writing) {
      const { result, s } = await readonly(command);
      expect(result.isError, command.join(' ')).toBe(true);
      expect(s.outcome, command.join(' ')).toBe('denied');
      // Most of these the argument rules refuse for every command tool, with their own reason (e.g. sed -i →
      // editFile); what matters here is that nothing ran.
      expect(s.stdout, command.join(' ')).toBe('');
    }
    expect(snapshot()).toEqual(before);
  });

  it('refuses a program that is not installed and one that is not allowed at all', async () => {
    const missing = await readonly(['nosuch-program-15a']);
    expect(missing.s.denial.code).toBe('COMMAND_NOT_ALLOWED');
    const outside = await readonly(['rm', 'f.txt']);
    expect(outside.s.outcome).toBe('denied');
    expect(fs.existsSync(path.join(ws, 'f.txt'))).toBe(true);
  });
});
