import * as path from 'node:path';
import { GIT_PROGRAM_ENTRIES } from './gitCreation';
import { ToolError } from '../errors';
import type { ExecStage } from '../exec/types';
import { isInside } from '../paths/confine';
import { checkContext, PRIVATE_HOME_CACHES, SENSITIVE_HOME_ENTRIES, type CheckedContext } from './context';
import type { Sandbox, SandboxContext } from './types';

/**
 * macOS Seatbelt profile (sandbox-exec), same intent as the bubblewrap wrapper: deny by default, read the
 * system, read-write the workspace, HOME unreadable except the workspace, `.git` read-only, no network unless
 * allowed. UNTESTED on a real Mac (these machines run Linux): only the generated text is tested.
 *
 * SBPL evaluates rules in order and the LAST matching rule wins, so the profile goes from broad allows to narrow
 * denies, and every deny that must win (hidden, read-only, .git) comes after the allow it overrides.
 * Limits: Seatbelt has no process/file-size/CPU limits; the timeout is the only bound on macOS.
 */

/** Only the system copy: a sandbox-exec found on PATH could be anyone's. */
export const SANDBOX_EXEC_PATH = '/usr/bin/sandbox-exec';

/** SBPL string literal: backslash and double quote escaped; control characters were refused by checkContext. */
export function sbplString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Every ancestor of `p` (excluding `/`), so getcwd() and `stat` of parents work inside a hidden HOME. */
function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let d = path.dirname(p); d !== path.dirname(d); d = path.dirname(d)) out.push(d);
  return out;
}

export function seatbeltProfile(ctx: SandboxContext): string {
  return profileFor(checkContext(ctx));
}

function profileFor(c: CheckedContext): string {
  const s = sbplString;
  const lines: string[] = [
    '(version 1)',
    '(deny default)',
    '; processes: run programs, fork, signal and inspect only processes of this same sandbox',
    '(allow process-exec)',
    '(allow process-fork)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    '(allow ipc-posix-sem)',
    '(allow ipc-posix-shm-read*)',
    '(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo") (global-name "com.apple.system.logger") (global-name "com.apple.system.notification_center") (global-name "com.apple.trustd.agent"))',
    '; the system and everything else is readable ...',
    '(allow file-read*)',
    '; ... except what is private: /tmp is shared on macOS, so it is read-write but only for temporary files',
    '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper") (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
  ];
  if (c.home) {
    lines.push('; the home directory is neither readable nor writable ...');
    lines.push(`(deny file-read* file-write* (subpath ${s(c.home)}))`);
    const up = ancestors(c.root).filter((a) => isInside(c.home as string, a));
    if (up.length) lines.push(`(allow file-read-metadata ${up.map((a) => `(literal ${s(a)})`).join(' ')})`);
  }
  if (c.toolchainPaths.length > 0) {
    lines.push("; ... except the person's toolchain folders, read-only");
    lines.push(`(allow file-read* ${c.toolchainPaths.map((p) => `(subpath ${s(p)})`).join(' ')})`);
  }
  if (c.privateHome) {
    // Seatbelt cannot give a fresh folder per call as bubblewrap's tmpfs does: HOME is readable, and only its
    // caches are writable, so no configuration file can be planted there for a later command.
    lines.push("; ... and the commands' own HOME: readable, its caches writable");
    lines.push(`(allow file-read* (subpath ${s(c.privateHome)}))`);
    lines.push(`(allow file-write* ${PRIVATE_HOME_CACHES.map((e) => `(subpath ${s(path.join(c.privateHome as string, e))})`).join(' ')})`);
  }
  lines.push('; ... but the workspace is');
  lines.push(`(allow file-read* (subpath ${s(c.root)}))`);
  if (!c.workspaceReadOnly) {
    lines.push(`(allow file-write* (subpath ${s(c.root)}))`);
    // Not private like bubblewrap's tmpfs: other processes of the user share these directories.
    lines.push('(allow file-write* (subpath "/private/tmp") (subpath "/private/var/folders"))');
  }
  if (!c.allowGitWrites) {
    // What makes git run a program later (gitCreation.ts GIT_PROGRAM_ENTRIES), in the root's git directory and its
    // submodules' and worktrees': not written and not created (a regex also matches what does not exist yet). The
    // rest of .git stays writable, so git add and git commit work.
    lines.push('; git configuration and hooks are read-only: a command cannot plant what git would run later');
    const entries = GIT_PROGRAM_ENTRIES.map((e) => e.replace(/[.]/g, '\\.')).join('|');
    lines.push(`(deny file-write* (regex #"^${regexQuote(path.join(c.root, '.git'))}/((modules/.+|worktrees/[^/]+)/)?(${entries})(/|$)"))`);
  }
  if (c.home) {
    // Where the workspace contains HOME, or a toolchain folder holds one, the credential stores stay hidden.
    const holders = [...(isInside(c.root, c.home) ? [c.root] : []), ...c.toolchainPaths];
    const stores = SENSITIVE_HOME_ENTRIES.map((e) => path.join(c.home as string, e)).filter((p) => holders.some((h) => isInside(h, p)));
    if (stores.length) lines.push('; credential stores inside what is visible stay hidden');
    for (const p of stores) lines.push(`(deny file-read* file-write* (subpath ${s(p)}))`);
  }
  for (const p of c.readOnlyPaths) lines.push(`(deny file-write* (subpath ${s(p)}))`);
  for (const p of c.hiddenPaths) lines.push(`(deny file-read* file-write* (subpath ${s(p)}))`);
  if (c.network === 'allow') {
    lines.push('; network allowed by the user');
    lines.push('(allow network-outbound)');
    lines.push('(allow network-inbound (local ip "localhost:*"))');
    lines.push('(allow system-socket)');
    lines.push('(allow mach-lookup (global-name "com.apple.dnssd.service") (global-name "com.apple.SystemConfiguration.DNSConfiguration") (global-name "com.apple.SystemConfiguration.configd"))');
  } else {
    lines.push('; no network: (deny default) already covers network*, said again so no later edit forgets it');
    lines.push('(deny network*)');
  }
  return lines.join('\n') + '\n';
}

export function seatbeltArgs(stage: ExecStage, ctx: SandboxContext): string[] {
  return ['-p', seatbeltProfile(ctx), '--', stage.file, ...stage.args];
}

export function createSeatbeltSandbox(sandboxExecPath: string = SANDBOX_EXEC_PATH): Sandbox {
  return {
    kind: 'seatbelt',
    wrap: (stage, ctx) => {
      // No copy-on-write view here: a preview asked for must not run against the real folder instead.
      if (ctx.overlay) throw new ToolError('ISOLATION_UNAVAILABLE', 'Command preview needs Linux (overlayfs); the command was not run.', 'effect.no-view');
      return { file: sandboxExecPath, args: seatbeltArgs(stage, ctx) };
    },
  };
}

/** A literal path inside a Seatbelt `#"…"` regular expression. */
function regexQuote(p: string): string {
  return p.replace(/[\\^$.|?*+()[\]{}"]/g, (ch) => `\\${ch}`);
}
