import type { ErrorCode } from './errors';

/**
 * The answer of the validation pipeline to one request. Deny beats ask beats allow; every verdict names the
 * rule that produced it so a person can see exactly why.
 */
export type Verdict =
  | { readonly kind: 'allow'; readonly rule: string }
  | { readonly kind: 'ask'; readonly reason: string; readonly rule: string }
  | { readonly kind: 'deny'; readonly code: ErrorCode; readonly reason: string; readonly rule: string };

export const allow = (rule: string): Verdict => ({ kind: 'allow', rule });
export const ask = (rule: string, reason: string): Verdict => ({ kind: 'ask', rule, reason });
export const deny = (code: ErrorCode, rule: string, reason: string): Verdict => ({ kind: 'deny', code, rule, reason });

const rank = { allow: 0, ask: 1, deny: 2 } as const;

/** The strictest of the verdicts; among equals, the first (so the earliest rule is reported). */
export function strictest(verdicts: readonly Verdict[], fallback: Verdict = allow('default')): Verdict {
  let best = fallback;
  let seen = false;
  for (const v of verdicts) {
    if (!seen || rank[v.kind] > rank[best.kind]) best = v;
    seen = true;
  }
  return best;
}
