import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** What the minimal server's one tool answers. */
export interface MinimalResult {
  readonly outcome: string;
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The bench's minimal MCP server: one `shell_execute` tool with no policy, whose only work is `run`. One
 * definition for the spawning baseline (bench/minimalServer.ts) and the in-process tool-path section
 * (bench/sections/toolPath.ts), so both compare Guarded Shell with the same server.
 */
export function minimalShellServer(run: (command: string[]) => Promise<MinimalResult>): McpServer {
  const s = new McpServer({ name: 'minimal-shell', version: '1.0.0' });
  s.registerTool(
    'shell_execute',
    {
      description: 'Runs argv.',
      inputSchema: { command: z.array(z.string()).min(1) },
      outputSchema: { outcome: z.string(), exitCode: z.number().nullable(), stdout: z.string(), stderr: z.string() },
    },
    async ({ command }) => {
      const structuredContent = { ...(await run(command)) };
      return { content: [{ type: 'text', text: structuredContent.stdout }], structuredContent };
    },
  );
  return s;
}
