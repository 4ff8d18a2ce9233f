import * as dns from 'node:dns';
import { ToolError } from '../errors';
import type { FetchPolicy } from '../policy';
import { classifyAddress, judgeClass, parseAddress } from './address';

/** A DNS lookup returning every address of a name (injected in tests, so no test ever asks a real resolver). */
export type LookupAll = (hostname: string) => Promise<ReadonlyArray<{ readonly address: string; readonly family: number }>>;

export const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface CheckedTarget {
  /** The address fetch connects to: the one that was checked (pinned, so a DNS answer that changes is never used). */
  readonly address: string;
  readonly family: 4 | 6;
}

/** Who is checking, for the messages and rule ids: the fetch tool (`fetch.address.private`) or the proxy. */
export interface GuardLabel {
  readonly name: string;
  readonly rule: string;
}
export const FETCH_GUARD: GuardLabel = { name: 'fetch', rule: 'fetch' };

/**
 * Resolves a URL's host ONCE and judges every address it has: if any is refused, the host is refused (a name
 * that answers both a public and a private address could pick either at connect time). IP literals are judged
 * as they are, in whatever spelling, without a lookup.
 */
export async function resolveChecked(
  hostname: string, policy: Pick<FetchPolicy, 'allowLoopback' | 'allowPrivate'>, lookup: LookupAll, who: GuardLabel = FETCH_GUARD,
): Promise<CheckedTarget> {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (host === '') throw new ToolError('BAD_REQUEST', 'The URL has no host.', `${who.rule}.no-host`);
  const literal = parseAddress(host);
  if (literal) {
    const verdict = judgeClass(classifyAddress(literal), policy);
    if (!verdict.allowed) throw new ToolError('NETWORK_DENIED', `${who.name} refused "${hostname}": it is ${verdict.reason}.`, `${who.rule}.address.${verdict.class}`);
    return { address: literal.family === 6 ? host.replace(/%.*$/, '') : canonicalV4(literal.value), family: literal.family };
  }
  let answers: ReadonlyArray<{ address: string; family: number }>;
  try {
    answers = await lookup(host);
  } catch (e) {
    throw new ToolError('IO_ERROR', `The host "${host}" could not be resolved: ${(e as Error).message}`, `${who.rule}.dns`);
  }
  if (answers.length === 0) throw new ToolError('IO_ERROR', `The host "${host}" has no address.`, `${who.rule}.dns`);
  for (const a of answers) {
    const parsed = parseAddress(a.address);
    if (!parsed) throw new ToolError('NETWORK_DENIED', `${who.name} refused "${host}": the resolver answered "${a.address}", which is not an IP address.`, `${who.rule}.address.invalid`);
    const verdict = judgeClass(classifyAddress(parsed), policy);
    if (!verdict.allowed) throw new ToolError('NETWORK_DENIED', `${who.name} refused "${host}": it resolves to ${a.address}, ${verdict.reason}.`, `${who.rule}.address.${verdict.class}`);
  }
  const first = answers[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

function canonicalV4(v: number): string {
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}
