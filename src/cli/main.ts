import * as path from 'node:path';
import { loadConfigFile } from '../core/config/configFile';
import { RuleFile } from '../core/config/ruleFile';
import { settingsFromEnvironment } from '../core/config/environment';
import { resolveSettings } from '../core/config/settings';
import { isToolError } from '../core/errors';
import { PolicyError } from '../core/policy';
import { startStandalone } from '../server/standalone';
import { unrunnableNote } from '../server/tools/describe';
import { isolationOutcomeOf } from '../core/isolationState';
import { connectionHelp, exposureWarning } from './connectionHelp';
import { startFailure, StartError } from './startFailure';
import { launchLayer } from './transport';
import { FlagError, helpText, parseFlags } from './flags';
import { previewUnavailableNote } from '../core/effects/commandEffects';

declare const GUARDED_SHELL_VERSION: string | undefined;
const VERSION = typeof GUARDED_SHELL_VERSION === 'string' ? GUARDED_SHELL_VERSION : '0.0.0-dev';

/** `guarded-shell`: the standalone server. Exit code 2 for a bad flag, value or config; 1 when it cannot start. */
async function main(argv: readonly string[]): Promise<void> {
  const flags = parseFlags(argv);
  if (flags.help) return void process.stdout.write(helpText(VERSION) + '\n');
  if (flags.version) return void process.stdout.write(VERSION + '\n');
  const fromFile = loadConfigFile(flags.conf, process.cwd());
  const settings = resolveSettings([launchLayer(), fromFile, settingsFromEnvironment(process.env), flags.layer]);
  // "Always allow" rules go to the config file read now, or to the one the next start reads (created then).
  const ruleFile = new RuleFile({ file: fromFile.configFile ?? path.join(process.cwd(), 'guarded-shell.json'), existed: fromFile.configFile !== undefined });
  const server = await startStandalone(settings, VERSION, undefined, { ruleFile }).catch((e: unknown) => {
    // A bad setting found while starting (a token file others can read) is a usage error (exit 2), like a flag's.
    if (e instanceof PolicyError) throw e;
    throw new StartError(startFailure(e, settings.server));
  });

  const err = process.stderr;
  // Which file and which sandbox: the two things a person debugging "why was this refused" asks first.
  const transport = settings.server.transport === 'stdio' && flags.layer.transport === undefined && fromFile.transport === undefined ? 'stdio (stdin is a pipe: launched by a client; --http for HTTP)' : settings.server.transport;
  err.write(`guarded-shell: config file ${fromFile.configFile ?? 'none'}; transport ${transport}; ${sandboxLine(server.ctx.isolation)}; mode ${settings.policy.mode}\n`);
  if (settings.server.transport !== 'stdio') {
    if (server.token === null) err.write('guarded-shell: WARNING: authentication is OFF (--noauth). Anyone who can reach this port can run commands.\n');
    // Connection details go to stderr, with every other line for people (stdout carries only an audit stream asked for).
    err.write(connectionHelp(server.url!, server.token ?? null, settings.policy.root, settings.server.printConfig) + '\n');
    const exposed = exposureWarning(settings.server.host, new URL(server.url!).port, server.token !== null);
    if (exposed) err.write(exposed + '\n');
  }
  // The sandbox probe runs in the background (calls wait for it): its warning follows as soon as it answers.
  void server.ctx.ready.then(() => {
    if (server.ctx.isolation.warning) err.write(`guarded-shell: ${server.ctx.isolation.warning}\n`);
    const preview = previewUnavailableNote(server.ctx.policy, server.ctx.isolation);
    if (preview) err.write(`guarded-shell: ${preview}\n`);
    // Which allowlist entries cannot run depends on the sandbox the probe found.
    const never = unrunnableNote(settings.policy, isolationOutcomeOf(server.ctx.isolation) === 'sandboxed');
    if (never) err.write(`guarded-shell: ${never}\n`);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    err.write(`guarded-shell: ${signal}: stopping every running command and shutting down\n`);
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => stop('SIGHUP'));
  if (settings.server.transport === 'stdio') process.stdin.on('end', () => stop('stdin closed'));
}

/** What commands run inside, said once and truly: a sandbox that confines them, or none (then what that means). */
function sandboxLine(isolation: { readonly kind: string; readonly denial?: string }): string {
  if (isolation.denial) return `no sandbox, so every command is refused: ${isolation.denial}`;
  return isolation.kind === 'none'
    ? 'no sandbox: every allowed command runs with this process\'s OS permissions (the allowlist and argument rules are defence in depth; see README, "Security model")'
    : `sandbox ${isolation.kind}: every command runs inside it (see docs/isolation.md)`;
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof StartError) {
    process.stderr.write(`guarded-shell: ${e.message}\n`);
    process.exit(1);
  }
  const usage = e instanceof FlagError || e instanceof PolicyError || (isToolError(e) && (e.code === 'BAD_REQUEST' || e.code === 'PATH_NOT_FOUND'));
  process.stderr.write(`guarded-shell: ${(e as Error).message}\n`);
  process.exit(usage ? 2 : 1);
});
