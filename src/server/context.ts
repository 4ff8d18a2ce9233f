import type { Approver } from '../core/approval';
import { ApprovalMemory } from '../core/approvalMemory';
import type { AuditLog } from '../core/audit';
import type { CommandDeps } from '../core/commands/run';
import { developerContext, developerSurroundings, type DeveloperContext } from '../core/exec/developer/context';
import type { Executor } from '../core/exec/types';
import type { BackupStore } from '../core/files/backupStore';
import type { CheckpointStore } from '../core/effects/checkpoint';
import type { FileDeps } from '../core/files/types';
import type { IsolationState } from '../core/isolationState';
import { Egress } from '../core/network/egress';
import { SpillSpace } from '../core/output/spill';
import { BackgroundRuns } from '../core/background/runs';
import { createExecutor } from '../core/exec/executor';
import type { Policy } from '../core/policy';

/** Saved command rules the server keeps itself (standalone): listed, added and removed by a person. */
export interface RuleStore {
  list(): readonly string[];
  save(rule: string): void;
  remove(rule: string): void;
}

/**
 * Everything the tools of one server process share, whatever the transport or session: the live policy (swapped
 * whole when settings change), the one executor (so the concurrency limit is global), the audit log, the
 * isolation state and remembered approvals. The approver can depend on the session (MCP elicitation).
 */
export class ServerContext {
  private currentPolicy: Policy;
  readonly memory = new ApprovalMemory();
  /** Hosts a person allowed for the session or always from a card (network: domains), by host name. */
  readonly hostMemory = new ApprovalMemory();
  /** The egress proxies of sandboxed commands (one per call) and their socket folder. */
  egress = new Egress();
  /** Output kept for readOutput, shared (and bounded) over every session; each session has its own ids. */
  readonly spill = new SpillSpace();
  /** Background runs of this folder, every session's (each sees its own), bounded by the policy's caps. */
  readonly background: BackgroundRuns;
  /**
   * The executor background runs start on: a dev server must not hold one of the foreground commands'
   * concurrency slots for an hour. Its own gate only backs the caps up (BackgroundRuns decides, with clear errors).
   */
  readonly backgroundExecutor = createExecutor({ concurrency: 64, maxQueued: 0 });
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
  /** What commands that write the workspace directly changed (checkpoints, beside the backups). */
  checkpoints: CheckpointStore | undefined;
  /**
   * Where "Always allow" rules are kept when the server keeps them itself (standalone: the config file). Absent in
   * VS Code: the extension writes the user setting and pushes the new policy.
   */
  rules: RuleStore | undefined;
  /** The commands' private HOME (real path, created; chosen by the host, never a setting), or none. */
  commandHome: string | undefined;
  /** How settings are named to the person in results: VS Code keys, or the command line's flags. */
  settingsHost: 'vscode' | 'standalone' = 'standalone';
  /** The server's own environment: its PATH and HOME are where the developer's context is read from. */
  parentEnv: NodeJS.ProcessEnv = process.env;
  private surroundingsMemo: { policy: Policy; home: string | undefined; value: Omit<DeveloperContext, 'identity'> } | undefined;

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
    this.background = new BackgroundRuns(audit);
  }

  /** Every remembered approval, commands' and hosts' alike, as the panels list and revoke them. */
  readonly remembered = {
    list: () => [...this.memory.list(), ...this.hostMemory.list()],
    revoke: (key: string): boolean => [this.memory.revoke(key), this.hostMemory.revoke(key)].some(Boolean),
  };

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

  /**
   * HOME and the toolchain folders under a policy (stats of the PATH entries: computed once per policy). The
   * sandbox's mounts (isolationFor) and every command's environment (commandDeps) take them from here.
   */
  surroundingsFor(policy: Policy): Omit<DeveloperContext, 'identity'> {
    const m = this.surroundingsMemo;
    if (m && m.policy === policy && m.home === this.commandHome) return m.value;
    const value = developerSurroundings(policy, { parentEnv: this.parentEnv, ...(this.commandHome && { privateHome: this.commandHome }) });
    this.surroundingsMemo = { policy, home: this.commandHome, value };
    return value;
  }

  /** The dependencies of the file pipeline, with the approver chosen for one session (or the host's, for an Undo). */
  fileDeps(approver: () => Approver): FileDeps {
    return { policy: () => this.currentPolicy, approver, audit: this.audit, backups: () => this.backups };
  }

  /** The dependencies of the command pipeline, with the approver chosen for one session (and its key, for its background runs). */
  commandDeps(approver: () => Approver, session?: string): CommandDeps {
    return {
      policy: () => this.currentPolicy,
      executor: this.executor,
      approver,
      audit: this.audit,
      isolation: () => this.isolation,
      memory: this.memory,
      ...(this.rules && { saveRule: (rule: string) => this.rules!.save(rule) }),
      parentEnv: this.parentEnv,
      settingsHost: this.settingsHost,
      // The git identity is read again for every call: a fixed ~/.gitconfig applies to the next command.
      developer: () => developerContext(this.surroundingsFor(this.currentPolicy), this.currentPolicy.root, this.parentEnv),
      egress: this.egress,
      hostMemory: this.hostMemory,
      ...(session !== undefined && { background: { runs: this.background, executor: this.backgroundExecutor, session } }),
      backups: () => this.backups,
      checkpoints: () => this.checkpoints,
    };
  }
}
