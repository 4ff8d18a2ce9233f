import { randomUUID } from 'node:crypto';
import { gate, recordDecision, type ApprovalOption, type Approver, type CallingClient } from '../approval';
import type { ApprovalMemory } from '../approvalMemory';
import type { AuditLog } from '../audit';
import { commandHostVerdict } from '../network/hosts';
import type { HostDecision, ProxyTarget } from '../network/proxy';
import type { Policy } from '../policy';
import type { Verdict } from '../verdict';

/**
 * What the egress proxy asks about each host a running command tries (network: domains): the domain list and the
 * mode decide (src/core/network/hosts.ts); an unlisted host, in a mode that asks, becomes a card through the same
 * approver and the same decision audit as the command's own card. "This session" and "always" are remembered by
 * host for the server's life ("always" is also written to the user's settings by the host); "once" lets this
 * command reach it. Each host is asked at most once per command, however many connections it opens meanwhile.
 */

export interface HostApprovalDeps {
  readonly approver: () => Approver;
  readonly audit: AuditLog;
  /** Hosts a person allowed for the session (or always), keyed by host name. */
  readonly hostMemory?: ApprovalMemory;
}

export interface HostApprovalCall {
  readonly tool: string;
  readonly client?: CallingClient;
  readonly relatedRequestId?: string | number;
  /** The command line, shown on the card and in the decision's audit event. */
  readonly command: string;
  /** Aborted when the command ends (or is cancelled): an open card is withdrawn. */
  readonly signal: AbortSignal;
}

/** A "15 minutes" host approval lasts as long as a command's (run.ts TIMED_APPROVAL_MS). */
const TIMED_MS = 15 * 60 * 1000;

export function hostDecider(policy: Policy, deps: HostApprovalDeps, call: HostApprovalCall): (t: ProxyTarget) => Promise<HostDecision> {
  const asked = new Map<string, Promise<HostDecision>>();
  return (t) => {
    const verdict = commandHostVerdict(policy, t.host);
    if (verdict.kind === 'allow') return Promise.resolve({ allowed: true, rule: verdict.rule });
    if (verdict.kind === 'deny') return Promise.resolve({ allowed: false, rule: verdict.rule, reason: verdict.reason });
    if (deps.hostMemory?.has(t.host)) return Promise.resolve({ allowed: true, rule: 'approval.remembered' });
    let decision = asked.get(t.host);
    if (!decision) {
      decision = askPerson(verdict, t, deps, call);
      asked.set(t.host, decision);
    }
    return decision;
  };
}

async function askPerson(verdict: Verdict & { kind: 'ask' }, t: ProxyTarget, deps: HostApprovalDeps, call: HostApprovalCall): Promise<HostDecision> {
  const id = randomUUID();
  const gated = await gate(
    verdict,
    deps.approver(),
    () => ({
      id,
      tool: call.tool,
      rule: verdict.rule,
      reason: `"${call.command}" wants to reach ${t.host}:${t.port} (${t.method}), which is not on the allowed domains (network: domains).`,
      key: t.host,
      network: { host: t.host, port: t.port, method: t.method, command: call.command },
      ...(call.client && { client: call.client }),
    }),
    call.signal,
    call.relatedRequestId !== undefined ? { relatedRequestId: call.relatedRequestId } : undefined,
  );
  recordDecision(deps.audit, call.tool, id, gated, { host: t.host, port: t.port, method: t.method, command: call.command });
  if (!gated.allowed) return { allowed: false, rule: gated.rule, reason: `${t.host}: ${gated.reason}` };
  remember(deps.hostMemory, t.host, gated.option);
  return { allowed: true, rule: `approval.${gated.option ?? 'once'}` };
}

function remember(memory: ApprovalMemory | undefined, host: string, option: ApprovalOption | undefined): void {
  if (!memory) return;
  if (option === 'session' || option === 'always') memory.allowForSession(host);
  else if (option === 'timed') memory.allowFor(host, TIMED_MS);
}
