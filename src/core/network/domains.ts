import { z } from 'zod';
import { parseAddress, type ParsedAddress } from '../fetch/address';
import { DOMAIN_PRESETS, type DomainPreset } from './presets';

/**
 * The domain list of `network: domains`, as PURE functions: which entries are valid, which host an entry matches,
 * and whether a host is listed, denied or neither. The proxy (commands) and the fetch tool ask the same
 * `listHost`, by name, BEFORE any lookup: an unlisted name is never even resolved.
 *
 * Entries: an exact name (`registry.npmjs.org`), `*.suffix` (every name strictly below it: `*.github.com`
 * matches `api.github.com`, not `github.com`), or an IP address (then only that address, written in any
 * spelling, matches). Names compare without case and without a trailing dot. International names are written
 * in their `xn--` form (what programs put on the wire).
 */

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** A host name (or address text) as compared: lower case, no trailing dot, IPv6 without brackets. */
export function normalHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/** Why a host name is not one (undefined: it is). IP addresses are judged by parseAddress, not here. */
function nameProblem(name: string): string | undefined {
  if (name === '') return 'an empty name';
  if (/[^\x00-\x7f]/.test(name)) return 'international names are written in their xn-- form (e.g. xn--bcher-kva.example)';
  if (name.length > 253) return 'longer than 253 characters';
  const labels = name.split('.');
  if (labels.some((l) => !LABEL.test(l))) return 'not a host name (letters, digits, "-" and "_" between dots)';
  return undefined;
}

/** Why an entry of allowedDomains / deniedDomains cannot be used (undefined: it can). */
export function domainEntryProblem(entry: string): string | undefined {
  if (/\s/.test(entry)) return `"${entry}" contains white space`;
  const e = normalHost(entry);
  if (e === '*') return '"*" alone would allow every host: use network "allow" for that';
  if (e.startsWith('*.')) {
    const suffix = e.slice(2);
    if (parseAddress(suffix)) return '"*." cannot stand before an IP address';
    const problem = nameProblem(suffix);
    return problem && `"${entry}": ${problem}`;
  }
  if (e.includes('*')) return `"${entry}": "*" may only stand alone as the first label ("*.example.org")`;
  if (parseAddress(e)) return undefined;
  const problem = nameProblem(e);
  return problem && `"${entry}": ${problem}`;
}

/** The zod shape of one list entry (settings registry). */
export const domainEntry = z.string().superRefine((s, ctx) => {
  const problem = domainEntryProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', message: `a domain entry must be a host name, "*.suffix" or an IP address: ${problem}` });
});

const sameAddress = (a: ParsedAddress, b: ParsedAddress): boolean =>
  a.family === 4 ? b.family === 4 && a.value === b.value : b.family === 6 && a.words.every((w, i) => w === b.words[i]);

/** Whether one (valid) entry matches a host (normalised: see normalHost). */
export function entryMatches(entry: string, host: string): boolean {
  const e = normalHost(entry);
  const address = parseAddress(host);
  if (address) {
    const listed = e.startsWith('*.') ? undefined : parseAddress(e);
    return listed !== undefined && sameAddress(listed, address);
  }
  if (e.startsWith('*.')) return host.endsWith(e.slice(1));
  return e === host;
}

/**
 * Whether everything `inner` matches is matched by `outer` too: a workspace's entry is kept only when the user's
 * list covers it (`a.example.org` and `*.a.example.org` are covered by `*.example.org`; `example.org` is not).
 */
export function entryCovers(outer: string, inner: string): boolean {
  const o = normalHost(outer), i = normalHost(inner);
  if (o === i) return true;
  if (i.startsWith('*.')) return o.startsWith('*.') && i.endsWith(o.slice(1));
  return entryMatches(o, i);
}

export interface DomainList {
  /** allowedDomains and every preset's hosts. */
  readonly allowed: readonly string[];
  /** deniedDomains: wins over `allowed`. */
  readonly denied: readonly string[];
}

/** The effective list of a policy: the allowed entries plus the presets' hosts, and the denied entries. */
export function domainList(p: { readonly allowedDomains: readonly string[]; readonly deniedDomains: readonly string[]; readonly domainPresets: readonly DomainPreset[] }): DomainList {
  return {
    allowed: [...new Set([...p.allowedDomains, ...p.domainPresets.flatMap((name) => DOMAIN_PRESETS[name])])],
    denied: [...p.deniedDomains],
  };
}

export type HostListing =
  | { readonly kind: 'listed'; readonly entry: string }
  | { readonly kind: 'denied'; readonly entry: string }
  | { readonly kind: 'unlisted' }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Whether a host is on the list: a denied entry wins over an allowed one; an IP address only by its own entry. */
export function listHost(rawHost: string, list: DomainList): HostListing {
  const host = normalHost(rawHost);
  if (!parseAddress(host)) {
    const problem = nameProblem(host);
    if (problem) return { kind: 'invalid', reason: `"${rawHost}" is ${problem.startsWith('not') ? problem : `not usable: ${problem}`}` };
  }
  const denied = list.denied.find((e) => entryMatches(e, host));
  if (denied !== undefined) return { kind: 'denied', entry: denied };
  const allowed = list.allowed.find((e) => entryMatches(e, host));
  return allowed !== undefined ? { kind: 'listed', entry: allowed } : { kind: 'unlisted' };
}

/** A workspace's entries narrowed to what the user's list covers: the kept ones, and the dropped ones (reported). */
export function narrowDomains(user: readonly string[], workspace: readonly string[]): { kept: string[]; dropped: string[] } {
  const kept: string[] = [], dropped: string[] = [];
  for (const w of workspace) (user.some((u) => entryCovers(u, w)) ? kept : dropped).push(w);
  return { kept: [...new Set(kept)], dropped };
}
