import type { ErrorCode } from '../errors';
import { networkVerdict } from '../modes';
import { problemOf, runGuarded } from '../pipeline';
import type { Verdict } from '../verdict';
import type { FileCall, FileDeps } from '../files/types';
import { isDenialCode } from '../files/types';
import { checkUrl, FetchTimeoutError, guardedGet, loopbackPortListed, type ClientOptions } from './client';
import { htmlToText } from './prettify';
import { resolveChecked, systemLookup, type LookupAll } from './resolve';
import { attempt } from '../attempt';
import { ToolError } from '../errors';
import { normalHost } from '../network/domains';
import { hostVerdict, howToAllow } from '../network/hosts';
import type { Policy } from '../policy';

export interface FetchInput {
  readonly url: string;
  readonly prettify?: boolean;
}

export type FetchOutcome = 'ok' | 'denied' | 'failed' | 'timeout';

export interface FetchResult {
  readonly outcome: FetchOutcome;
  readonly message: string;
  readonly url: string;
  readonly finalUrl?: string;
  readonly status?: number;
  readonly statusText?: string;
  readonly contentType?: string;
  readonly body?: string;
  readonly bytes?: number;
  readonly truncated?: boolean;
  readonly prettified?: boolean;
  readonly redirects?: readonly string[];
  readonly approvedBy?: string;
  readonly denial?: { readonly code: ErrorCode; readonly message: string; readonly rule: string };
  readonly error?: { readonly code: ErrorCode; readonly message: string; readonly rule?: string };
}

const TEXTUAL = /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|toml)\b)/i;

const WHAT = 'a fetch (it can carry workspace data out)';

/**
 * Fetch on the one guarded pipeline: network setting (before any DNS lookup) → URL and address guard (before
 * anyone is asked) → the mode table (egress) → approval → guarded GET (which judges every hop again) → decode /
 * prettify → audit (`fetch_audit`, never the body).
 */
export function runFetch(deps: FileDeps, call: FileCall, input: FetchInput, lookup?: LookupAll, route?: ClientOptions['route']): Promise<FetchResult> {
  let address: string | undefined;
  return runGuarded<FetchResult>(deps, call, {
    event: 'fetch_audit',
    failed: (e) => failed(input.url, e),
    refused: (denial) => ({ outcome: 'denied', message: denial.message, url: input.url, denial }),
    audited: (r) => ({
      ...(r.finalUrl !== undefined && r.finalUrl !== input.url && { final_url: r.finalUrl }),
      ...(r.status !== undefined && { status: r.status }),
      ...(r.bytes !== undefined && { bytes: r.bytes, truncated: r.truncated === true }),
      ...(r.redirects && { redirects: r.redirects.length }),
      ...(r.error && { error_code: r.error.code, error_message: r.error.message, ...(r.error.rule && { rule: r.error.rule }) }),
      ...(address !== undefined && { address }),
    }),
    plan: async (policy) => {
      const planned = {
        actions: ['egress'] as const,
        what: WHAT,
        subject: { url: input.url },
        request: (verdict: Verdict & { kind: 'ask' }, id: string) => ({ id, tool: call.tool, rule: verdict.rule, reason: verdict.reason, key: `${call.tool} ${input.url}`, fetch: { url: input.url } }),
        execute: async (gated: { approvedBy?: string }) => {
          const checkHost = policy.network === 'domains' ? hopChecker(policy, checkUrl(input.url).hostname) : undefined;
          const res = await guardedGet(input.url, { policy: policy.fetch, ...(lookup && { lookup }), ...(call.signal && { signal: call.signal }), ...(checkHost && { checkHost }), ...(route && { route }) });
          address = res.address;
          return { ...describeResponse(res, input, policy.fetch.maxBytes), ...(gated.approvedBy && { approvedBy: gated.approvedBy }) };
        },
      };
      // With the network off nothing is looked up: not even a DNS query leaves the machine.
      const network = networkVerdict(policy.network);
      if (network.kind === 'deny') return { ...planned, checks: [network] };
      const url = checkUrl(input.url);
      // network: domains: the host by name first; one not allowed is not even looked up (a card may still let it in).
      const host = policy.network === 'domains' ? hostVerdict(policy, normalHost(url.hostname), 'egress') : undefined;
      if (host && host.kind !== 'allow') return { ...planned, checks: [host], ...(host.kind === 'ask' && { request: withHost(planned.request, url) }) };
      // A loopback port the person listed (fetch.loopbackPorts) passes the address guard for this URL only.
      await resolveChecked(url.hostname, loopbackPortListed(url, policy.fetch) ? { ...policy.fetch, allowLoopback: true } : policy.fetch, lookup ?? systemLookup);
      return { ...planned, checks: [] };
    },
  });
}

/**
 * The hosts a fetch may reach on its way (network: domains): the first one as judged (listed, or allowed from a
 * card), every redirect's by the list alone: a redirect to a host not listed is refused, not asked.
 */
function hopChecker(policy: Policy, first: string): (host: string) => void {
  const start = normalHost(first);
  return (hostname) => {
    const host = normalHost(hostname);
    if (host === start) return;
    const v = hostVerdict(policy, host, 'egress');
    if (v.kind === 'allow') return;
    const reason = v.kind === 'deny' ? v.reason : `a redirect led to ${host}, which is not on the allowed domains (network: domains); add it to ${howToAllow(host)}.`;
    throw new ToolError('NETWORK_DENIED', `fetch refused: ${reason}`, v.rule);
  };
}

/** The card of a fetch to an unlisted host also names the host (its "always" adds it to the allowed domains). */
function withHost<T extends { fetch: { url: string } }>(request: (v: Verdict & { kind: 'ask' }, id: string) => T, url: URL) {
  return (v: Verdict & { kind: 'ask' }, id: string) => ({
    ...request(v, id),
    network: { host: normalHost(url.hostname), port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80, method: 'GET' },
  });
}

function describeResponse(res: Awaited<ReturnType<typeof guardedGet>>, input: FetchInput, maxBytes: number): FetchResult {
  const textual = res.contentType === '' || TEXTUAL.test(res.contentType);
  let body: string | undefined;
  let prettified = false;
  if (textual) {
    body = decodeBody(res.body, res.contentType);
    if (input.prettify && /html|xml/i.test(res.contentType || 'html') && /<[a-z!]/i.test(body)) {
      body = htmlToText(body);
      prettified = true;
    }
  }
  const cut = res.truncated ? ` The body was cut at ${maxBytes} bytes.` : '';
  const message = textual
    ? `HTTP ${res.status} ${res.statusText} from ${res.finalUrl} (${res.body.length} bytes${res.contentType ? `, ${res.contentType}` : ''}).${cut}`
    : `HTTP ${res.status} ${res.statusText} from ${res.finalUrl}: ${res.contentType} content (${res.body.length} bytes) is not text and is not shown.${cut}`;
  return {
    outcome: 'ok', message, url: input.url, finalUrl: res.finalUrl, status: res.status, statusText: res.statusText, contentType: res.contentType,
    ...(body !== undefined && { body }), bytes: res.body.length, truncated: res.truncated, prettified, redirects: res.redirects,
  };
}

function decodeBody(bytes: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  return attempt(() => new TextDecoder(charset ?? 'utf-8').decode(bytes)) ?? new TextDecoder('utf-8').decode(bytes);
}

function failed(url: string, e: unknown): FetchResult {
  if (e instanceof FetchTimeoutError) return { outcome: 'timeout', message: e.message, url, error: { code: e.code, message: e.message, rule: 'fetch.timeout' } };
  return { url, ...problemOf(e, isDenialCode, 'fetch.denied', 'fetch failed: ') };
}
