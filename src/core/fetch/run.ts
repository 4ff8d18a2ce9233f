import { randomUUID } from 'node:crypto';
import { gate, recordDecision } from '../approval';
import type { ResultType } from '../audit';
import { isToolError, type ErrorCode } from '../errors';
import type { Policy } from '../policy';
import { modeVerdict, networkVerdict } from '../modes';
import { strictest, type Verdict } from '../verdict';
import type { FileCall, FileDeps } from '../files/types';
import { isDenialCode } from '../files/types';
import { checkUrl, FetchTimeoutError, guardedGet } from './client';
import { htmlToText } from './prettify';
import { resolveChecked, systemLookup, type LookupAll } from './resolve';

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

/** Fetch is egress: the network setting says whether it may reach out at all, the mode whether to ask first. */
export function decideFetch(policy: Pick<Policy, 'mode' | 'network'>): Verdict {
  return strictest([networkVerdict(policy.network), modeVerdict(policy.mode, ['egress'], 'a fetch (it can carry workspace data out)')]);
}

const TEXTUAL = /^(text\/|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|ecmascript|x-www-form-urlencoded|yaml|x-yaml|toml)\b)/i;

/**
 * The fetch pipeline: URL check → address guard (before anyone is asked) → mode/approval → guarded GET (which
 * judges every hop again) → decode / prettify → audit (`fetch_audit`, never the body).
 */
export async function runFetch(deps: FileDeps, call: FileCall, input: FetchInput, lookup?: LookupAll): Promise<FetchResult> {
  const policy = deps.policy();
  const requestId = call.requestId ?? randomUUID();
  const audit = (r: FetchResult, type: ResultType, rule: string, extra: Record<string, unknown> = {}) =>
    deps.audit.record({
      event: 'fetch_audit',
      tool: call.tool,
      request_id: requestId,
      result_type: type,
      url: input.url,
      rule,
      ...(r.finalUrl !== undefined && r.finalUrl !== input.url && { final_url: r.finalUrl }),
      ...(r.status !== undefined && { status: r.status }),
      ...(r.bytes !== undefined && { bytes: r.bytes, truncated: r.truncated === true }),
      ...(r.redirects && { redirects: r.redirects.length }),
      ...(r.denial && { error_code: r.denial.code, rejection_reason: r.denial.message }),
      ...(r.error && { error_code: r.error.code, error_message: r.error.message }),
      ...extra,
    });

  try {
    const url = checkUrl(input.url);
    await resolveChecked(url.hostname, policy.fetch, lookup ?? systemLookup);
  } catch (e) {
    const r = failed(input.url, e);
    audit(r, r.outcome === 'denied' ? 'rejected' : 'failed', ruleOf(e, 'fetch.check'));
    return r;
  }

  const verdict = decideFetch(policy);
  const gated = await gate(verdict, deps.approver(), () => ({ id: requestId, tool: call.tool, rule: verdict.rule, reason: verdict.kind === 'ask' ? verdict.reason : '', key: `${call.tool} ${input.url}`, fetch: { url: input.url } }), call.signal);
  recordDecision(deps.audit, call.tool, requestId, gated, { url: input.url });
  if (!gated.allowed) {
    const r: FetchResult = { outcome: 'denied', message: gated.reason, url: input.url, denial: { code: gated.code, message: gated.reason, rule: gated.rule } };
    audit(r, 'approval_denied', gated.rule, { approval_ms: gated.waitedMs });
    return r;
  }

  try {
    const res = await guardedGet(input.url, { policy: policy.fetch, ...(lookup && { lookup }), ...(call.signal && { signal: call.signal }) });
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
    const cut = res.truncated ? ` The body was cut at ${policy.fetch.maxBytes} bytes.` : '';
    const message = textual
      ? `HTTP ${res.status} ${res.statusText} from ${res.finalUrl} (${res.body.length} bytes${res.contentType ? `, ${res.contentType}` : ''}).${cut}`
      : `HTTP ${res.status} ${res.statusText} from ${res.finalUrl}: ${res.contentType} content (${res.body.length} bytes) is not text and is not shown.${cut}`;
    const r: FetchResult = {
      outcome: 'ok', message, url: input.url, finalUrl: res.finalUrl, status: res.status, statusText: res.statusText, contentType: res.contentType,
      ...(body !== undefined && { body }), bytes: res.body.length, truncated: res.truncated, prettified, redirects: res.redirects,
      ...(gated.approvedBy && { approvedBy: gated.approvedBy }),
    };
    audit(r, 'success', verdict.rule, { address: res.address, ...(gated.approvedBy && { approved_by: gated.approvedBy }) });
    return r;
  } catch (e) {
    const r = failed(input.url, e);
    audit(r, r.outcome === 'timeout' ? 'timeout' : r.outcome === 'denied' ? 'rejected' : 'failed', ruleOf(e, verdict.rule));
    return r;
  }
}

function decodeBody(bytes: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function ruleOf(e: unknown, fallback: string): string {
  return isToolError(e) && e.rule ? e.rule : fallback;
}

function failed(url: string, e: unknown): FetchResult {
  if (e instanceof FetchTimeoutError) return { outcome: 'timeout', message: e.message, url, error: { code: e.code, message: e.message, rule: 'fetch.timeout' } };
  if (isToolError(e)) {
    if (isDenialCode(e.code)) return { outcome: 'denied', message: e.message, url, denial: { code: e.code, message: e.message, rule: e.rule ?? 'fetch.denied' } };
    return { outcome: 'failed', message: e.message, url, error: { code: e.code, message: e.message, ...(e.rule && { rule: e.rule }) } };
  }
  const message = `fetch failed: ${(e as Error)?.message ?? String(e)}`;
  return { outcome: 'failed', message, url, error: { code: 'IO_ERROR', message } };
}
