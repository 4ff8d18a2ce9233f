/**
 * Messages between the approval panel's host (WebviewApprovalPresenter, extension side) and its page
 * (media/approval.js, media/history.js). Everything is plain JSON data: the page renders it with DOM text APIs
 * only. The page is treated as less trusted than the host: every message it posts is checked by
 * `parseWebviewMessage` before the host acts on it, and an approval can only name a card the host is showing.
 */

import type { ApprovalEffect, ApprovalOption, ChangeKind } from '../core/approval';
import type { HostAttempt } from '../core/network/record';

// ---------------------------------------------------------------------------------------------------------------
// The view model: what a card shows, computed on the host (src/shared/approvalPanel/viewModel.ts).

/** `note`: a diff's own remark (`\ No newline at end of file`); `info`: a line outside any diff (a binary file named, a warning). */
export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'ctx' | 'note' | 'info';

export interface DiffLine {
  readonly kind: DiffLineKind;
  /** Line number in the current file (context and removed lines). */
  readonly oldNo?: number;
  /** Line number in the proposed file (context and added lines). */
  readonly newNo?: number;
  /** The line without its +/-/space prefix. */
  readonly text: string;
}

export interface CommandCard {
  /** Each pipeline stage's argv, literally. */
  readonly stages: readonly (readonly string[])[];
  /** Working directory relative to the workspace ('.' = its root). */
  readonly cwd: string;
  /** The first lines of stdin, when the call gives stdin. */
  readonly stdinLines?: readonly string[];
  /** True when stdin has more lines than shown. */
  readonly stdinMore?: boolean;
  readonly stdinFile?: string;
  readonly stdoutFile?: { readonly path: string; readonly append: boolean };
  /** Sandbox in force ('none' when the command runs with the user's own permissions). */
  readonly isolation: string;
  /** Stages (indexes) whose program is not on the allowlist. */
  readonly notListed?: readonly number[];
  /** Stages that run any code given to them, each with one plain sentence saying so and where. */
  readonly runsAnyCode?: readonly { readonly stage: number; readonly note: string }[];
  /** A background start (how long it may run, whether input stays open), or input for a running one (its id). */
  readonly background?: { readonly lifetimeSeconds?: number; readonly openInput?: boolean; readonly inputTo?: string };
}

/** A background command as the panel lists it: one of a folder's, running now (src/core/background/run.ts RunInfo). */
export interface BackgroundView {
  /** The folder's display name, and its key (two folders may share a name; Stop names the key). */
  readonly folder: string;
  readonly folderKey: string;
  readonly id: string;
  readonly stages: readonly (readonly string[])[];
  readonly cwd: string;
  readonly isolation: string;
  /** Epoch ms when it started, and how long it had run when the server last said. */
  readonly startedAt: number;
  readonly elapsedMs: number;
  readonly ports?: readonly number[];
  /** Its last lines of output (stdout and stderr together). */
  readonly lastLines: readonly string[];
  readonly inputOpen: boolean;
}

export interface ChangeCardData {
  readonly kind: ChangeKind;
  readonly files: readonly string[];
  readonly diff?: readonly DiffLine[];
  /** Diff lines not shown (very large diffs are cut; the diff editor shows everything). */
  readonly diffOmitted?: number;
  /** Lines added / removed in the whole diff. */
  readonly added: number;
  readonly removed: number;
  /** True when the host can open the change in VS Code's diff editor. */
  readonly canOpenDiff: boolean;
}

/** A previewed command's effect (src/core/effects): Apply (approve) or Discard (deny). */
export interface EffectCardData extends Pick<ApprovalEffect, 'stages' | 'cwd' | 'outcome' | 'exitCode' | 'stdout' | 'stderr' | 'files' | 'more' | 'limits'> {
  readonly diff: readonly DiffLine[];
  readonly diffOmitted?: number;
  readonly added: number;
  readonly removed: number;
  readonly canOpenDiff: boolean;
}

export interface Card {
  /** The approval request id (unique among pending requests). */
  readonly id: string;
  readonly tool: string;
  /** The workspace folder whose server asks. */
  readonly folder: string;
  /** The rule that made the policy ask, and why. */
  readonly rule: string;
  readonly reason: string;
  /** Epoch ms when the request arrived. */
  readonly since: number;
  readonly command?: CommandCard;
  readonly change?: ChangeCardData;
  readonly effect?: EffectCardData;
  readonly fetch?: { readonly url: string };
  /** A host a running command wants to reach that is not on the allowed domains ("always" adds it there). */
  readonly network?: { readonly host: string; readonly port: number; readonly method: string; readonly command?: string };
  /** Which options the host accepts for this card ('always' only for commands and a command's host). */
  readonly options: readonly ApprovalOption[];
  /** What "Always allow" offers, most specific first (the exact line, then a prefix rule); the person may edit it. */
  readonly rules?: readonly string[];
}

/** `running`: a background command that started and has not ended yet. */
export type HistoryOutcome = 'success' | 'failed' | 'denied' | 'timeout' | 'canceled' | 'output_limit' | 'error' | 'approved' | 'withdrawn' | 'running';

export interface HistoryEntry {
  readonly requestId: string;
  readonly folder: string;
  /** ISO time of the last event about this request. */
  readonly time: string;
  readonly tool: string;
  /** What was asked for: the command line (argv JSON-quoted, as the redacted audit has it), the files, or the URL. */
  readonly summary: string;
  readonly outcome: HistoryOutcome;
  readonly exitCode?: number | null;
  readonly durationMs?: number;
  /** Who decided ('user', 'session-rule', 'timeout', …) and with which option, when a person was asked. */
  readonly decidedBy?: string;
  readonly option?: ApprovalOption;
  /** Why it was denied or failed. */
  readonly reason?: string;
  /** True when the host still holds the change, so "Open diff" works. */
  readonly hasDiff: boolean;
  /** True when the change's previous content is kept (editBackup: storage) and it was not undone yet: "Undo" works. */
  readonly canUndo?: boolean;
  /** A command's changes in the folder (previewed or recorded by a checkpoint): the first paths, and how many in all. */
  readonly changes?: readonly string[];
  readonly changedCount?: number;
  /** What became of them: applied, discarded, conflict, failed, recorded, not-recorded. */
  readonly effect?: string;
  /** The hosts a command tried through the egress proxy (network: domains, fetch, deny in a sandbox). */
  readonly hosts?: readonly HistoryHost[];
  /** A background command (its id), or a stop of or input to one; with who stopped it, once it ended early. */
  readonly background?: string;
  readonly stoppedBy?: string;
}

/** One host of a command's record (src/core/network/record.ts), as the history shows it (no rule, no reason). */
export type HistoryHost = Pick<HostAttempt, 'host' | 'port' | 'allowed' | 'methods' | 'requests' | 'bytesSent' | 'bytesReceived'>;

export type RememberedKind = 'session' | 'timed' | 'always';

export interface RememberedEntry {
  readonly folder: string;
  /** The exact command line (the approval key). */
  readonly key: string;
  readonly kind: RememberedKind;
  readonly grantedAt: number;
  /** Epoch ms; only for 'timed'. */
  readonly expiresAt?: number;
}

// ---------------------------------------------------------------------------------------------------------------
// host -> webview

/** How to let Guarded Shell's panel be the only gate (approvalPanel/doublePrompt.ts). */
export interface DoublePromptNotice {
  /** The VS Code product that asked first ("Visual Studio Code", "code-server" …). */
  readonly app: string;
  /** The MCP server names its confirmation menu shows ("Guarded Shell: my-folder"). */
  readonly servers: readonly string[];
}

export type HostToWebview =
  /**
   * The complete list of pending cards, oldest first (the page diffs it against what it shows); `notice` when one
   * of them was already confirmed in VS Code's own dialog and the person has not dismissed the explanation.
   */
  | { readonly type: 'show'; readonly cards: readonly Card[]; readonly workspaceFolders?: number; readonly notice?: DoublePromptNotice }
  /** A request left without a decision from this page (cancelled, timed out, decided elsewhere). */
  | { readonly type: 'withdraw'; readonly id: string; readonly why: string }
  | { readonly type: 'history'; readonly entries: readonly HistoryEntry[]; readonly remembered: readonly RememberedEntry[] }
  /** Brings a tab to the front (the "show pending approvals" command). */
  | { readonly type: 'focusTab'; readonly tab: 'pending' | 'history' }
  /** "Always allow" with a rule the host cannot save for that card (it stays pending): why. */
  | { readonly type: 'ruleRejected'; readonly id: string; readonly why: string }
  /** Every folder's background commands running now (the whole list; an empty one hides the section). */
  | { readonly type: 'background'; readonly runs: readonly BackgroundView[] };

// ---------------------------------------------------------------------------------------------------------------
// webview -> host

export type WebviewToHost =
  | { readonly type: 'ready' }
  /** `rule`: with option `always`, the command rule to save (as offered or edited); absent means the exact line. */
  | { readonly type: 'decide'; readonly id: string; readonly approved: boolean; readonly option: ApprovalOption; readonly reason?: string; readonly rule?: string }
  /** Opens a pending card's change (or a history entry's, by request id) in VS Code's diff editor. */
  | { readonly type: 'openDiff'; readonly id: string }
  /**
   * Approves exactly the cards of one kind the page listed before the person confirmed (not one that arrived a
   * moment later). The host approves only those ids whose request is of that kind.
   */
  | { readonly type: 'approveAll'; readonly kind: BatchKind; readonly ids: readonly string[] }
  | { readonly type: 'revoke'; readonly folder: string; readonly key: string; readonly kind: RememberedKind }
  /** Undoes a history entry's change (by request id): a new change on the server's pipeline, which may ask in turn. */
  | { readonly type: 'undo'; readonly id: string }
  /** "Got it" on the double-prompt explanation: the host remembers it and never shows it again. */
  | { readonly type: 'dismissNotice' }
  /** Stop a background command the host listed (its folder's key and id); the host stops only one it lists. */
  | { readonly type: 'stopBackground'; readonly folderKey: string; readonly id: string };

/** What one batch approval may cover: commands, or file changes; never both, never a fetch. */
export type BatchKind = 'commands' | 'changes';
const BATCH_KINDS: readonly BatchKind[] = ['commands', 'changes'];

/** The batch a card or a request belongs to (undefined: decided one at a time). */
export function batchKindOf(x: { readonly command?: unknown; readonly change?: unknown }): BatchKind | undefined {
  return x.command ? 'commands' : x.change ? 'changes' : undefined;
}

const OPTIONS: readonly ApprovalOption[] = ['once', 'session', 'timed', 'always', 'all'];
const KINDS: readonly RememberedKind[] = ['session', 'timed', 'always'];
/** Longest reason kept: it goes back to the agent, it is not a document. */
export const MAX_REASON_LENGTH = 2000;
const MAX_ID_LENGTH = 200;
const MAX_KEY_LENGTH = 100_000;
/** Longest "Always allow" rule accepted from the page (a command line; the key limit applies to exact ones too). */
export const MAX_RULE_LENGTH = MAX_KEY_LENGTH;

const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;

/**
 * Checks a message posted by the page. Anything malformed is `undefined` (ignored by the host), so a bug or a
 * compromised page cannot approve something by sending a half-formed message.
 */
export function parseWebviewMessage(m: unknown): WebviewToHost | undefined {
  if (!m || typeof m !== 'object') return undefined;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'ready':
      return { type: 'ready' };
    case 'dismissNotice':
      return { type: 'dismissNotice' };
    case 'decide': {
      if (!str(o.id, MAX_ID_LENGTH) || typeof o.approved !== 'boolean' || !OPTIONS.includes(o.option as ApprovalOption)) return undefined;
      if (o.reason !== undefined && typeof o.reason !== 'string') return undefined;
      // A rule only with "always"; one that is too long or not one line is malformed, never shortened.
      if (o.rule !== undefined && (o.option !== 'always' || !str(o.rule, MAX_RULE_LENGTH) || /[\r\n\0]/.test(o.rule))) return undefined;
      const reason = typeof o.reason === 'string' ? o.reason.trim().slice(0, MAX_REASON_LENGTH) : '';
      return { type: 'decide', id: o.id, approved: o.approved, option: o.option as ApprovalOption, ...(reason && { reason }), ...(typeof o.rule === 'string' && { rule: o.rule }) };
    }
    case 'openDiff':
      return str(o.id, MAX_ID_LENGTH) ? { type: 'openDiff', id: o.id } : undefined;
    case 'approveAll':
      if (!BATCH_KINDS.includes(o.kind as BatchKind) || !Array.isArray(o.ids) || !o.ids.every((id) => str(id, MAX_ID_LENGTH))) return undefined;
      return { type: 'approveAll', kind: o.kind as BatchKind, ids: o.ids as string[] };
    case 'undo':
      return str(o.id, MAX_ID_LENGTH) ? { type: 'undo', id: o.id } : undefined;
    case 'stopBackground':
      return str(o.folderKey, MAX_KEY_LENGTH) && typeof o.id === 'string' && /^b\d{1,9}$/.test(o.id) ? { type: 'stopBackground', folderKey: o.folderKey, id: o.id } : undefined;
    case 'revoke':
      // "Always" rules are the user's, for every folder: listed (and revoked) with no folder.
      if (!(str(o.folder, 1000) || (o.folder === '' && o.kind === 'always')) || !str(o.key, MAX_KEY_LENGTH) || !KINDS.includes(o.kind as RememberedKind)) return undefined;
      return { type: 'revoke', folder: o.folder, key: o.key, kind: o.kind as RememberedKind };
    default:
      return undefined;
  }
}
