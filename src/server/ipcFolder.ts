import { CancellationTokenSource, type CancellationToken } from 'vscode-languageserver/node';
import type { ApprovalDecision, Approver, ApprovalRequest } from '../core/approval';
import type { AuditSink } from '../core/audit';
import { resolveSettings, type EffectiveSettings, type SettingsLayer } from '../core/config/settings';
import type { SettingId } from '../core/config/registry';
import { VSCODE_SETTING_IDS } from '../core/config/vscodeSettings';
import { modeLabel } from '../core/modes';
import {
  AUDIT, BACKGROUND, POLICY, READY, START_FAILED,
  type ApproveParams, type ApproveResult, type AuditParams, type BackgroundParams, type FolderInit, type PolicyParams, type ReadyParams, type StartFailedParams,
  type StatusResult, type StopBackgroundResult, type UndoResult,
} from '../shared/protocol';
import { publishedPorts } from '../core/background/network';
import { endText } from '../core/background/text';
import { undoChange, UNDO_TOOL } from '../core/files/undo';
import { startStandalone, type StandaloneServer } from './standalone';
import { unrunnableNote } from './tools/describe';
import { isolationOutcomeOf } from '../core/isolationState';
import { previewUnavailableNote } from '../core/effects/commandEffects';

/** How often the panel's list asks the background commands' bridges which ports they listen on. */
const PORTS_REFRESH_MS = 5000;

/** Settings the extension may set: exactly the registry's VS Code settings. Transport, host, port and token are this process's choice, never pushed. */
const PUSHABLE: readonly SettingId[] = VSCODE_SETTING_IDS;

/** What the window's server process (ipcMain.ts) gives each folder: its one connection to the extension. */
export interface IpcFolderHost {
  readonly version: string;
  /** An APPROVE request to the extension. */
  ask(params: ApproveParams, token: CancellationToken): Promise<ApproveResult>;
  notify(method: string, params: object): void;
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

/**
 * One workspace folder served by the window's server process: its own policy (from its own pushed settings), its
 * own executor (stopping the folder kills exactly its command trees), its own audit log and its own MCP endpoint
 * on a port of its own with a fresh bearer token. Nothing here is shared with another folder except the process
 * and its one sandbox probe.
 */
export class IpcFolder {
  private layer: SettingsLayer;
  private server: StandaloneServer | undefined;
  private starting: Promise<void> | undefined;
  /** The audit log file the running server has open: a change of it restarts this folder (the log is reopened). */
  private auditLog: string | undefined;
  private settingsGeneration = 0;
  private settingsError: string | undefined;
  private pendingApprovals = 0;
  private stopped = false;
  /** Settings pushes are applied one after the other, in the order they were sent. */
  private settingsQueue: Promise<void> = Promise.resolve();
  /** Stops telling the extension about this folder's background commands. */
  private unwatchBackground: (() => void) | undefined;

  constructor(
    readonly init: FolderInit,
    private readonly host: IpcFolderHost,
  ) {
    this.layer = init.settings;
  }

  get id(): string {
    return this.init.folderId;
  }

  /** Starts serving (the endpoint is announced with READY, a failure with START_FAILED). */
  start(): Promise<void> {
    return (this.starting ??= this.run().finally(() => (this.starting = undefined)));
  }

  /** Kills every command tree of this folder, closes its endpoint and its audit log. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.starting?.catch(() => {});
    const s = this.server;
    this.server = undefined;
    await this.closeServer(s);
  }

  /** Closes a server of this folder (its background commands first); the panel then lists none of them. */
  private async closeServer(s: StandaloneServer | undefined): Promise<void> {
    this.unwatchBackground?.();
    this.unwatchBackground = undefined;
    await s?.close();
    if (s) this.host.notify(BACKGROUND, { folderId: this.id, runs: [] } satisfies BackgroundParams);
  }

  /** A person's Stop in the panel: the whole tree of one background command of this folder, whichever session started it. */
  async stopBackground(id: string): Promise<StopBackgroundResult> {
    const run = this.server?.ctx.background.byId(id);
    if (!run || !run.running) return { stopped: false, message: `${id} is not running in "${this.init.folderName}".` };
    run.stop('person');
    await run.whenEnded();
    const message = endText(run.id, run.end!);
    this.log('info', message);
    return { stopped: true, message };
  }

  /** Queues a settings push; the generation counts it once applied or rejected. */
  pushSettings(settings: SettingsLayer): void {
    this.settingsQueue = this.settingsQueue.then(async () => {
      try {
        await this.starting?.catch(() => {});
        await this.applySettings(settings);
        this.settingsError = undefined;
      } catch (e) {
        this.settingsError = (e as Error).message;
        this.log('error', `settings not applied, the previous policy stays in force: ${this.settingsError}`);
      } finally {
        this.settingsGeneration++;
      }
    });
  }

  revoke(key: string): boolean {
    return !!key && (this.server?.ctx.remembered.revoke(key) ?? false);
  }

  /** Undoes an earlier change of this folder from its kept backup; the policy still decides, the panel may ask. */
  async undo(requestId: string): Promise<UndoResult> {
    const s = this.server;
    if (!s) return { outcome: 'failed', message: `"${this.init.folderName}" is not running.`, files: [] };
    await s.ctx.ready;
    const r = await undoChange(s.ctx.fileDeps(() => s.ctx.defaultApprover), { tool: UNDO_TOOL }, { requestId });
    const rule = r.denial?.rule ?? r.error?.rule;
    return { outcome: r.outcome, message: r.message, files: r.files, ...(rule && { rule }) };
  }

  status(): StatusResult {
    const ctx = this.server?.ctx;
    return {
      ...(this.server?.url && { url: this.server.url }),
      mode: ctx ? modeLabel(ctx.policy.mode) : 'not running',
      isolation: ctx?.isolation.kind ?? 'none',
      ...(ctx && (ctx.isolation.denial || ctx.isolation.warning) ? { warning: ctx.isolation.denial ?? ctx.isolation.warning } : {}),
      activeCommands: ctx?.executor.active ?? 0,
      backgroundCommands: ctx?.background.counts().running ?? 0,
      queuedCommands: ctx?.executor.queued ?? 0,
      pendingApprovals: this.pendingApprovals,
      settingsGeneration: this.settingsGeneration,
      ...(this.settingsError && { settingsError: this.settingsError }),
    };
  }

  private log(level: 'info' | 'warn' | 'error', message: string): void {
    this.host.log(level, `[${this.init.folderName}] ${message}`);
  }

  private effective(pushed: SettingsLayer): EffectiveSettings {
    const own: SettingsLayer = {};
    for (const k of PUSHABLE) if (pushed[k] !== undefined) (own as Record<string, unknown>)[k] = pushed[k];
    // Last layer wins: the folder, loopback, a free port and (auth left unset) a fresh random token, always.
    const folder = this.init.folder;
    return resolveSettings([own, { cwd: folder, host: '127.0.0.1', port: 0, transport: 'http', quiet: true, corsOrigins: [] }], folder);
  }

  private async run(): Promise<void> {
    const folderId = this.id;
    try {
      const settings = this.effective(this.layer);
      // quiet: true, so nothing is written to the process's streams; the audit travels to the extension instead.
      const server = await startStandalone(settings, this.host.version, { out: process.stdout, err: process.stderr }, {
        approver: this.approver(), auditSinks: [this.forwardAudit()], ...(this.init.backupDir && { backupDir: this.init.backupDir }),
        ...(this.init.commandHome && { commandHome: this.init.commandHome }), settingsHost: 'vscode',
      });
      this.server = server;
      this.auditLog = settings.server.auditLog;
      await server.ctx.ready; // the sandbox probe ran during the start: the ready message reports its answer
      if (this.stopped) {
        this.server = undefined;
        return void (await server.close());
      }
      const { ctx, url, token } = server;
      if (!url || !token) throw new Error('the HTTP transport did not report its URL and token');
      const ready: ReadyParams = {
        folderId, url, port: Number(new URL(url).port), token, version: this.host.version, isolation: ctx.isolation.kind, mode: modeLabel(ctx.policy.mode), pid: process.pid,
        ...(ctx.isolation.warning || ctx.isolation.denial ? { warning: ctx.isolation.denial ?? ctx.isolation.warning } : {}),
      };
      this.log('info', `serving ${ctx.policy.root} at ${url} (mode ${modeLabel(ctx.policy.mode)}, isolation ${ctx.isolation.kind})`);
      if (ready.warning) this.log('warn', ready.warning);
      const preview = previewUnavailableNote(ctx.policy, ctx.isolation);
      if (preview) this.log('warn', preview);
      // Which allowlist entries cannot run depends on the sandbox: said once the probe has answered.
      void ctx.ready.then(() => {
        const never = unrunnableNote(ctx.policy, isolationOutcomeOf(ctx.isolation) === 'sandboxed');
        if (never) this.log('warn', never);
      });
      this.host.notify(READY, ready);
      this.watchBackground(server);
    } catch (e) {
      const message = (e as Error).message;
      this.log('error', `could not start: ${message}`);
      this.host.notify(START_FAILED, { folderId, message } satisfies StartFailedParams);
    }
  }

  private async applySettings(pushed: SettingsLayer): Promise<void> {
    this.layer = pushed;
    if (this.stopped) return;
    if (!this.server) {
      // Not running (its start failed, e.g. on a bad setting): try again with the new settings.
      return this.start();
    }
    const settings = this.effective(pushed);
    if (settings.server.auditLog !== this.auditLog) {
      // The audit log is opened once per start: reopen it by restarting this folder only (a new port and token).
      this.log('info', 'the audit log path changed: restarting this folder to reopen it');
      const old = this.server;
      this.server = undefined;
      await this.closeServer(old);
      if (!this.stopped) await this.start();
      return;
    }
    const server = this.server;
    server.ctx.setPolicy(settings.policy); // recomputes the sandbox too (readOnly makes the workspace read-only in it)
    // "Always allow" rules remembered since they were saved: the user's settings are their source from now on.
    server.ctx.memory.keepRules(settings.policy.autoApprove);
    await server.ctx.ready; // a change during start-up: report the isolation once the probe has answered
    if (this.server !== server) return; // stopped meanwhile
    const isolation = server.ctx.isolation;
    const mode = modeLabel(settings.policy.mode);
    server.ctx.audit.record({ event: 'server', result_type: 'success', action: 'settings', mode, isolation: isolation.kind });
    this.log('info', `settings applied: mode ${mode}, isolation ${isolation.kind}, ${settings.policy.allowCommands.length} allowed command(s)`);
    const never = unrunnableNote(settings.policy, isolationOutcomeOf(isolation) === 'sandboxed');
    if (never) this.log('warn', never);
    const warning = isolation.denial ?? isolation.warning;
    this.host.notify(POLICY, { folderId: this.id, mode, isolation: isolation.kind, ...(warning && { warning }) } satisfies PolicyParams);
  }

  /** Tells the extension which background commands run (the panel's list, the status bar's count), with their ports. */
  private watchBackground(server: StandaloneServer): void {
    const runs = server.ctx.background;
    let sending = false;
    let again = false;
    let portsAt = 0;
    let counted = 0;
    const send = async () => {
      if (sending) return void (again = true);
      sending = true;
      try {
        // Their ports, for the panel: asked of their bridges when one started or ended, else every few seconds
        // (not at every burst of output).
        const running = runs.counts().running;
        if (running !== counted || Date.now() - portsAt > PORTS_REFRESH_MS) {
          counted = running;
          portsAt = Date.now();
          await publishedPorts(runs);
        }
      } finally {
        sending = false;
      }
      if (this.server === server) this.host.notify(BACKGROUND, { folderId: this.id, runs: runs.running() } satisfies BackgroundParams);
      if (again) {
        again = false;
        void send();
      }
    };
    this.unwatchBackground = runs.onChange(() => void send());
  }

  private forwardAudit(): AuditSink {
    return { write: (record) => this.host.notify(AUDIT, { folderId: this.id, record } satisfies AuditParams) };
  }

  /** The approver: a request to the extension naming this folder, bounded by this folder's approval timeout. */
  private approver(): Approver {
    return {
      kind: 'vscode',
      approve: (request: ApprovalRequest, signal?: AbortSignal) =>
        new Promise<ApprovalDecision>((resolve) => {
          if (signal?.aborted) return resolve({ approved: false, by: 'withdrawn', reason: 'The request was cancelled before anyone decided.' });
          const timeoutSeconds = this.server?.ctx.policy.approvalTimeoutSeconds ?? 300;
          const cancel = new CancellationTokenSource();
          this.pendingApprovals++;
          let done = false;
          const finish = (d: ApprovalDecision) => {
            if (done) return;
            done = true;
            this.pendingApprovals--;
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            cancel.dispose();
            resolve(d);
          };
          // Timeout and withdrawal also cancel the JSON-RPC request, so the extension drops the question from its queue.
          const timer = setTimeout(() => {
            cancel.cancel();
            finish({ approved: false, by: 'timeout', reason: `Nobody approved the request within ${timeoutSeconds} s.` });
          }, timeoutSeconds * 1000);
          const onAbort = () => {
            cancel.cancel();
            finish({ approved: false, by: 'withdrawn', reason: 'The request was cancelled before anyone decided.' });
          };
          signal?.addEventListener('abort', onAbort, { once: true });
          this.host.ask({ folderId: this.id, request }, cancel.token).then(
            (answer) => finish(checkedDecision(answer)),
            (e: unknown) => finish({ approved: false, by: 'unavailable', reason: `VS Code could not be asked: ${(e as Error).message}` }),
          );
        }),
    };
  }
}

/** Only an explicit `approved: true` approves; anything malformed is a denial. */
export function checkedDecision(answer: unknown): ApprovalDecision {
  const a = (answer ?? {}) as Partial<ApprovalDecision>;
  const reason = typeof a.reason === 'string' && a.reason ? a.reason : undefined;
  const by = typeof a.by === 'string' && a.by ? a.by : 'user';
  // Every option the approver may answer with; run.ts remembers session/timed/always ones (an unknown one counts as once).
  const option = (['once', 'session', 'timed', 'always', 'all'] as const).find((o) => o === a.option);
  // The rule of an "always" answer; the server checks it covers the request before keeping it (run.ts alwaysRule).
  const rule = option === 'always' && typeof a.rule === 'string' && a.rule.length > 0 ? a.rule : undefined;
  return { approved: a.approved === true, by, ...(reason && { reason }), ...(option && { option }), ...(rule !== undefined && { rule }) };
}
