import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { recommendedConfigFile } from '../../src/core/config/recommended';
import { settingsFromVscode } from '../../src/core/config/vscodeSettings';
import { startIpcHost } from '../helpers/ipcHost';
import { httpClient, startServer, TOKEN } from '../helpers/serverProcess';
import type { AgentSession, Answer, ToolArgs } from './agent';

/**
 * The configurations the scripted agent is measured in, each started as the person would run it:
 * - `recommended`: the five-minute setup the docs recommend (src/core/config/recommended.ts), written as the
 *   config file it is shown as, served by the real standalone server (dist/cli.js) over Streamable HTTP;
 * - `vscode`: VS Code's defaults (the settings reader with no user values) pushed over the real IPC channel into
 *   the real server process (dist/server.js), with a person who approves every card, misses included;
 * - `standalone`: the standalone server with no configuration at all (auto mode, the read-mostly allowlist):
 *   nobody is asked, so the project's own tools are refused — the control that shows the judge can fail.
 */
export const CONFIGURATIONS = {
  recommended: 'the five-minute setup from the docs (standalone server, config file)',
  vscode: 'VS Code defaults, a person approving every card (IPC server)',
  standalone: 'standalone defaults: auto, the read-mostly allowlist (standalone server, no configuration)',
} as const;
export type ConfigurationName = keyof typeof CONFIGURATIONS;

export interface SessionOptions {
  /** Added to the server's environment (the person's, as the test runs): e.g. their git configuration. */
  readonly env: NodeJS.ProcessEnv;
}

/** Long installs and test suites: the MCP request waits as long as the command may run. */
const REQUEST = { timeout: 15 * 60_000 };

async function callOn(client: Client, tool: string, args: ToolArgs): Promise<Answer> {
  try {
    const r = (await client.callTool({ name: tool, arguments: args }, undefined, REQUEST)) as { content?: { text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
    return { call: { tool, args }, text: r.content?.map((c) => c.text ?? '').join('\n') ?? '', ...(r.structuredContent && { sc: r.structuredContent }), isError: r.isError === true };
  } catch (e) {
    return { call: { tool, args }, text: '', isError: true, thrown: (e as Error).message };
  }
}

export async function startSession(name: ConfigurationName, ws: string, opts: SessionOptions): Promise<AgentSession> {
  if (name === 'recommended' || name === 'standalone') {
    // Started from a folder of its own, so no guarded-shell.json of the test's working directory is read.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-agent-conf-'));
    const conf = path.join(dir, 'guarded-shell.json');
    if (name === 'recommended') fs.writeFileSync(conf, JSON.stringify(recommendedConfigFile(), null, 2));
    const server = await startServer(['--cwd', ws, ...(name === 'recommended' ? ['--conf', conf] : []), '--auth', TOKEN, '--quiet'], opts.env, { cwd: dir });
    const client = await httpClient(server.url);
    return {
      call: (tool, args) => callOn(client, tool, args),
      cards: 0, // auto mode asks nobody
      close: async () => {
        await client.close().catch(() => {});
        await server.stop();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const host = await startIpcHost(ws, settingsFromVscode({}).layer, { ...process.env, ...opts.env });
  host.answer = () => ({ approved: true, by: 'user', option: 'once' });
  return {
    call: (tool, args) => callOn(host.client, tool, args),
    get cards() {
      return host.approvals.length;
    },
    close: () => host.close(),
  };
}

/** The person's git configuration for the fixtures: only an identity, in a file of its own. */
export function identityEnv(dir: string, identity: { name: string; email: string }): NodeJS.ProcessEnv {
  const file = path.join(dir, 'gitconfig');
  fs.writeFileSync(file, `[user]\n\tname = ${identity.name}\n\temail = ${identity.email}\n`);
  return { GIT_CONFIG_GLOBAL: file, GIT_CONFIG_NOSYSTEM: '1' };
}
