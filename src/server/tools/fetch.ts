import { z } from 'zod';
import { runFetch } from '../../core/fetch/run';
import { callContext } from './callContext';
import { defineTool } from './define';
import { fetchOutputShape, toFetchToolResult } from './files/result';

export default defineTool({
  name: 'fetch',
  title: 'Fetch a URL',
  description: ({ fetch: p }) =>
    `HTTP(S) GET a URL and return the status and the text body. prettify turns HTML into readable text. Limits: ${p.timeoutSeconds} s, ${p.maxBytes} bytes, ${p.maxRedirects} redirects. Hosts that resolve to loopback${p.allowLoopback ? ' (allowed here)' : ''}, private or link-local${p.allowPrivate ? ' (allowed here)' : ''} addresses are refused unless the user allowed them; cloud metadata addresses always are. Every hop of a redirect is checked again.`,
  inputSchema: {
    url: z.string().describe('An http:// or https:// URL.'),
    prettify: z.boolean().default(false).describe('Turn HTML into readable text.'),
  },
  outputSchema: fetchOutputShape,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  actions: ['egress'],
  run: async (args, env, extra) => toFetchToolResult(await runFetch(env.files, callContext('fetch', extra), args)),
});
