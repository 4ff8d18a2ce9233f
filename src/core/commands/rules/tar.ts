import { allow, deny, type Verdict } from '../../verdict';
import { couldMean, longTable, scanOptions, shortTable, type Grammar, type OptionEvent } from './getopt';
import type { FamilyRule, ProgramOption } from './types';

/**
 * tar, judged under BOTH grammars it may have, whatever the executable is called (tar is GNU tar on Linux and
 * bsdtar on macOS/BSD/Windows; gtar and bsdtar exist side by side): GNU tar 1.34 (argp: permuting getopt_long)
 * and bsdtar 3.x (libarchive's own scanner, where `-H`/`-L` are flags, `-s` takes a value and `-W name=value`
 * is a long option). The command is denied when EITHER reading reaches an option that makes tar start another
 * program:
 *   --checkpoint-action (every action, not only exec=), -I/--use-compress-program, --to-command,
 *   --rsh-command, --rmt-command, -F/--info-script/--new-volume-script
 * in separate and `=` forms, as any abbreviation that could mean one of them (`--use-comp`, `--to`, `--rm`),
 * anywhere in a short cluster, in the old-style first word (`tar cIf prog x.tar`) and after operands.
 * Side files: --index-file, -g/--listed-incremental and --volno-file write files wherever they are told;
 * denied in the same spellings (GNU grammar; `-W` names under bsdtar's). Rule `tar.side-file`.
 * Also denied: an archive name with a colon before its first slash (`-f host:file`), which GNU tar opens on a
 * remote host through rsh/ssh.
 * Values consumed by harmless options are data; a lone unconsumed `--` ends option parsing.
 */

interface TarGrammar extends Grammar {
  readonly dialect: 'GNU tar 1.34' | 'bsdtar 3.x';
}

const GNU: TarGrammar = {
  dialect: 'GNU tar 1.34',
  permute: true,
  short: shortTable('AcdrtuxGnSkUWOmpsMBiajJzZhPlRvwo?g:C:T:X:f:F:L:b:H:V:I:K:N:'),
  long: longTable(`
    absolute-names:n acls:n add-file:r after-date:r anchored:n append:n atime-preserve:o auto-compress:n backup:o
    block-number:n blocking-factor:r bzip2:n catenate:n check-device:n check-links:n checkpoint-action:r
    checkpoint:o clamp-mtime:n compare:n compress:n concatenate:n confirmation:n create:n
    delay-directory-restore:n delete:n dereference:n diff:n directory:r exclude-backups:n exclude-caches-all:n
    exclude-caches-under:n exclude-caches:n exclude-from:r exclude-ignore-recursive:r exclude-ignore:r
    exclude-tag-all:r exclude-tag-under:r exclude-tag:r exclude-vcs-ignores:n exclude-vcs:n exclude:r extract:n
    file:r files-from:r force-local:n format:r full-time:n get:n group-map:r group:r gunzip:n gzip:n
    hard-dereference:n help:n hole-detection:r ignore-case:n ignore-command-error:n ignore-failed-read:n
    ignore-zeros:n incremental:n index-file:r info-script:r interactive:n keep-directory-symlink:n
    keep-newer-files:n keep-old-files:n label:r level:r list:n listed-incremental:r lzip:n lzma:n lzop:n mode:r
    mtime:r multi-volume:n new-volume-script:r newer-mtime:r newer:r no-acls:n no-anchored:n no-auto-compress:n
    no-check-device:n no-delay-directory-restore:n no-ignore-case:n no-ignore-command-error:n no-null:n
    no-overwrite-dir:n no-quote-chars:r no-recursion:n no-same-owner:n no-same-permissions:n no-seek:n
    no-selinux:n no-unquote:n no-verbatim-files-from:n no-wildcards-match-slash:n no-wildcards:n no-xattrs:n
    null:n numeric-owner:n occurrence:o old-archive:n one-file-system:n one-top-level:o overwrite-dir:n
    overwrite:n owner-map:r owner:r pax-option:r portability:n posix:n preserve-order:n preserve-permissions:n
    quote-chars:r quoting-style:r read-full-records:n record-size:r recursion:n recursive-unlink:n
    remove-files:n restrict:n rmt-command:r rsh-command:r same-order:n same-owner:n same-permissions:n seek:n
    selinux:n show-defaults:n show-omitted-dirs:n show-snapshot-field-ranges:n show-stored-names:n
    show-transformed-names:n skip-old-files:n sort:r sparse-version:r sparse:n starting-file:r
    strip-components:r suffix:r tape-length:r test-label:n to-command:r to-stdout:n totals:o touch:n
    transform:r uncompress:n ungzip:n unlink-first:n unquote:n update:n usage:n use-compress-program:r utc:n
    verbatim-files-from:n verbose:n verify:n version:n volno-file:r warning:r wildcards-match-slash:n
    wildcards:n xattrs-exclude:r xattrs-include:r xattrs:n xform:r xz:n zstd:n preserve:n
  `),
};

const BSD: TarGrammar = {
  dialect: 'bsdtar 3.x',
  permute: true, // bsdtar stops at the first operand; scanning further only reads more (never fewer) options
  short: shortTable('aBb:C:cf:HhI:JjkLlmnOoPpqrSs:T:tUuvW:wX:xyZz'),
  long: longTable(`
    absolute-paths:n acls:n append:n auto-compress:n b64encode:n block-size:r blocking-factor:r bunzip2:n bzip:n
    bzip2:n cd:r check-links:n chroot:n clear-nochange-fflags:n compress:n confirmation:n create:n dereference:n
    directory:r disable-copyfile:n exclude:r exclude-from:r exclude-vcs:n extract:n fast-read:n fflags:n file:r
    files-from:r format:r gid:r gname:r group:r grzip:n gunzip:n gzip:n help:n hfsCompression:n ignore-zeros:n
    include:r insecure:n interactive:n keep-newer-files:n keep-old-files:n list:n lrzip:n lz4:n lzip:n lzma:n
    lzop:n mac-metadata:n modification-time:n newer:r newer-ctime:r newer-ctime-than:r newer-mtime:r
    newer-mtime-than:r newer-than:r no-acls:n no-fflags:n no-mac-metadata:n no-read-sparse:n no-recursion:n
    no-safe-writes:n no-same-owner:n no-same-permissions:n no-xattr:n no-xattrs:n nodump:n
    nopreserveHFSCompression:n norecurse:n null:n numeric-owner:n older:r older-ctime:r older-ctime-than:r
    older-mtime:r older-mtime-than:r older-than:r one-file-system:n options:r owner:r passphrase:r posix:n
    preserve-permissions:n read-full-blocks:n read-sparse:n safe-writes:n same-owner:n same-permissions:n
    strip-components:r to-stdout:n totals:n uid:r uname:r uncompress:n unlink:n unlink-first:n update:n
    use-compress-program:r uuencode:n verbose:n version:n xattrs:n xz:n zstd:n
  `),
};

const HELPER_LONG: Readonly<Record<string, string>> = {
  'checkpoint-action': 'runs an action at each checkpoint (exec, sleep, echo and the others); every action is denied',
  'use-compress-program': 'runs a program of its choosing as the compressor',
  'to-command': 'pipes every extracted file into a command',
  'rsh-command': 'runs a program of its choosing to reach a remote archive',
  'rmt-command': 'runs a program of its choosing as the remote tape server',
  'info-script': 'runs a script at the end of each volume',
  'new-volume-script': 'runs a script at the end of each volume',
};
const HELPER_SHORT: Readonly<Record<string, string>> = {
  I: 'is --use-compress-program in GNU tar: it runs a program of its choosing',
  F: 'is --info-script in GNU tar: it runs a script at the end of each volume',
};

/** tar's table of options that name a program, for the docs (the rule reads HELPER_LONG and HELPER_SHORT). */
export const TAR_PROGRAM_OPTIONS: readonly ProgramOption[] = [
  ...Object.entries(HELPER_LONG).map(([name, why]) => ({ option: `--${name}`, why })),
  ...Object.entries(HELPER_SHORT).map(([letter, why]) => ({ option: `-${letter}`, why })),
];

/** GNU tar options that write a side file wherever they are told (besides the archive itself). */
const SIDE_FILE_LONG: Readonly<Record<string, string>> = {
  'index-file': 'writes its verbose listing to a file of its choosing',
  'listed-incremental': 'reads and rewrites a snapshot file of its choosing',
  'volno-file': 'writes the volume number to a file of its choosing',
};
const SIDE_FILE_SHORT: Readonly<Record<string, string>> = {
  g: 'is --listed-incremental in GNU tar: it reads and rewrites a snapshot file of its choosing',
};

/** GNU tar and bsdtar both read a first argument without a dash as a cluster of option letters. */
function explodeOldStyle(args: readonly string[], g: Grammar): string[] {
  const first = args[0];
  if (first === undefined || first.startsWith('-')) return [...args];
  const out: string[] = [];
  let next = 1;
  for (const letter of first) {
    out.push(`-${letter}`);
    if (g.short[letter] === 'required' && next < args.length) out.push(args[next++]!);
  }
  return [...out, ...args.slice(next)];
}

/** A remote archive spec for GNU tar: a colon before the first slash (`host:file`, `user@host:/x`). */
function isRemoteArchive(name: string): boolean {
  const colon = name.indexOf(':');
  if (colon <= 0) return false;
  const slash = name.indexOf('/');
  return slash < 0 || colon < slash;
}

function judgeEvents(events: readonly OptionEvent[], g: TarGrammar, forceLocal: boolean): Verdict | undefined {
  // Only helpers this dialect has can be reached by its abbreviations (bsdtar has just --use-compress-program;
  // `--checkpoint=10` is unknown to bsdtar, an error there, not a helper).
  const helpers = Object.entries(HELPER_LONG).filter(([name]) => g.long.some((o) => o.name === name));
  const sideFiles = Object.entries(SIDE_FILE_LONG).filter(([name]) => g.long.some((o) => o.name === name));
  for (const ev of events) {
    if (ev.kind === 'short') {
      const why = Object.prototype.hasOwnProperty.call(HELPER_SHORT, ev.letter) ? HELPER_SHORT[ev.letter] : undefined;
      if (why) return deny('ARGUMENT_FORBIDDEN', 'tar.helper-option', `tar -${ev.letter} is not allowed: it ${why} (read as ${g.dialect}).`);
      const side = g === GNU && Object.prototype.hasOwnProperty.call(SIDE_FILE_SHORT, ev.letter) ? SIDE_FILE_SHORT[ev.letter] : undefined;
      if (side) return deny('ARGUMENT_FORBIDDEN', 'tar.side-file', `tar -${ev.letter} is not allowed: it ${side} (read as ${g.dialect}).`);
      if (ev.letter === 'W' && g === BSD && ev.value !== undefined) {
        const name = ev.value.split('=')[0]!;
        for (const [helper, hwhy] of helpers) {
          if (couldMean(name, helper, g.long)) {
            return deny('ARGUMENT_FORBIDDEN', 'tar.helper-option', `tar -W ${name} is not allowed: bsdtar reads it as --${helper}, which ${hwhy}.`);
          }
        }
        for (const [side, swhy] of Object.entries(SIDE_FILE_LONG)) {
          if (side.startsWith(name) && name !== '') {
            return deny('ARGUMENT_FORBIDDEN', 'tar.side-file', `tar -W ${name} is not allowed: it could mean --${side}, which ${swhy}.`);
          }
        }
      }
      if (ev.letter === 'f' && g === GNU && !forceLocal && ev.value !== undefined && isRemoteArchive(ev.value)) {
        return remoteDenied(ev.value);
      }
    } else if (ev.kind === 'long') {
      for (const [helper, why] of helpers) {
        if (couldMean(ev.typed, helper, g.long)) {
          const spelled = ev.typed === helper ? `--${helper}` : `--${ev.typed} (which could mean --${helper})`;
          return deny('ARGUMENT_FORBIDDEN', 'tar.helper-option', `tar ${spelled} is not allowed: it ${why} (read as ${g.dialect}).`);
        }
      }
      for (const [side, why] of sideFiles) {
        if (couldMean(ev.typed, side, g.long)) {
          const spelled = ev.typed === side ? `--${side}` : `--${ev.typed} (which could mean --${side})`;
          return deny('ARGUMENT_FORBIDDEN', 'tar.side-file', `tar ${spelled} is not allowed: it ${why} (read as ${g.dialect}).`);
        }
      }
      if (g === GNU && !forceLocal && ev.resolved?.name === 'file' && ev.value !== undefined && isRemoteArchive(ev.value)) {
        return remoteDenied(ev.value);
      }
    }
  }
  return undefined;
}

const remoteDenied = (archive: string): Verdict =>
  deny('ARGUMENT_FORBIDDEN', 'tar.remote-archive', `tar archive "${archive}" is not allowed: GNU tar treats a name with a colon before its first slash as host:file and starts rsh/ssh to reach it. Write ./${archive} for a local file.`);

export const tarRule: FamilyRule = (args) => {
  for (const g of [GNU, BSD]) {
    const events = scanOptions(explodeOldStyle(args, g), g);
    const forceLocal = events.some((e) => e.kind === 'long' && e.resolved?.name === 'force-local');
    const verdict = judgeEvents(events, g, forceLocal);
    if (verdict) return verdict;
  }
  return allow('tar.ok');
};
