import type { Approver } from '../core/approval';
import { ApprovalMemory } from '../core/approvalMemory';
import type { AuditLog } from '../core/audit';
import type { CommandDeps } from '../core/commands/run';
import type { Executor } from '../core/exec/types';
import type { BackupStore } from '../core/files/backupStore';
import type { FileDeps } from '../core/files/types';
import type { IsolationState } from '../core/isolationState';
import { SpillSpace } from '../core/output/spill';
import type { Policy } from '../core/policy';

/**
 * Everything the tools of one server process share, whatever the transport or session: the live policy (swapped
 * whole when settings change), the one executor (so the concurrency limit is global), the audit log, the
 * isolation state and remembered approvals. The approver can depend on the session (MCP elicitation).
 */
export class ServerContext {
  private currentPolicy: Policy;
  readonly memory = new ApprovalMemory();
  /** Output kept for readOutput, shared (and bounded) over every session; each session has its own ids. */
  readonly spill = new SpillSpace();
  private readonly policyListeners = new Set<(p: Policy) => void>();
  /** Recomputes the isolation when the policy changes (mode readOnly makes the sandbox's workspace read-only). */
  isolationFor?: (policy: Policy) => IsolationState;
  /**
   * Settles once the isolation is known (the sandbox probe runs while the transport starts). Every tool call
   * awaits it before anything else (tools/index.ts), so no command can run before the probe has answered; until
   * then the isolation is PROBE_PENDING, which denies every command in any case.
   */
  ready: Promise<void> = Promise.resolve();
  /** Where `editBackup: storage` keeps previous contents (outside the workspace; chosen by the host, never a setting). */
  backups: BackupStore | undefined;

  constructor(
    policy: Policy,
    readonly executor: Executor,
    readonly audit: AuditLog,
    public isolation: IsolationState,
    /** The approver used when the session has none of its own (VS Code channel, or "unavailable"). */
    public defaultApprover: Approver,
    readonly version: string,
  ) {
    this.currentPolicy = policy;
  }

  get policy(): Policy {
    return this.currentPolicy;
  }

  /** Swaps the policy in whole: calls already decided keep the policy they were decided under. */
  setPolicy(policy: Policy): void {
    this.currentPolicy = policy;
    if (this.isolationFor) this.isolation = this.isolationFor(policy);
    this.executor.setConcurrency(policy.concurrency);
    for (const l of this.policyListeners) l(policy);
  }

  onPolicyChange(listener: (p: Policy) => void): () => void {
    this.policyListeners.add(listener);
    return () => this.policyListeners.delete(listener);
  }

  /** The dependencies of the file pipeline, with the approver chosen for one session (or the host's, for an Undo). */
  fileDeps(approver: () => Approver): FileDeps {
    return { policy: () => this.currentPolicy, approver, audit: this.audit, backups: () => this.backups };
  }

  /** The dependencies of the command pipeline, with the approver chosen for one session. */
  commandDeps(approver: () => Approver): CommandDeps {
    return {
      policy: () => this.currentPolicy,
      executor: this.executor,
      approver,
      audit: this.audit,
      isolation: () => this.isolation,
      memory: this.memory,
    };
  }
}
