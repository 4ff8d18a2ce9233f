import { allow, deny, type Verdict } from '../../verdict';
import { couldMean, longTable, scanOptions, shortTable, type Grammar } from './getopt';
import { judgeSendEmail } from './gitSendEmail';
import type { FamilyRule } from './types';

/**
 * git: the ways an argv makes git run a program of the caller's choosing, write its configuration or reach a
 * remote helper, judged with git's own grammar (global options matched exactly, then the subcommand's
 * parse-options grammar: clusters, unique abbreviations, `=` and separate values, `--`/`--end-of-options`).
 *
 *  - global `-c name=value` and `-cname=value` (every key: aliases, core.pager, core.sshCommand … all run
 *    programs), `--config-env`, `--exec-path` (every form); unknown global options (fail closed);
 *  - `git config` writes (any form but the read-only ones);
 *  - `git grep -O`/`--open-files-in-pager` (any prefix, in clusters such as `-nOP`, `-1OP`);
 *  - `git rebase -x`/`--exec` (any prefix, in clusters such as `-xP`, `-qxP`, also after operands);
 *  - every `git filter-branch` (even `--help`); `git bisect run`; `git submodule foreach`; the subcommands whose
 *    job is to start tools (`difftool`, `mergetool`, `instaweb`, `web--browse`);
 *  - everywhere else: `--exec` and its prefixes (`--e`, `--ex`, `--exe`: remote helper selectors such as
 *    `git push --exec=PROG`), `--upload-pack`, `--receive-pack` and their prefixes, `git clone -u`/`-c`/
 *    `--config`/`--template`, `--output=FILE` (writes any path), and `ext::` URLs;
 *  - `git send-email` program selectors (gitSendEmail.ts).
 * Values consumed by global options and by value-taking options are data: `git -C --exec status` changes into
 * a directory called "--exec", `git grep -e -O data` searches for "-O", `git rebase --onto --exec` rebases onto
 * a branch called "--exec".
 * Hooks, editors, pagers, merge/diff drivers and other programs named by configuration files remain delegated:
 * this is defence in depth, not a sandbox.
 */

const GLOBAL_WITH_VALUE = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--attr-source']);
const GLOBAL_FLAGS = new Set([
  '-p', '--paginate', '-P', '--no-pager', '--bare', '--no-replace-objects', '--no-lazy-fetch', '--no-optional-locks',
  '--no-advice', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '-v',
  '--version', '-h', '--help', '--html-path', '--man-path', '--info-path',
]);

const argDenied = (rule: string, reason: string): Verdict => deny('ARGUMENT_FORBIDDEN', rule, reason);

/** Where git will look for its repository, as the global options say (checked against the disk by gitRepo.ts). */
export interface GitLocation {
  /** `-C` directories, in order (each relative to the previous). */
  readonly chdirs: readonly string[];
  readonly gitDir?: string;
  readonly workTree?: string;
  /** `--bare`: the (final) working directory is the git directory. */
  readonly bare: boolean;
}

interface Globals extends GitLocation {
  readonly sub?: string;
  readonly rest: readonly string[];
}

/** Splits argv into the subcommand and its arguments, judging the global options on the way. */
function judgeGlobals(args: readonly string[]): Verdict | Globals {
  let i = 0;
  const chdirs: string[] = [];
  let gitDir: string | undefined;
  let workTree: string | undefined;
  let bare = false;
  for (; i < args.length; i++) {
    const tok = args[i]!;
    if (!tok.startsWith('-')) break;
    if (tok.startsWith('-c')) {
      return argDenied('git.config-override', `git ${tok} is not allowed: every global -c override is denied (any key can name a program, e.g. alias.x=!cmd or core.pager).`);
    }
    if (tok.startsWith('--config-env')) {
      return argDenied('git.config-override', `git ${tok} is not allowed: it sets configuration from the environment, like -c.`);
    }
    if (tok.startsWith('--exec-path')) {
      return argDenied('git.exec-path', `git ${tok} is not allowed: it chooses the directory git runs its subcommands from.`);
    }
    const eq = tok.indexOf('=');
    const name = eq >= 0 ? tok.slice(0, eq) : tok;
    if (GLOBAL_WITH_VALUE.has(name)) {
      // The value is data, whatever it looks like; -C takes no `=` form (git -C=x changes into "=x"? no: it is
      // an unknown option there), so only the long options split at `=`.
      let value: string | undefined;
      if (eq >= 0 && name !== '-C') value = tok.slice(eq + 1);
      else if (eq < 0) value = args[++i];
      else return argDenied('git.unknown-global-option', `git global option ${tok} is not known to this rule, so it is denied.`);
      if (value !== undefined) {
        if (name === '-C') chdirs.push(value);
        else if (name === '--git-dir') gitDir = value;
        else if (name === '--work-tree') workTree = value;
      }
      continue;
    }
    if (name === '--list-cmds' && eq >= 0) continue;
    if (tok === '--bare') bare = true;
    if (GLOBAL_FLAGS.has(tok)) continue;
    return argDenied('git.unknown-global-option', `git global option ${tok} is not known to this rule, so it is denied.`);
  }
  const loc = { chdirs, bare, ...(gitDir !== undefined && { gitDir }), ...(workTree !== undefined && { workTree }) };
  return i < args.length ? { ...loc, sub: args[i]!, rest: args.slice(i + 1) } : { ...loc, rest: [] };
}

/** The repository location a git argv names (undefined when the argv is not even well-formed globals). */
export function gitLocation(args: readonly string[]): (GitLocation & { readonly sub?: string; readonly rest: readonly string[] }) | undefined {
  const g = judgeGlobals(args);
  return 'kind' in g ? undefined : g;
}

const GREP: Grammar = {
  permute: false,
  numericShort: true,
  terminators: ['--', '--end-of-options'],
  optionLikeOperands: ['(', ')'],
  short: shortTable('viwaIrEGFPnhHlLzocpWqC:B:A:f:e:m:O::'),
  long: longTable(`
    cached:n no-index:n index:n untracked:n exclude-standard:n recurse-submodules:n invert-match:n ignore-case:n
    word-regexp:n text:n textconv:n recursive:n max-depth:r extended-regexp:n basic-regexp:n fixed-strings:n
    perl-regexp:n line-number:n column:n full-name:n files-with-matches:n name-only:n files-without-match:n
    null:n only-matching:n count:n color:o break:n heading:n context:r before-context:r after-context:r
    threads:r show-function:n function-context:n and:n or:n not:n quiet:n all-match:n open-files-in-pager:o
    ext-grep:n max-count:r
  `),
};

const REBASE: Grammar = {
  permute: true,
  terminators: ['--', '--end-of-options'],
  short: shortTable('qvnC:fmiS::x:r::s:X:k'),
  long: longTable(`
    onto:r keep-base:n no-verify:n verify:n quiet:n verbose:n no-stat:n stat:n signoff:n
    committer-date-is-author-date:n reset-author-date:n ignore-date:n ignore-whitespace:n whitespace:r
    force-rebase:n no-ff:n ff:n continue:n skip:n abort:n quit:n edit-todo:n show-current-patch:n apply:n merge:n
    interactive:n rerere-autoupdate:n empty:r autosquash:n update-refs:n gpg-sign:o autostash:n exec:r
    rebase-merges:o fork-point:n strategy:r strategy-option:r root:n reschedule-failed-exec:n
    reapply-cherry-picks:n keep-empty:n allow-empty-message:n trailer:r no-keep-empty:n
  `),
};

/** A parse-options subcommand: deny a target long option (any prefix) or short letter; unknown letters too. */
function judgeParseOptions(sub: string, rest: readonly string[], g: Grammar, targetLong: string, targetShort: string, rule: string, why: string): Verdict | undefined {
  for (const ev of scanOptions(rest, g)) {
    if (ev.kind === 'short') {
      if (ev.letter === targetShort) return argDenied(rule, `git ${sub} -${targetShort} is not allowed: it ${why}.`);
      if (!ev.known) return argDenied('git.unknown-option', `git ${sub} option -${ev.letter} is not known to this rule, so it is denied.`);
    } else if (ev.kind === 'long') {
      if (ev.typed !== '' && targetLong.startsWith(ev.typed)) {
        const spelled = ev.typed === targetLong ? `--${targetLong}` : `--${ev.typed} (which could mean --${targetLong})`;
        return argDenied(rule, `git ${sub} ${spelled} is not allowed: it ${why}.`);
      }
    }
  }
  return undefined;
}

/** `git config` forms that only read. Anything else (set, unset, rename, edit, --add …) is a write. */
const CONFIG_READ_ACTIONS = new Set(['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list']);
const CONFIG_VALUE_OPTIONS = new Set(['-f', '--file', '--blob', '--type', '--default', '--comment', '--value']);
const CONFIG_FLAGS = new Set([
  '--global', '--system', '--local', '--worktree', '--bool', '--int', '--bool-or-int', '--path', '--expiry-date',
  '-z', '--null', '--name-only', '--show-origin', '--show-scope', '--includes', '--no-includes', '--fixed-value',
  '--all', '--regexp', '--url',
]);

function judgeConfig(rest: readonly string[]): Verdict | undefined {
  const denied = argDenied('git.config-write', `git config ${rest.join(' ')} is not allowed: only reading configuration (--get, --list, "git config get/list", "git config NAME") is allowed; persistent writes can make git run programs later.`);
  if (rest[0] === 'get' || rest[0] === 'list') {
    return rest.slice(1).some((t) => t === '-e' || t.startsWith('--edit')) ? denied : undefined;
  }
  let readAction = false;
  const operands: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const tok = rest[i]!;
    const eq = tok.indexOf('=');
    const name = tok.startsWith('--') && eq >= 0 ? tok.slice(0, eq) : tok;
    if (CONFIG_READ_ACTIONS.has(name)) readAction = true;
    else if (CONFIG_VALUE_OPTIONS.has(name)) {
      if (eq < 0 || !tok.startsWith('--')) i++;
    } else if (name.startsWith('--type=') || CONFIG_FLAGS.has(name)) continue;
    else if (tok.startsWith('-')) return denied; // --add, --unset, --replace-all, -e, abbreviations …
    else operands.push(tok);
  }
  // Git 2.46+ subcommand words (`git config set/unset/edit …`) write even with one operand.
  if (['set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(operands[0] ?? '')) return denied;
  if (readAction) return operands.length <= 2 ? undefined : denied;
  return operands.length <= 1 ? undefined : denied;
}

const TOOL_SUBCOMMANDS: Readonly<Record<string, string>> = {
  'filter-branch': 'runs shell snippets given on its command line',
  difftool: 'starts diff tools, including a command given with --extcmd',
  mergetool: 'starts merge tools',
  instaweb: 'starts a web server and a browser',
  'web--browse': 'starts a browser',
  shell: 'is the restricted login shell, which runs the commands it is given',
  daemon: 'starts a server that runs upload-pack/receive-pack and their hooks for anyone who connects',
  'http-backend': 'is a CGI program that runs pack programs and hooks',
  cvsserver: 'is a CVS server emulator that runs commands for its client',
  'receive-pack': 'runs the hooks of the repository it is given',
  'upload-pack': 'is the server side of fetch, driven by its peer (and may run a pack-objects hook)',
  'upload-archive': 'is the server side of archive --remote, driven by its peer',
  svn: 'bridges to Subversion and starts its programs',
  p4: 'bridges to Perforce and starts its programs',
  cvsimport: 'starts cvs and cvsps',
  cvsexportcommit: 'starts cvs',
  archimport: 'starts tla/baz',
  'credential-cache--daemon': 'is a daemon that serves credentials',
};

/** Checks that apply to every subcommand's arguments (any position: their grammars are not modelled). */
function judgeEverywhere(sub: string, rest: readonly string[]): Verdict | undefined {
  for (const tok of rest) {
    if (/ext::/i.test(tok)) return argDenied('git.ext-url', `git argument "${tok}" is not allowed: ext:: URLs make git run a command as a remote helper.`);
    if (!tok.startsWith('--') || tok.length < 3) continue;
    const eq = tok.indexOf('=');
    const typed = eq >= 0 ? tok.slice(2, eq) : tok.slice(2);
    if ('exec'.startsWith(typed)) {
      return argDenied('git.exec-option', `git ${sub} ${tok} is not allowed: --exec (and its prefixes) selects a program to run on the remote side (e.g. git push --exec=PROG).`);
    }
    for (const helper of ['upload-pack', 'receive-pack']) {
      if (helper.startsWith(typed)) {
        return argDenied('git.exec-option', `git ${sub} ${tok} is not allowed: --${helper} (and its prefixes) names a program to run.`);
      }
    }
    for (const writer of ['output', 'output-directory']) {
      if (typed !== '' && writer.startsWith(typed)) {
        return argDenied('git.output-file', `git ${sub} ${tok} is not allowed: --${writer} (and its prefixes) writes to a path of its choosing.`);
      }
    }
    if (typed === 'help' || (typed.length >= 3 && 'help'.startsWith(typed))) {
      return argDenied('git.help-viewer', `git ${sub} ${tok} is not allowed: it runs "git help", which starts man, info or a browser (each configurable to any program). Use "git ${sub} -h" for the option summary.`);
    }
  }
  return undefined;
}

const CLONE: Grammar = {
  permute: true,
  terminators: ['--', '--end-of-options'],
  short: shortTable('vqnlsj:o:b:u:c:46'),
  long: longTable(`
    verbose:n quiet:n progress:n reject-shallow:n no-checkout:n checkout:n bare:n mirror:n local:n no-hardlinks:n
    hardlinks:n shared:n recurse-submodules:o recursive:o jobs:r template:r reference:r reference-if-able:r
    dissociate:n origin:r branch:r revision:r upload-pack:r depth:r shallow-since:r shallow-exclude:r
    single-branch:n no-tags:n tags:n shallow-submodules:n separate-git-dir:r ref-format:r config:r
    server-option:r ipv4:n ipv6:n filter:r also-filter-submodules:n remote-submodules:n sparse:n bundle-uri:r
  `),
};

const INIT: Grammar = {
  permute: true,
  terminators: ['--', '--end-of-options'],
  short: shortTable('qb:'),
  long: longTable('quiet:n bare:n template:r separate-git-dir:r object-format:r ref-format:r initial-branch:r shared:o'),
};

/**
 * clone and init: options that plant configuration or hooks (--template copies a directory of hooks and
 * config into the new repository; clone -c/--config writes config) or put the git directory somewhere else
 * (--separate-git-dir: a git directory outside the workspace's own .git, whose config the agent controls).
 */
function judgeCreate(sub: 'clone' | 'init', rest: readonly string[]): Verdict | undefined {
  const g = sub === 'clone' ? CLONE : INIT;
  for (const ev of scanOptions(rest, g)) {
    if (sub === 'clone' && ev.kind === 'short' && (ev.letter === 'u' || ev.letter === 'c')) {
      return ev.letter === 'u'
        ? argDenied('git.exec-option', 'git clone -u (--upload-pack) is not allowed: it names a program to run.')
        : argDenied('git.config-override', 'git clone -c (--config) is not allowed: it writes configuration into the new repository, which can name programs.');
    }
    if (ev.kind !== 'long') continue;
    if (sub === 'clone' && couldMean(ev.typed, 'config', g.long)) return argDenied('git.config-override', `git clone --${ev.typed} is not allowed: --config writes configuration into the new repository, which can name programs.`);
    if (couldMean(ev.typed, 'template', g.long)) return argDenied('git.clone-template', `git ${sub} --${ev.typed} is not allowed: --template copies hooks and configuration into the new repository.`);
    if (couldMean(ev.typed, 'separate-git-dir', g.long)) return argDenied('git.separate-git-dir', `git ${sub} --${ev.typed} is not allowed: --separate-git-dir puts the git directory (and its configuration) outside the workspace's own .git.`);
  }
  return undefined;
}

/**
 * archive -o FILE and format-patch -o DIR write where they are told. Their short options are scanned as
 * clusters without modelling values (`-vo x.tar`, `-ko dir`, `-ofile`): an `o` anywhere in a single-dash word
 * is denied (a false denial at worst, e.g. a -S pickaxe value containing "o").
 */
function judgeShortOutput(sub: string, rest: readonly string[]): Verdict | undefined {
  for (const tok of rest) {
    if (tok === '--' || tok === '--end-of-options') break;
    if (tok.startsWith('-') && !tok.startsWith('--') && tok.includes('o')) {
      return argDenied('git.output-file', `git ${sub} ${tok} is not allowed: -o writes to a path of its choosing.`);
    }
  }
  return undefined;
}

/** Subcommands that take a repository URL on their command line (where `helper::address` picks a remote helper). */
const URL_SUBCOMMANDS = new Set([
  'clone', 'fetch', 'pull', 'push', 'ls-remote', 'remote', 'submodule', 'archive', 'fetch-pack', 'send-pack',
  'request-pull', 'bundle', 'subtree',
]);

/** `git help` forms that only print lists (no man, info or browser). */
const HELP_LIST_FLAGS = new Set(['-a', '--all', '-g', '--guides', '-c', '--config', '--no-verbose', '--verbose', '--no-external-commands', '--no-aliases', '--user-interfaces', '--developer-interfaces']);

export const gitRule: FamilyRule = (args) => {
  const g = judgeGlobals(args);
  if ('kind' in g) return g;
  // ext:: anywhere, including global values (e.g. --git-dir=ext::…), is never needed.
  for (const tok of args) {
    if (/ext::/i.test(tok)) return argDenied('git.ext-url', `git argument "${tok}" is not allowed: ext:: URLs make git run a command as a remote helper.`);
  }
  const { sub, rest } = g;
  if (sub === undefined) return allow('git.ok');
  if (sub.startsWith('remote-')) {
    return argDenied('git.remote-helper', `git ${sub} is not allowed: it is a remote helper run directly (git remote-ext runs its argument as a command; others speak to whatever their URL names).`);
  }
  const tool = Object.prototype.hasOwnProperty.call(TOOL_SUBCOMMANDS, sub) ? TOOL_SUBCOMMANDS[sub] : undefined;
  if (tool) return argDenied(`git.${sub === 'filter-branch' ? 'filter-branch' : 'tool-subcommand'}`, `git ${sub} is not allowed: it ${tool}.`);
  // `git SUB --help` (as its first argument, which git turns into `git help SUB`), `git --help SUB`, `git help SUB`.
  if (args.slice(0, args.length - rest.length - 1).includes('--help') || sub === 'help' || rest[0] === '--help') {
    if (sub !== 'help' || !rest.every((t) => HELP_LIST_FLAGS.has(t))) {
      return argDenied('git.help-viewer', 'git help (and git --help CMD) is not allowed: it starts man, info or a browser, each configurable to any program. Use "git CMD -h" for the option summary.');
    }
  }
  if (URL_SUBCOMMANDS.has(sub)) {
    for (const tok of rest) {
      const m = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(tok.replace(/^--?[A-Za-z-]+=/, ''));
      if (m) return argDenied('git.remote-helper', `git ${sub} argument "${tok}" is not allowed: "${m[1]}::" makes git start the remote helper git-remote-${m[1]} (ext:: and fd:: run commands or use descriptors). Use an ordinary URL or path.`);
    }
  }
  let verdict: Verdict | undefined;
  switch (sub) {
    case 'bisect':
      if (rest[0] === 'run') verdict = argDenied('git.bisect-run', 'git bisect run is not allowed: it runs a command for each step.');
      break;
    case 'maintenance':
      if (['start', 'register', 'stop', 'unregister'].includes(rest[0] ?? '')) verdict = argDenied('git.maintenance-scheduler', `git maintenance ${rest[0]} is not allowed: it installs or removes scheduled jobs (cron, systemd timers, launchd) that run git later.`);
      break;
    case 'submodule':
      if (rest.some((t) => t === 'foreach')) verdict = argDenied('git.submodule-foreach', 'git submodule foreach is not allowed: it runs a shell command in each submodule.');
      break;
    case 'config':
      verdict = judgeConfig(rest);
      break;
    case 'grep':
      verdict = judgeParseOptions('grep', rest, GREP, 'open-files-in-pager', 'O', 'git.grep-pager', 'opens the matching files in a program of its choosing');
      break;
    case 'rebase':
      verdict = judgeParseOptions('rebase', rest, REBASE, 'exec', 'x', 'git.rebase-exec', 'runs a shell command after each commit');
      break;
    case 'send-email':
      verdict = judgeSendEmail(rest);
      if (verdict.kind === 'allow') verdict = undefined;
      break;
    case 'clone':
    case 'init':
      verdict = judgeCreate(sub, rest);
      break;
    case 'archive':
    case 'format-patch':
      verdict = judgeShortOutput(sub, rest);
      break;
  }
  if (verdict) return verdict;
  if (sub !== 'grep' && sub !== 'rebase' && sub !== 'send-email') {
    const everywhere = judgeEverywhere(sub, rest);
    if (everywhere) return everywhere;
  }
  return allow('git.ok');
};
