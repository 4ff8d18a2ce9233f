import { allow, deny, type Verdict } from '../../verdict';
import { couldMean, longTable, scanOptions, shortTable, type Grammar } from './getopt';
import type { FamilyRule, ProgramOption } from './types';

/**
 * rsync (3.x, popt: short clusters with attached or separate values, `--name=value` and `--name value`, options
 * after operands, `--`). One table of the options that name a program, denied in every spelling
 * (`rsync.helper-option`): a long name in any prefix (popt takes exact names only, but an abbreviation is not
 * worth the doubt), `-e` anywhere in a short cluster (`-ae CMD`, `-aeCMD`). Forwarded: `-M OPT` /
 * `--remote-option=OPT` hands OPT to the other rsync, so OPT is judged by this rule again. An operand naming a
 * remote host through the remote shell (`host:path`, `user@host:path`) starts ssh (`rsync.remote-shell`); daemon
 * addresses (`host::module`, `rsync://host/…`) are plain TCP and stay allowed. Seen with the real rsync:
 * test/unit/rules/rsync.real.test.ts.
 */

export const RSYNC_PROGRAM_OPTIONS: readonly ProgramOption[] = [
  { option: '-e, --rsh', why: 'names the remote-shell program rsync starts' },
  { option: '--rsync-path', why: 'names the program the remote shell starts as the other rsync' },
  { option: '--daemon', why: 'starts an rsync daemon, whose configuration runs commands (pre-xfer exec, post-xfer exec)' },
  { option: '--config, --dparam', why: 'the daemon\'s configuration file and parameters' },
  { option: '--server, --sender', why: 'rsync\'s internal server mode, driven by whatever is on its standard input' },
  { option: 'host:path operands', why: 'start the remote shell (ssh, or RSYNC_RSH)' },
];

const RSYNC: Grammar = {
  permute: true,
  short: shortTable('vqcarRbudlLkKHpEAXogDtUNOJSnWxB:e:yCf:FmIT:zhi0s8@:M:46VP'),
  long: longTable(`
    info:r debug:r stderr:r backup-dir:r suffix:r confine-root:r chmod:r checksum-choice:r block-size:r rsh:r
    rsync-path:r max-delete:r max-size:r min-size:r max-alloc:r partial-dir:r usermap:r groupmap:r chown:r
    timeout:r contimeout:r modify-window:r temp-dir:r compare-dest:r copy-dest:r link-dest:r compress-choice:r
    compress-level:r compress-threads:r skip-compress:r filter:r exclude:r exclude-from:r include:r
    include-from:r files-from:r copy-as:r address:r port:r sockopts:r outbuf:r remote-option:r out-format:r
    log-file:r log-file-format:r password-file:r early-input:r bwlimit:r stop-after:r stop-at:r write-batch:r
    only-write-batch:r read-batch:r protocol:r iconv:r checksum-seed:r config:r dparam:r daemon:n server:n
    sender:n
  `),
};

/** Long names that name a program (or a mode that runs one); matched in any prefix. */
const PROGRAM_LONGS: Readonly<Record<string, string>> = {
  rsh: 'names the remote-shell program rsync starts',
  'rsync-path': 'names the program the remote shell starts as the other rsync',
  daemon: 'starts an rsync daemon, whose configuration runs commands',
  config: 'names the daemon configuration, which runs commands (pre-xfer exec)',
  dparam: 'sets daemon configuration, which runs commands',
  server: 'is rsync\'s internal server mode',
  sender: 'is rsync\'s internal server mode',
};

const refuse = (rule: string, message: string): Verdict => deny('ARGUMENT_FORBIDDEN', rule, message);

/** True when rsync reads the operand as host:path through the remote shell (not a daemon's host::module). */
function isRemoteShellOperand(operand: string): boolean {
  if (/^rsync:\/\//i.test(operand)) return false;
  const colon = operand.indexOf(':');
  if (colon < 0) return false;
  const slash = operand.indexOf('/');
  if (slash >= 0 && slash < colon) return false; // ./a:b is a local file
  return !/^[^/:[\]]+::/.test(operand);
}

function judgeRsync(args: readonly string[], depth: number): Verdict {
  for (const ev of scanOptions(args, RSYNC)) {
    if (ev.kind === 'short' && ev.letter === 'e') return refuse('rsync.helper-option', `rsync -e is not allowed: it names the remote-shell program rsync starts.`);
    if (ev.kind === 'long') {
      const hit = Object.keys(PROGRAM_LONGS).find((name) => ev.typed !== '' && couldMean(ev.typed, name, RSYNC.long));
      if (hit) return refuse('rsync.helper-option', `rsync ${ev.typed === hit ? `--${hit}` : `--${ev.typed} (which could mean --${hit})`} is not allowed: it ${PROGRAM_LONGS[hit]}.`);
    }
    const forwardedValue = (ev.kind === 'short' && ev.letter === 'M') || (ev.kind === 'long' && ev.typed !== '' && couldMean(ev.typed, 'remote-option', RSYNC.long)) ? ('value' in ev ? ev.value : undefined) : undefined;
    if (forwardedValue !== undefined) {
      const inner = depth > 2 ? refuse('rsync.helper-option', 'rsync remote options nest too deep') : judgeRsync([forwardedValue], depth + 1);
      if (inner.kind !== 'allow') return refuse(inner.kind === 'deny' ? inner.rule : 'rsync.helper-option', `rsync forwards "${forwardedValue}" to the other rsync (-M/--remote-option), and ${inner.kind === 'deny' ? inner.reason : 'it is not allowed'}`);
    }
    if (ev.kind === 'operand' && isRemoteShellOperand(ev.value)) {
      return refuse('rsync.remote-shell', `rsync operand "${ev.value}" is not allowed: host:path makes rsync start a remote shell (ssh). Use a local path (./${ev.value} for a file with a colon in its name), or an rsync daemon address (host::module, rsync://host/module).`);
    }
  }
  return allow('rsync.ok');
}

export const rsyncRule: FamilyRule = (args) => judgeRsync(args, 0);
