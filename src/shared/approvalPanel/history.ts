import type { ApprovalDecision, ApprovalOption, ApprovalRequest } from '../../core/approval';
import type { AuditRecord } from '../../core/audit';
import type { HistoryEntry, HistoryHost, HistoryOutcome, RememberedEntry, RememberedKind } from '../webviewProtocol';

/**
 * The history tab's data, without VS Code (unit-tested). Fed by two sources: the (already redacted) audit records
 * every folder's server sends, and the decisions taken in this panel (which the audit does not fully carry: a
 * denial records no "decided by"). Bounded: old entries fall off.
 */

export const HISTORY_LIMIT = 200;
/** Changes kept for "Open diff" from the history (their full content is held in memory). */
export const DIFF_KEEP = 20;
const DIFF_KEEP_BYTES = 2 * 1024 * 1024;

type Mutable = { -readonly [K in keyof HistoryEntry]: HistoryEntry[K] };

const TOOL_EVENTS = new Set(['shell_execution_audit', 'file_audit', 'fetch_audit', 'output_audit', 'approval_audit']);

export interface KeptChange {
  readonly folder: string;
  readonly files: readonly string[];
  readonly original?: string;
  readonly proposed: string;
}

export class HistoryStore {
  /** Newest last; Map keeps insertion order. */
  private readonly entries = new Map<string, Mutable>();
  private readonly changes = new Map<string, KeptChange>();

  constructor(
    private readonly limit = HISTORY_LIMIT,
    /** The host can undo a kept change (VS Code's panel); elsewhere no entry offers Undo. */
    private readonly offersUndo = false,
  ) {}

  /** Newest first, as the page lists them. */
  list(): HistoryEntry[] {
    return [...this.entries.values()].reverse().map((e) => ({ ...e, hasDiff: this.changes.has(e.requestId) }));
  }

  change(requestId: string): KeptChange | undefined {
    return this.changes.get(requestId);
  }

  /** One audit record from a folder's server. Server events and records without a request id are not requests. */
  addAudit(r: AuditRecord, folder: string): void {
    if (!TOOL_EVENTS.has(r.event) || typeof r.request_id !== 'string') return;
    const e = this.entry(r.request_id, folder, typeof r.tool === 'string' ? r.tool : '?', r.timestamp);
    // The argv (each element quoted) says more than the approval's joined command line: it wins when it comes.
    if (Array.isArray(r.argv) && r.argv.length) e.summary = quoteArgv(r.argv);
    else if (!e.summary) e.summary = summaryOf(r);
    if (r.event === 'approval_audit') {
      if (typeof r.decided_by === 'string') e.decidedBy = r.decided_by;
      if (typeof r.option === 'string') e.option = r.option as ApprovalOption;
      if (e.outcome === 'withdrawn' || e.outcome === 'approved') e.outcome = 'approved';
      return;
    }
    e.outcome = outcomeOf(r.result_type);
    // A background command: running from its start until its end arrives under the same request id.
    if (typeof r.background === 'string' && r.background !== 'list') {
      // A stop of or input to one is a line of its own (tool shell_background), naming what it did to which.
      const acted = r.background_state === 'stop' || r.background_state === 'input';
      e.background = acted ? `${String(r.background_state)} ${r.background}` : r.background;
      if (r.background_state === 'started') e.outcome = 'running';
      if (typeof r.stopped_by === 'string') e.stoppedBy = r.stopped_by;
    }
    if (r.event === 'shell_execution_audit') noteEffect(e, r);
    // A command's changes are undone like a file change's: from the backup its effect or its checkpoint kept.
    if (this.offersUndo && (r.event === 'file_audit' || r.event === 'shell_execution_audit') && e.outcome === 'success') {
      if (r.undoable === true) e.canUndo = true;
      // An Undo that went through: the change it reverted has nothing left to undo (the Undo itself can be undone).
      const undone = typeof r.undoes === 'string' ? this.entries.get(r.undoes) : undefined;
      if (undone) undone.canUndo = false;
    }
    if (typeof r.return_code === 'number' || r.return_code === null) e.exitCode = r.return_code as number | null;
    if (typeof r.duration === 'number') e.durationMs = Math.round(r.duration * 1000);
    if (typeof r.approved_by === 'string' && !e.decidedBy) e.decidedBy = r.approved_by;
    if (Array.isArray(r.network_hosts)) e.hosts = r.network_hosts.filter((h): h is Record<string, unknown> => !!h && typeof h === 'object').map(historyHost);
    const why = typeof r.rejection_reason === 'string' ? r.rejection_reason : typeof r.error_message === 'string' ? r.error_message : undefined;
    if (why) e.reason = why;
  }

  /** A decision taken in the panel (or by the panel closing, a timeout, a withdrawal). */
  noteDecision(request: ApprovalRequest, folder: string, decision: ApprovalDecision, at: Date = new Date()): void {
    if (request.effect) return this.noteEffectDecision(request, folder, decision, at);
    const e = this.entry(request.id, folder, request.tool, at.toISOString());
    if (!e.summary) e.summary = summaryOfRequest(request);
    e.decidedBy = decision.by;
    if (decision.option) e.option = decision.option;
    if (decision.approved) {
      if (e.outcome === 'withdrawn') e.outcome = 'approved';
    } else {
      e.outcome = decision.by === 'withdrawn' ? 'withdrawn' : 'denied';
      if (decision.reason) e.reason = decision.reason;
    }
    const ch = request.change;
    if (ch?.proposed !== undefined && ch.proposed.length + (ch.original?.length ?? 0) <= DIFF_KEEP_BYTES) {
      this.changes.set(request.id, { folder, files: ch.files, proposed: ch.proposed, ...(ch.original !== undefined && { original: ch.original }) });
      while (this.changes.size > DIFF_KEEP) this.changes.delete(this.changes.keys().next().value!);
    }
  }

  /**
   * Apply or Discard on a command's effect card: it belongs to the command's own entry (one line per command in the
   * timeline). Its diff is kept for "Open diff" when it is one text file.
   */
  private noteEffectDecision(request: ApprovalRequest, folder: string, decision: ApprovalDecision, at: Date): void {
    const fx = request.effect!;
    const e = this.entry(fx.requestId, folder, request.tool, at.toISOString());
    if (!e.summary) e.summary = fx.stages.map(quoteArgv).join(' | ');
    e.effect = decision.approved ? 'applied' : 'discarded';
    if (!decision.approved && decision.reason) e.reason = decision.reason;
    e.changes = fx.files.slice(0, CHANGES_SHOWN).map((f) => f.path);
    e.changedCount = fx.files.length + fx.more;
    if (fx.proposed !== undefined && fx.files.length === 1 && fx.proposed.length + (fx.original?.length ?? 0) <= DIFF_KEEP_BYTES) {
      this.changes.set(fx.requestId, { folder, files: [fx.files[0]!.path], proposed: fx.proposed, ...(fx.original !== undefined && { original: fx.original }) });
      while (this.changes.size > DIFF_KEEP) this.changes.delete(this.changes.keys().next().value!);
    }
  }

  private entry(requestId: string, folder: string, tool: string, time: string): Mutable {
    let e = this.entries.get(requestId);
    if (!e) {
      // 'withdrawn' until something says otherwise: an entry with no outcome event yet has not run.
      e = { requestId, folder, tool, time, summary: '', outcome: 'withdrawn', hasDiff: false };
      this.entries.set(requestId, e);
      while (this.entries.size > this.limit) {
        const oldest = this.entries.keys().next().value!;
        this.entries.delete(oldest);
        this.changes.delete(oldest);
      }
    }
    e.time = time;
    return e;
  }
}

/** Paths of a command's changes listed in its history entry (the count says how many in all). */
export const CHANGES_SHOWN = 20;

/** A command's effect from its audit event: the paths (never contents) and what became of them. */
function noteEffect(e: Mutable, r: AuditRecord): void {
  if (typeof r.effect_outcome === 'string') e.effect = r.effect_outcome;
  if (Array.isArray(r.changed_files)) e.changes = r.changed_files.slice(0, CHANGES_SHOWN).map(String);
  if (typeof r.changed_count === 'number') e.changedCount = r.changed_count;
}

function outcomeOf(t: unknown): HistoryOutcome {
  switch (t) {
    case 'success': return 'success';
    case 'failed': return 'failed';
    case 'timeout': return 'timeout';
    case 'canceled': return 'canceled';
    case 'output_limit': return 'output_limit';
    case 'approved': return 'approved';
    case 'rejected':
    case 'approval_denied': return 'denied';
    default: return 'error';
  }
}

/** argv elements JSON-quoted, so spaces and quotes inside one element stay visible. */
export function quoteArgv(argv: readonly unknown[]): string {
  return argv.map((a) => JSON.stringify(String(a))).join(' ');
}

/** One host of an audit event's `network_hosts` (src/core/network/record.ts auditedAttempts), as plain data. */
function historyHost(h: Record<string, unknown>): HistoryHost {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    host: String(h.host), port: n(h.port), allowed: h.allowed === true, methods: Array.isArray(h.methods) ? h.methods.map(String) : [],
    requests: n(h.requests), bytesSent: n(h.bytes_sent), bytesReceived: n(h.bytes_received),
  };
}

/** A running command's host card: the host, and the command that tried it. */
const hostSummary = (host: string, port: unknown, command: unknown) => `${host}:${String(port)}${typeof command === 'string' ? ` ← ${command}` : ''}`;

function summaryOf(r: AuditRecord): string {
  if (r.background === 'list') return 'list of background commands';
  if (typeof r.output_id === 'string') return `output ${r.output_id}`;
  if (typeof r.host === 'string') return hostSummary(r.host, r.port, r.command);
  if (Array.isArray(r.argv) && r.argv.length) return quoteArgv(r.argv);
  if (Array.isArray(r.files) && r.files.length) return r.files.map(String).join(' → ');
  if (typeof r.url === 'string') return r.url;
  if (typeof r.command === 'string') return r.command;
  return '';
}

function summaryOfRequest(r: ApprovalRequest): string {
  if (r.network && !r.fetch) return hostSummary(r.network.host, r.network.port, r.network.command);
  if (r.command) return r.command.stages.map(quoteArgv).join(' | ');
  if (r.change) return r.change.files.join(' → ');
  if (r.fetch) return r.fetch.url;
  return r.key;
}

/** Minutes of a "15 minutes" approval, as the server counts them (src/core/commands/run.ts TIMED_APPROVAL_MS). */
export const TIMED_MS = 15 * 60 * 1000;

/**
 * Approvals beyond one request that this panel granted (it knows the exact key; the audit may have redacted it):
 * session and 15-minute ones live in the server's memory, "always" in the user's settings.
 */
export class RememberedList {
  private readonly entries = new Map<string, RememberedEntry>();
  constructor(private readonly now: () => number = Date.now) {}

  grant(folder: string, key: string, kind: RememberedKind): void {
    const at = this.now();
    // "Always" is a user setting: it applies in every folder, so it is listed once, for none in particular.
    this.entries.set(id(folder, key, kind), { folder: kind === 'always' ? '' : folder, key, kind, grantedAt: at, ...(kind === 'timed' && { expiresAt: at + TIMED_MS }) });
  }

  revoke(folder: string, key: string, kind: RememberedKind): boolean {
    return this.entries.delete(id(folder, key, kind));
  }

  /** A restarted server forgot its session and timed approvals; "always" lives in settings and stays. */
  forgetFolder(folder: string): void {
    for (const [k, e] of this.entries) if (e.folder === folder && e.kind !== 'always') this.entries.delete(k);
  }

  /** Replaces the "always" entries with the user's current `guardedShell.autoApprove` list. */
  setAlways(keys: readonly string[]): void {
    for (const [k, e] of this.entries) if (e.kind === 'always') this.entries.delete(k);
    for (const key of keys) this.entries.set(id('', key, 'always'), { folder: '', key, kind: 'always', grantedAt: 0 });
  }

  list(): RememberedEntry[] {
    const now = this.now();
    for (const [k, e] of this.entries) if (e.expiresAt !== undefined && e.expiresAt <= now) this.entries.delete(k);
    return [...this.entries.values()];
  }
}

const id = (folder: string, key: string, kind: RememberedKind) => JSON.stringify([kind === 'always' ? '' : folder, key, kind]);
