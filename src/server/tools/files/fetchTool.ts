import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { runFetch } from '../../../core/fetch/run';
import type { FileDeps } from '../../../core/files/types';
import { fileCall } from './deps';
import { fetchOutputShape, toFetchToolResult } from './result';

export function registerFetchTool(server: McpServer, deps: FileDeps): void {
  const p = deps.policy().fetch;
  server.registerTool(
    'fetch',
    {
      title: 'Fetch a URL',
      description: `HTTP(S) GET a URL and return the status and the text body. prettify turns HTML into readable text. Limits: ${p.timeoutSeconds} s, ${p.maxBytes} bytes, ${p.maxRedirects} redirects. Hosts that resolve to loopback${p.allowLoopback ? ' (allowed here)' : ''}, private or link-local${p.allowPrivate ? ' (allowed here)' : ''} addresses are refused unless the user allowed them; cloud metadata addresses always are. Every hop of a redirect is checked again.`,
      inputSchema: {
        url: z.string().describe('An http:// or https:// URL.'),
        prettify: z.boolean().default(false).describe('Turn HTML into readable text.'),
      },
      outputSchema: fetchOutputShape,
      annotations: { title: 'Fetch a URL', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    async (args, extra) => toFetchToolResult(await runFetch(deps, fileCall('fetch', extra), args)),
  );
}
