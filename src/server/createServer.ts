import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../core/approval';
import { ACTIONS, modeAnswer } from '../core/modes';
import { backgroundOffered, backupClause, commandToolOffered, editToolOffered, offers, readOnlyExamples } from '../core/offers';
import type { ServerContext } from './context';
import { registerTools } from './tools';

export const SERVER_NAME = 'guarded-shell';

/**
 * One MCP server (one per client session; all sessions share the context). The tool registry offers what the
 * live policy can allow and tells clients when that changes.
 */
export function createServer(ctx: ServerContext, sessionApprover?: (server: McpServer) => Approver | undefined): { server: McpServer; dispose: () => void } {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Guarded Shell', version: ctx.version },
    {
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: instructions(ctx),
    },
  );
  const approver = (): Approver => sessionApprover?.(server) ?? ctx.defaultApprover;
  return { server, dispose: registerTools(server, ctx, approver) };
}

/**
 * Said once per session (clients put it in the system prompt), so no result has to repeat it: what the server is,
 * how changes work, and the sandbox / root warning when there is one (also in the first command result). Every
 * sentence follows the policy of the moment the session opens: it names only tools, commands and backups the
 * policy offers (src/core/offers.ts; test/unit/core/messages.test.ts).
 */
export function instructions(ctx: Pick<ServerContext, 'isolation' | 'policy'>): string {
  const p = ctx.policy;
  const commands = commandToolOffered(p) !== undefined;
  const changes = editToolOffered(p) !== undefined || offers(p, 'writeFile');
  const does = [commands && 'runs allowlisted commands as argv (no shell)', changes ? 'edits files' : 'reads files'].filter(Boolean).join(' and ');
  const asks = ACTIONS.some((a) => modeAnswer(p.mode, a) === 'ask');
  const edits = (['replaceInFile', 'editFile'] as const).filter((t) => offers(p, t));
  const examples = readOnlyExamples(p);
  const lookAround = modeAnswer(p.mode, 'readOnlyCommand') === 'allow' ? 'they run without approval' : 'each needs approval in this mode';
  return [
    `Guarded Shell ${does} inside one workspace.`,
    `Every call is checked by the same rules${asks ? ", may need a person's approval," : ''} and is audited.`,
    "Paths stay inside the workspace (symbolic links are judged by where they lead); .git internals, the server's own files and protected globs cannot be changed.",
    ...(changes ? [`File changes are shown as a unified diff before anything is written; a change ${backupClause(p)} and replaces the file atomically, keeping CRLF and a missing final newline.`] : []),
    ...(edits.length ? [`Prefer ${edits.join('/')} for edits.`] : []),
    `Results carry their output in structuredContent, at most ${p.outputBudgetBytes} bytes of it per answer (its first and last part)${offers(p, 'readOutput') ? '; readOutput reads all of a longer output in pages' : ''}.`,
    // The prompt-free way to look around (no client confirmation, no card in confirmChanges), when it is offered.
    ...(offers(p, 'shell_readonly') && examples.length ? [`To look around (${examples.join(', ')} …) prefer shell_readonly: it runs only read-only commands, and ${lookAround}.`] : []),
    // Without this an agent blocks on a dev server until the timeout kills it.
    ...(backgroundOffered(p) ? ['For a dev server or a watcher, shell_execute with background: true answers at once with an id: readOutput reads its output as it comes, shell_background stops it.'] : []),
    ...(ctx.isolation.warning ? [`Warning: ${ctx.isolation.warning}`] : []),
  ].join(' ');
}
