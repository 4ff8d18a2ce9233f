import * as path from 'node:path';
import { CancellationTokenSource, createConnection, ResponseError, ErrorCodes } from 'vscode-languageserver/node';
import type { ApprovalDecision, Approver, ApprovalRequest } from '../core/approval';
import type { AuditSink } from '../core/audit';
import { resolveSettings, type EffectiveSettings, type SettingsLayer } from '../core/config/settings';
import type { SettingId } from '../core/config/registry';
import { VSCODE_SETTING_IDS } from '../core/config/vscodeSettings';
import { modeLabel } from '../core/modes';
import {
  APPROVE, AUDIT, POLICY, READY, SETTINGS, START_FAILED, STATUS,
  type ApproveResult, type InitializationOptions, type PolicyParams, type ReadyParams, type SettingsParams, type StatusResult,
} from '../shared/protocol';
import { REVOKE, UNDO, type RevokeParams, type RevokeResult, type UndoParams, type UndoResult } from '../shared/protocol';
import { undoChange, UNDO_TOOL } from '../core/files/undo';
import { startStandalone, type StandaloneServer } from './standalone';
import { unrunnableNote } from './tools/describe';

/**
 * The server process the extension starts for one workspace folder (vscode-languageclient, Node IPC), the way
 * vscode-eslint runs its server: a crash cannot take the extension host down, and the client restarts it.
 *
 * It serves MCP over Streamable HTTP on 127.0.0.1, on a free port with a fresh token per start, and tells the
 * extension both (READY). Settings arrive as pushes and are swapped in live. Approvals go to the extension as
 * requests; no answer in time, or no extension, is a denial. However this process ends — shutdown request, exit
 * notification, the extension host vanishing, a signal, a crash — every command tree it started is killed first.
 */

declare const GUARDED_SHELL_VERSION: string | undefined;
const VERSION = typeof GUARDED_SHELL_VERSION === 'string' ? GUARDED_SHELL_VERSION : '0.0.0-dev';

/** Settings the extension may set: exactly the registry's VS Code settings. Transport, host, port and token are this process's choice, never pushed. */
const PUSHABLE: readonly SettingId[] = VSCODE_SETTING_IDS;
/** How long cleanup may take before the process exits anyway (the executor's own TERM→KILL grace is shorter). */
const CLEANUP_LIMIT_MS = 10_000;

const connection = createConnection();
const log = (level: 'info' | 'warn' | 'error', message: string) => {
  try {
    connection.console[level === 'warn' ? 'warn' : level](`[${init?.folderName ?? 'starting'}] ${message}`);
  } catch {
    /* the connection is gone: nobody to tell */
  }
};

let init: InitializationOptions | undefined;
let layer: SettingsLayer = {};
let server: StandaloneServer | undefined;
let starting: Promise<void> | undefined;
let settingsGeneration = 0;
let settingsError: string | undefined;
let pendingApprovals = 0;
/** Settings pushes are applied one after the other, in the order they were sent. */
let settingsQueue: Promise<void> = Promise.resolve();

// ---- process end: children first ------------------------------------------------------------------------------
// vscode-languageserver calls process.exit() itself (exit notification, parent-process watchdog, closed stream)
// with no hook before it. Routing process.exit through the cleanup is the one way to be sure no command tree
// outlives this process on any of those paths.
const hardExit = process.exit.bind(process) as (code?: number) => never;
let exiting = false;
function exitAfterCleanup(code: number, why: string): void {
  if (exiting) return;
  exiting = true;
  log('info', `stopping (${why}): killing every running command`);
  setTimeout(() => hardExit(code), CLEANUP_LIMIT_MS);
  void stopServer().finally(() => hardExit(code));
}
process.exit = ((code?: number | string | null) => exitAfterCleanup(typeof code === 'number' ? code : Number(code ?? 0) || 0, 'exit')) as unknown as typeof process.exit;
process.on('disconnect', () => exitAfterCleanup(1, 'the extension host went away'));
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => exitAfterCleanup(0, signal));
process.on('uncaughtException', (e) => {
  log('error', `crashed: ${e.stack ?? e.message}`);
  exitAfterCleanup(1, 'uncaught exception'); // the client restarts the server
});

async function stopServer(): Promise<void> {
  await starting?.catch(() => {});
  const s = server;
  server = undefined;
  await s?.close();
}

// ---- the approver: a request to the extension, bounded by the policy's approval timeout -----------------------
const vscodeApprover: Approver = {
  kind: 'vscode',
  approve: (request: ApprovalRequest, signal?: AbortSignal) =>
    new Promise<ApprovalDecision>((resolve) => {
      if (signal?.aborted) return resolve({ approved: false, by: 'withdrawn', reason: 'The request was cancelled before anyone decided.' });
      const timeoutSeconds = server?.ctx.policy.approvalTimeoutSeconds ?? 300;
      const cancel = new CancellationTokenSource();
      pendingApprovals++;
      let done = false;
      const finish = (d: ApprovalDecision) => {
        if (done) return;
        done = true;
        pendingApprovals--;
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
      connection.sendRequest<ApproveResult>(APPROVE, request, cancel.token).then(
        (answer) => finish(checkedDecision(answer)),
        (e: unknown) => finish({ approved: false, by: 'unavailable', reason: `VS Code could not be asked: ${(e as Error).message}` }),
      );
    }),
};

/** Only an explicit `approved: true` approves; anything malformed is a denial. */
function checkedDecision(answer: unknown): ApprovalDecision {
  const a = (answer ?? {}) as Partial<ApprovalDecision>;
  const reason = typeof a.reason === 'string' && a.reason ? a.reason : undefined;
  const by = typeof a.by === 'string' && a.by ? a.by : 'user';
  // Every option the approver may answer with; run.ts remembers session/timed/always ones (an unknown one counts as once).
  const option = (['once', 'session', 'timed', 'always', 'all'] as const).find((o) => o === a.option);
  return { approved: a.approved === true, by, ...(reason && { reason }), ...(option && { option }) };
}

const forwardAudit: AuditSink = { write: (record) => void connection.sendNotification(AUDIT, record) };

// ---- settings -------------------------------------------------------------------------------------------------
function effective(pushed: SettingsLayer): EffectiveSettings {
  if (!init) throw new Error('not initialized');
  const own: SettingsLayer = {};
  for (const k of PUSHABLE) if (pushed[k] !== undefined) (own as Record<string, unknown>)[k] = pushed[k];
  // Last layer wins: the folder, loopback, a free port and (auth left unset) a fresh random token, always.
  return resolveSettings([own, { cwd: init.folder, host: '127.0.0.1', port: 0, transport: 'http', quiet: true, corsOrigins: [] }], init.folder);
}

async function start(): Promise<void> {
  try {
    const settings = effective(layer);
    // quiet: true, so nothing is written to these streams; the audit travels to the extension instead.
    server = await startStandalone(settings, VERSION, { out: process.stdout, err: process.stderr }, {
      approver: vscodeApprover, auditSinks: [forwardAudit], ...(init!.backupDir && { backupDir: init!.backupDir }),
    });
    await server.ctx.ready; // the sandbox probe ran during the start: the ready message reports its answer
    if (exiting) return void (await stopServer());
    const { ctx, url, token } = server;
    if (!url || !token) throw new Error('the HTTP transport did not report its URL and token');
    const ready: ReadyParams = {
      url, port: Number(new URL(url).port), token, version: VERSION, isolation: ctx.isolation.kind, mode: modeLabel(ctx.policy.mode), pid: process.pid,
      ...(ctx.isolation.warning || ctx.isolation.denial ? { warning: ctx.isolation.denial ?? ctx.isolation.warning } : {}),
    };
    log('info', `serving ${ctx.policy.root} at ${url} (mode ${modeLabel(ctx.policy.mode)}, isolation ${ctx.isolation.kind})`);
    if (ready.warning) log('warn', ready.warning);
    const never = unrunnableNote(ctx.policy);
    if (never) log('warn', never);
    void connection.sendNotification(READY, ready);
  } catch (e) {
    const message = (e as Error).message;
    log('error', `could not start: ${message}`);
    void connection.sendNotification(START_FAILED, { message });
  }
}

async function applySettings(pushed: SettingsLayer): Promise<void> {
  layer = pushed;
  if (!server) {
    // Not running (its start failed, e.g. on a bad setting): try again with the new settings.
    if (init && !starting) await (starting = start().finally(() => (starting = undefined)));
    return;
  }
  const settings = effective(pushed);
  server.ctx.setPolicy(settings.policy); // recomputes the sandbox too (readOnly makes the workspace read-only in it)
  await server.ctx.ready; // a change during start-up: report the isolation once the probe has answered
  if (!server) return; // stopped meanwhile
  const isolation = server.ctx.isolation;
  server.ctx.audit.record({ event: 'server', result_type: 'success', action: 'settings', mode: modeLabel(settings.policy.mode), isolation: isolation.kind });
  log('info', `settings applied: mode ${modeLabel(settings.policy.mode)}, isolation ${isolation.kind}, ${settings.policy.allowCommands.length} allowed command(s)`);
  const never = unrunnableNote(settings.policy);
  if (never) log('warn', never);
  const warning = isolation.denial ?? isolation.warning;
  void connection.sendNotification(POLICY, { mode: modeLabel(settings.policy.mode), isolation: isolation.kind, ...(warning && { warning }) } satisfies PolicyParams);
}

// ---- the protocol ---------------------------------------------------------------------------------------------
connection.onInitialize((params) => {
  const o = params.initializationOptions as Partial<InitializationOptions> | undefined;
  if (!o || typeof o.folder !== 'string' || !o.folder) {
    return new ResponseError(ErrorCodes.InvalidParams, 'initializationOptions.folder (the workspace folder path) is required');
  }
  if (o.backupDir !== undefined && (typeof o.backupDir !== 'string' || !path.isAbsolute(o.backupDir))) {
    return new ResponseError(ErrorCodes.InvalidParams, 'initializationOptions.backupDir must be an absolute path');
  }
  init = {
    folder: o.folder, folderName: typeof o.folderName === 'string' ? o.folderName : o.folder, settings: o.settings ?? {},
    ...(o.backupDir && { backupDir: o.backupDir }),
  };
  layer = init.settings;
  return { capabilities: {}, serverInfo: { name: 'guarded-shell', version: VERSION } };
});

connection.onInitialized(() => {
  starting = start().finally(() => (starting = undefined));
});

connection.onNotification(SETTINGS, (params: SettingsParams) => {
  settingsQueue = settingsQueue.then(async () => {
    try {
      await starting?.catch(() => {});
      await applySettings(params?.settings ?? {});
      settingsError = undefined;
    } catch (e) {
      settingsError = (e as Error).message;
      log('error', `settings not applied, the previous policy stays in force: ${settingsError}`);
    } finally {
      settingsGeneration++;
    }
  });
});

connection.onRequest(REVOKE, (params: RevokeParams): RevokeResult => {
  const key = typeof params?.key === 'string' ? params.key : '';
  return { revoked: !!key && (server?.ctx.memory.revoke(key) ?? false) };
});

connection.onRequest(UNDO, async (params: UndoParams): Promise<UndoResult> => {
  const requestId = typeof params?.requestId === 'string' ? params.requestId : '';
  const s = server;
  if (!requestId || !s) return { outcome: 'failed', message: requestId ? 'The server is not running.' : 'No change was named.', files: [] };
  await s.ctx.ready;
  // The person asked for it in the history; the policy still decides, and the panel asks when the mode says so.
  const r = await undoChange(s.ctx.fileDeps(() => s.ctx.defaultApprover), { tool: UNDO_TOOL }, { requestId });
  return { outcome: r.outcome, message: r.message, files: r.files };
});

connection.onRequest(STATUS, (): StatusResult => {
  const ctx = server?.ctx;
  return {
    ...(server?.url && { url: server.url }),
    mode: ctx ? modeLabel(ctx.policy.mode) : 'not running',
    isolation: ctx?.isolation.kind ?? 'none',
    ...(ctx && (ctx.isolation.denial || ctx.isolation.warning) ? { warning: ctx.isolation.denial ?? ctx.isolation.warning } : {}),
    activeCommands: ctx?.executor.active ?? 0,
    queuedCommands: ctx?.executor.queued ?? 0,
    pendingApprovals,
    settingsGeneration,
    ...(settingsError && { settingsError }),
  };
});

connection.onShutdown(async () => {
  await stopServer();
});

connection.listen();
