import { z } from 'zod';
import { runFetch } from '../../core/fetch/run';
import { portRoute } from '../../core/background/network';
import { callContext } from './callContext';
import { defineTool } from './define';
import { fetchOutputShape, toFetchToolResult } from './files/result';

export default defineTool({
  name: 'fetch',
  title: 'Fetch a URL',
  description: ({ fetch: p, network }) =>
    `HTTP(S) GET a URL; returns the status and text body (prettify: HTML as text). Limits ${p.timeoutSeconds} s, ${p.maxBytes} bytes, ${p.maxRedirects} redirects. Refused: metadata${p.allowLoopback ? '' : `, loopback${p.loopbackPorts.length ? ` (but localhost:${p.loopbackPorts.join(',')})` : ''}`}${p.allowPrivate ? '' : ', private'} addresses (each redirect is checked)${network === 'domains' ? ', and hosts not on the allowed domains' : ''}.`,
  inputSchema: {
    url: z.string(),
    prettify: z.boolean().default(false),
  },
  outputSchema: fetchOutputShape,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: async (args, env, extra) => {
    // A loopback port a sandboxed background command of this folder listens on is reached inside its sandbox.
    const bg = env.commands.background;
    return toFetchToolResult(await runFetch(env.files, callContext('fetch', extra), args, undefined, bg && portRoute(bg.runs)), env.place);
  },
});
