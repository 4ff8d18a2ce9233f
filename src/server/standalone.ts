import { unavailableApprover, type Approver } from '../core/approval';
import { AuditLog, fileSink, streamSink, type AuditSink } from '../core/audit';
import type { EffectiveSettings } from '../core/config/settings';
import { createExecutor } from '../core/exec/executor';
import { BackupStore, defaultBackupDir } from '../core/files/backupStore';
import { CheckpointStore } from '../core/effects/checkpoint';
import { PROBE_PENDING } from '../core/isolationState';
import { defaultCommandHome, ensurePrivateHome } from '../core/exec/developer/privateHome';
import { ServerContext } from './context';
import { createServer } from './createServer';
import { PolicyError } from '../core/policy';
import { generateToken } from './http/guards';
import { tokenFromFile } from './tokenFile';
import { containmentOnce, isolationFor, isolationWithoutSandbox, probeOnce, probeOverlayOnce } from './isolation';
import { elicitationApprover } from './approvers/elicitation';
import { startWebApproval } from './approvers/webApproval';
import { parsePolicy, type Policy } from '../core/policy';
import type { RuleFile } from '../core/config/ruleFile';
import type { RuleStore } from './context';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface StandaloneServer {
  readonly ctx: ServerContext;
  /** The MCP endpoint, for the HTTP transports. */
  readonly url?: string;
  /** The bearer token clients must send, unless authentication is off. */
  readonly token?: string | null;
  /** Kills every running command tree, closes the transport and the audit log. */
  close(): Promise<void>;
}

/** What a host embedding the server (the VS Code server process, ipcMain.ts) plugs in. */
export interface StandaloneHooks {
  /** Asks every session's approvals (the VS Code channel) instead of MCP elicitation / "unavailable". */
  readonly approver?: Approver;
  /** Extra audit sinks, attached before the first event. */
  readonly auditSinks?: readonly AuditSink[];
  /** The folder of the backup store (`editBackup: storage`): VS Code's extension storage. Default: defaultBackupDir. */
  readonly backupDir?: string;
  /** Where "Always allow" rules are saved (the CLI's config file); absent when the host saves them (VS Code). */
  readonly ruleFile?: RuleFile;
  /** The commands' private HOME: a folder in VS Code's extension storage. Default: defaultCommandHome. */
  readonly commandHome?: string;
  /** Who the person set the settings through, for naming them in results (VS Code keys or flags). */
  readonly settingsHost?: 'vscode' | 'standalone';
}

/**
 * Starts the server the way the CLI runs it: one context (policy, executor, audit, isolation), one transport.
 * Without VS Code, approvals go through MCP elicitation when the client supports it, otherwise a request that
 * needs approval is denied with APPROVAL_UNAVAILABLE.
 */
export async function startStandalone(
  settings: EffectiveSettings,
  version: string,
  streams = { out: process.stdout, err: process.stderr },
  hooks: StandaloneHooks = {},
): Promise<StandaloneServer> {
  const { policy, server: options } = settings;
  const audit = new AuditLog();
  // The console is for people: the audit stream (JSON lines) goes there only when asked (--audit-stream). Under
  // --stdio, stdout carries MCP frames, so a stream asked for stdout goes to stderr there.
  if (!options.quiet && options.auditStream !== 'none') audit.add(streamSink(options.auditStream === 'stderr' || options.transport === 'stdio' ? streams.err : streams.out));
  if (options.auditLog) audit.add(fileSink(options.auditLog));
  for (const sink of hooks.auditSinks ?? []) audit.add(sink);
  const executor = createExecutor({ concurrency: policy.concurrency });
  // The sandbox probe (starting a trial sandbox: 30–200 ms) runs while the transport starts instead of before
  // it. Until it answers the isolation denies every command, and every tool call waits for it (ctx.ready), so
  // nothing ever runs unsandboxed because the probe was not done. A probe that throws leaves commands denied.
  const ctx = new ServerContext(policy, executor, audit, PROBE_PENDING, hooks.approver ?? unavailableApprover, version);
  ctx.backups = new BackupStore(hooks.backupDir ?? defaultBackupDir(policy.root));
  // Checkpoints of commands live beside the backups they feed (outside the workspace, the host's storage).
  ctx.checkpoints = new CheckpointStore(path.join(ctx.backups.dir, 'checkpoints'));
  if (hooks.ruleFile) ctx.rules = ruleStore(ctx, hooks.ruleFile);
  if (hooks.settingsHost) ctx.settingsHost = hooks.settingsHost;
  try {
    ctx.commandHome = ensurePrivateHome(hooks.commandHome ?? defaultCommandHome(policy.root));
  } catch (e) {
    // Commands then run without a HOME of their own (as before there was one); the server still serves.
    if (!options.quiet) streams.err.write(`guarded-shell: commands get no HOME of their own: ${(e as Error).message}\n`);
  }
  // Without a sandbox the sandbox's and the preview's trials wait until the transport is up and has read what came
  // (`probesMayStart` below): four spawns of this process on the start's way for nothing its sessions are told.
  let probesMayStart: () => void = () => undefined;
  const probesMay = policy.isolation === 'none' ? new Promise<void>((resolve) => (probesMayStart = resolve)) : Promise.resolve();
  ctx.ready = probesMay.then(() => Promise.all([probeOnce(), probeOverlayOnce()])).then(
    ([probe, overlay]) => {
      ctx.isolationFor = (p) => isolationFor(p, probe, ctx.surroundingsFor(p), undefined, overlay);
      ctx.isolation = ctx.isolationFor(ctx.policy); // the policy of this moment: settings may have changed since
    },
    (e: unknown) => void (ctx.isolation = { kind: 'none', denial: `The sandbox probe failed: ${(e as Error).message}` }),
  );
  // Sessions open once what they are told (the instructions, the tools' sandbox notes) is known: the isolation of
  // the policy in force. Without a sandbox (isolation "none") that is the containment trial's answer alone; the
  // sandbox's and the preview's trials cannot change it, so they do not hold up the start. Calls still wait for
  // every probe (ctx.ready), which then sets the isolation for the policy of that moment.
  const known =
    policy.isolation === 'none'
      ? containmentOnce().then(() => {
          if (ctx.isolation === PROBE_PENDING && ctx.policy.isolation === 'none') ctx.isolation = isolationWithoutSandbox(ctx.policy);
        }, () => (probesMayStart(), ctx.ready))
      : ctx.ready;
  // A host approver (VS Code) answers for every session. Otherwise `approver` decides (docs/approvals.md): the
  // local approval page (web), the page unless the client offers elicitation (auto), or elicitation.
  const web = !hooks.approver && options.approver !== 'elicitation' ? await startWebApproval(ctx) : undefined;
  if (web) {
    ctx.defaultApprover = web.approver;
    const note = options.transport === 'stdio' ? 'under --stdio the MCP client receives this stream: see docs/approvals.md' : 'the MCP client cannot see or answer this page';
    streams.err.write(`guarded-shell: approvals: open ${web.page.url} in your browser (${note})\n`);
  }
  const elicit = !hooks.approver && options.approver !== 'web';
  const factory = () => createServer(ctx, elicit ? (server) => elicitationApprover(server, ctx) : undefined);

  let closeTransport: () => Promise<void>;
  let url: string | undefined;
  let token: string | null | undefined;
  // Each transport's stack is loaded only when it is the one chosen (stdio does not load the HTTP server), while
  // the probes run; sessions are accepted once the isolation they are told is known (`known` above), so the
  // instructions, descriptions and the start-up line name the isolation really in force (never "pending").
  if (options.transport === 'stdio') {
    const [{ StdioServerTransport }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), known]);
    const { server } = factory();
    const transport = new StdioServerTransport();
    await server.connect(transport);
    closeTransport = () => server.close();
  } else {
    if (options.tokenFile !== undefined && options.auth !== undefined) throw new PolicyError(`the token file cannot be used together with ${options.auth === null ? '--noauth' : 'a fixed token (--auth, GUARDED_SHELL_TOKEN or "auth")'}; choose one.`);
    token = options.auth === null ? null : (options.auth ?? (options.tokenFile !== undefined ? tokenFromFile(options.tokenFile) : generateToken()));
    const [{ startHttpServer }] = await Promise.all([import('./http/httpServer'), known]);
    const http = await startHttpServer(factory, { host: options.host, port: options.port, token, corsOrigins: options.corsOrigins, transport: options.transport });
    url = http.url;
    closeTransport = () => http.close();
  }
  setImmediate(probesMayStart); // (after this turn's reads: a client's first request is answered before they start)
  const started = { transport: options.transport, root: policy.root, mode: policy.mode, ...(url && { url }) };
  // Recorded now: the transport waited until the isolation sessions are told was known; before any call's events,
  // which wait for every probe (ctx.ready).
  audit.record({ event: 'server', result_type: 'success', action: 'start', ...started, isolation: ctx.isolation.kind });
  let closing: Promise<void> | undefined;
  return {
    ctx,
    ...(url !== undefined && { url }),
    ...(token !== undefined && { token }),
    close: () =>
      (closing ??= (async () => {
        // Background runs first (each is told it was the server that stopped it), then anything still running.
        await ctx.background.close('server');
        await Promise.all([executor.shutdown(), ctx.backgroundExecutor.shutdown()]);
        ctx.egress.dispose();
        await closeTransport().catch(() => {});
        await web?.close().catch(() => {});
        audit.record({ event: 'server', result_type: 'success', action: 'stop' });
        audit.close();
      })()),
  };
}

/**
 * Rules saved in the config file and applied at once: the live policy gets the new `autoApprove` list (so the
 * history lists it and the next call matches it), and a config file the server just created becomes one of its
 * own files (never writable through a tool, read-only in the sandbox).
 */
function ruleStore(ctx: ServerContext, file: RuleFile): RuleStore {
  const apply = (change: (rules: readonly string[]) => string[]) => {
    const own = fs.existsSync(file.file) ? fs.realpathSync(file.file) : undefined;
    const p: Policy = ctx.policy;
    ctx.setPolicy(parsePolicy({ ...p, autoApprove: change(p.autoApprove), ownFiles: own && !p.ownFiles.includes(own) ? [...p.ownFiles, own] : [...p.ownFiles] }));
  };
  return {
    list: () => ctx.policy.autoApprove,
    save: (rule) => {
      file.add(rule);
      apply((rules) => (rules.includes(rule) ? [...rules] : [...rules, rule]));
    },
    remove: (rule) => {
      file.remove(rule);
      apply((rules) => rules.filter((r) => r !== rule));
    },
  };
}
