import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalOption, ApprovalRequest, Approver } from '../../core/approval';
import type { ApprovalMemory } from '../../core/approvalMemory';
import type { AuditSink } from '../../core/audit';
import { HistoryStore } from '../../shared/approvalPanel/history';
import { toCard } from '../../shared/approvalPanel/viewModel';
import { alwaysRuleProblem } from '../../shared/approvalPanel/alwaysRule';
import type { RuleStore } from '../context';
import { batchKindOf, type Card, type HostToWebview, type RememberedEntry, type WebviewToHost } from '../../shared/webviewProtocol';

/**
 * The standalone approver the MCP client cannot answer: requests wait here until a person decides on the local
 * approval page (src/server/http/approvalPage.ts), which speaks the same messages as the VS Code panel
 * (src/shared/webviewProtocol.ts). Nothing here knows HTTP; the page server feeds `receive` and relays `subscribe`.
 *
 * Every pending card gets its own random id, so a page can only decide a request it was shown (request ids are
 * guessable: session id and JSON-RPC id).
 */

interface Pending {
  readonly card: Card;
  readonly request: ApprovalRequest;
  readonly settle: (d: ApprovalDecision) => void;
}

/**
 * What the page offers: "session" and "15 minutes" are remembered by the server (ApprovalMemory, commands only);
 * "always" saves a command rule where the server keeps them (the config file), so only when it has such a store.
 */
export function webOptionsFor(request: ApprovalRequest, canSaveRules: boolean): ApprovalOption[] {
  if (!request.command) return ['once'];
  return canSaveRules ? ['once', 'session', 'timed', 'always'] : ['once', 'session', 'timed'];
}

export class WebApprover implements Approver {
  readonly kind = 'web';
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<(m: HostToWebview) => void>();
  private readonly history = new HistoryStore();

  constructor(
    /** The folder name shown on cards (the workspace root's base name). */
    private readonly folder: string,
    /** Milliseconds a request waits for a decision (the policy's approval timeout, read per request). */
    private readonly timeoutMs: () => number,
    /** The server's remembered approvals: listed on the history tab, revocable from there. */
    private readonly memory: Pick<ApprovalMemory, 'list' | 'revoke'>,
    /** The saved "Always allow" rules (the config file), when the server keeps them: listed and removable. */
    private readonly rules?: RuleStore,
  ) {}

  approve(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalDecision> {
    if (signal?.aborted) return Promise.resolve({ approved: false, by: 'cancelled', reason: 'The request was cancelled.' });
    return new Promise((resolve) => {
      const id = randomUUID();
      const base = toCard(request, this.folder, Date.now());
      const card: Card = { ...base, id, options: webOptionsFor(request, this.rules !== undefined), ...(base.change && { change: { ...base.change, canOpenDiff: false } }), ...(base.effect && { effect: { ...base.effect, canOpenDiff: false } }) };
      let done = false;
      const finish = (d: ApprovalDecision, withdrawWhy?: string): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        this.history.noteDecision(request, this.folder, d);
        if (withdrawWhy) this.broadcast({ type: 'withdraw', id, why: withdrawWhy });
        this.broadcast(this.showMessage());
        this.broadcast(this.historyMessage());
        resolve(d);
      };
      const timer = setTimeout(() => finish({ approved: false, by: 'timeout', reason: 'Nobody approved the request in time.' }, 'timed out'), this.timeoutMs());
      timer.unref?.();
      const onAbort = (): void => finish({ approved: false, by: 'cancelled', reason: 'The request was cancelled.' }, 'cancelled by the client');
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, { card, request, settle: (d) => finish(d) });
      this.broadcast(this.showMessage());
    });
  }

  /** A message from the page, already checked by parseWebviewMessage. Returns false for one naming no pending card. */
  receive(m: WebviewToHost): boolean {
    switch (m.type) {
      case 'ready':
        return true;
      case 'decide': {
        const p = this.pending.get(m.id);
        if (!p) return false;
        if (m.approved && !p.card.options.includes(m.option)) return false;
        const rule = m.approved && m.option === 'always' ? (m.rule ?? p.request.key) : undefined;
        const problem = rule !== undefined ? alwaysRuleProblem(p.request, rule) : undefined;
        if (problem) {
          // The card stays; the page hears why (it took the card away when the button was pressed).
          this.broadcast(this.showMessage());
          this.broadcast({ type: 'ruleRejected', id: m.id, why: problem });
          return false;
        }
        p.settle(m.approved ? { approved: true, by: 'web', option: m.option, ...(rule !== undefined && { rule }) } : { approved: false, by: 'web', ...(m.reason && { reason: m.reason }) });
        return true;
      }
      case 'approveAll': {
        // Only the cards listed (what the page showed before the person confirmed), and only of the confirmed kind.
        let any = false;
        for (const id of m.ids) {
          const p = this.pending.get(id);
          if (!p || batchKindOf(p.request) !== m.kind) continue;
          p.settle({ approved: true, by: 'web', option: 'all' });
          any = true;
        }
        return any;
      }
      case 'revoke': {
        let ok = this.memory.revoke(m.key);
        if (m.kind === 'always' && this.rules?.list().includes(m.key)) {
          try {
            this.rules.remove(m.key);
            ok = true;
          } catch {
            ok = false; // the config file could not be changed (it says why in the audit of the next start)
          }
        }
        this.broadcast(this.historyMessage());
        return ok;
      }
      case 'openDiff':
        return false; // no diff editor outside VS Code: the card shows the diff itself
      case 'undo':
        return false; // Undo is offered in VS Code's panel (this page's history never shows the button)
      case 'dismissNotice':
        return false; // the double-prompt notice is VS Code's only: this page never shows it
      case 'stopBackground':
        return false; // background commands are listed (with Stop) in VS Code's panel; here the agent stops them
    }
  }

  /** Receives every message for the page until the returned function is called; starts with the current state. */
  subscribe(listener: (m: HostToWebview) => void): () => void {
    this.listeners.add(listener);
    listener(this.showMessage());
    listener(this.historyMessage());
    return () => this.listeners.delete(listener);
  }

  /** The audit (already redacted) feeds the history tab. */
  auditSink(): AuditSink {
    return {
      write: (r) => {
        this.history.addAudit(r, this.folder);
        if (this.listeners.size) this.broadcast(this.historyMessage());
      },
    };
  }

  pendingCount(): number {
    return this.pending.size;
  }

  /** Denies everything still waiting (the server is stopping). */
  close(): void {
    for (const p of [...this.pending.values()]) p.settle({ approved: false, by: 'cancelled', reason: 'The server is stopping.' });
    this.listeners.clear();
  }

  private showMessage(): HostToWebview {
    return { type: 'show', cards: [...this.pending.values()].map((p) => p.card) };
  }

  private historyMessage(): HostToWebview {
    const remembered: RememberedEntry[] = this.memory.list().map((r) => ({
      folder: this.folder,
      key: r.key,
      kind: r.expiresAt === undefined ? 'session' : 'timed',
      grantedAt: r.grantedAt,
      ...(r.expiresAt !== undefined && { expiresAt: r.expiresAt }),
    }));
    for (const rule of this.rules?.list() ?? []) remembered.push({ folder: '', key: rule, kind: 'always', grantedAt: 0 });
    return { type: 'history', entries: this.history.list().map((e) => ({ ...e, hasDiff: false })), remembered };
  }

  private broadcast(m: HostToWebview): void {
    for (const l of this.listeners) {
      try {
        l(m);
      } catch {
        /* a page that went away must not break a decision */
      }
    }
  }
}
