import { z } from 'zod';
import { runFetch } from '../../core/fetch/run';
import { callContext } from './callContext';
import { defineTool } from './define';
import { fetchOutputShape, toFetchToolResult } from './files/result';

export default defineTool({
  name: 'fetch',
  title: 'Fetch a URL',
  description: ({ fetch: p, network }) =>
    `HTTP(S) GET a URL; returns the status and text body (prettify: HTML as text). Limits ${p.timeoutSeconds} s, ${p.maxBytes} bytes, ${p.maxRedirects} redirects. Refused: metadata${p.allowLoopback ? '' : ', loopback'}${p.allowPrivate ? '' : ', private'} addresses (each redirect is checked)${network === 'domains' ? ', and hosts not on the allowed domains' : ''}.`,
  inputSchema: {
    url: z.string(),
    prettify: z.boolean().default(false),
  },
  outputSchema: fetchOutputShape,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: async (args, env, extra) => toFetchToolResult(await runFetch(env.files, callContext('fetch', extra), args), env.place),
});
