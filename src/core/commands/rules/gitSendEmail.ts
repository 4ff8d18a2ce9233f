import { allow, deny, type Verdict } from '../../verdict';

/**
 * `git send-email` program selectors, judged by a finite model of how git-send-email.perl (Git 2.53) reads
 * its argv with Perl's Getopt::Long (configured `pass_through`, default `ignore_case` and `auto_abbrev`):
 * three passes over the remaining argv — identity options, then help/alias listing, then the main options —
 * each removing what it recognises and passing the rest on. Getopt::Long has two modes and the rule judges
 * BOTH, denying when either reaches a selector:
 *  - default (permute): prefixes `--`, `-` and `+`, `=` values for every prefix, options after operands;
 *  - POSIXLY_CORRECT (require_order): prefixes `--` and `-`, `=` values only after `--`, stop at the first
 *    operand or unrecognised option.
 *
 * Denied: `--sendmail-cmd`, `--to-cmd`, `--cc-cmd`, `--header-cmd` whenever selected (case-insensitive, any
 * prefix, unique abbreviations such as `--sendm`, also with an empty or missing value, also with --dry-run);
 * `--smtp-server` whose value is missing, empty, or a path (`/…`, `\…`, `C:…`), because send-email RUNS an
 * absolute smtp-server as a sendmail program; and ambiguous abbreviations that include a selector (`--send`,
 * `--cc-c`, `--to-c`, `--smtp-serv`). Values consumed by value-taking options are data
 * (`--subject --sendmail-cmd=DATA`), and so are arguments after an unconsumed `--`.
 */

type OptType = 'flag' | 'string' | 'optional-string' | 'int' | 'optional-int';
const TYPES: Record<string, OptType> = { '': 'flag', '!': 'flag', '=s': 'string', ':s': 'optional-string', '=i': 'int', ':i': 'optional-int' };

// Each pass's options in Getopt::Long's own spec syntax, as git-send-email.perl (Git 2.53) writes them:
// `a|b` aliases, `=s` string, `:s` optional string, `=i`/`:i` (optional) integer, `!` negatable flag.
const IDENTITY_PASS = optionTable('identity=s no-identity');
const ALIASES_PASS = optionTable('h dump-aliases translate-aliases');
const MAIN_PASS = optionTable(`sender|from=s in-reply-to=s reply-to=s subject=s to=s to-cmd=s no-to cc=s no-cc bcc=s no-bcc
  chain-reply-to! sendmail-cmd=s smtp-server=s smtp-server-option=s smtp-server-port=s smtp-user=s smtp-pass:s smtp-ssl
  smtp-encryption=s smtp-ssl-cert-path=s smtp-debug:i smtp-domain:s smtp-auth=s no-smtp-auth annotate! compose quiet
  cc-cmd=s header-cmd=s no-header-cmd suppress-from! suppress-cc=s signed-off-cc|signed-off-by-cc! cc-cover! to-cover!
  confirm=s dry-run envelope-sender=s thread! validate! transfer-encoding=s mailmap! use-mailmap! format-patch!
  8bit-encoding=s compose-encoding=s force xmailer! batch-size=i relogin-delay=i git-completion-helper v=s outlook-id-fix!`);

/** Selectors: options whose value is a program send-email runs. */
export const SEND_EMAIL_SELECTORS = ['sendmail-cmd', 'to-cmd', 'cc-cmd', 'header-cmd'] as const;

interface Entry {
  readonly canonical: string;
  readonly type: OptType;
  readonly negated: boolean;
}

/** Getopt::Long's option table: every name and alias, plus `noX`/`no-X` for negatable flags, lower case. */
function optionTable(specs: string): Map<string, Entry> {
  const m = new Map<string, Entry>();
  for (const spec of specs.split(/\s+/).filter(Boolean)) {
    const [, names, kind] = /^([^=:!]+)(.*)$/.exec(spec)!;
    const aliases = names!.split('|');
    const canonical = aliases[0]!;
    for (const n of aliases) {
      m.set(n, { canonical, type: TYPES[kind!]!, negated: false });
      if (kind === '!') for (const no of [`no${n}`, `no-${n}`]) m.set(no, { canonical, type: 'flag', negated: true });
    }
  }
  return m;
}

interface Mode {
  readonly name: 'permute' | 'require_order';
  readonly prefix: RegExp;
  /** getopt_compat: `=` splits a value off after every prefix, not only after `--`. */
  readonly equalsForAllPrefixes: boolean;
}
const PERMUTE: Mode = { name: 'permute', prefix: /^(--|-|\+)([\s\S]*)$/, equalsForAllPrefixes: true };
const REQUIRE_ORDER: Mode = { name: 'require_order', prefix: /^(--|-)([\s\S]*)$/, equalsForAllPrefixes: false };

/** What one pass saw that matters to the rule. */
interface Seen {
  /** Options selected (recognised, or named with an empty/missing value), with their value if any. */
  readonly selected: { canonical: string; value?: string; token: string }[];
  /** Typed names that were ambiguous, with every option they could mean. */
  readonly ambiguous: { typed: string; hits: string[] }[];
}

const INT = /^[-+]?_*[0-9][0-9_]*$/;

/**
 * One GetOptions call in pass_through mode. Returns the argv left for the next pass (unrecognised tokens and
 * operands, in order, with an unconsumed `--` kept) and what it saw.
 */
function getOptionsPass(argv: readonly string[], opts: ReadonlyMap<string, Entry>, mode: Mode, seen: Seen): string[] {
  const names = [...opts.keys()].sort();
  const rest = [...argv];
  const kept: string[] = [];
  while (rest.length > 0) {
    const tok = rest.shift()!;
    if (tok === '--') {
      kept.push(tok);
      break;
    }
    const m = mode.prefix.exec(tok);
    if (!m || tok === '-') {
      if (mode.name === 'permute') {
        kept.push(tok);
        continue;
      }
      rest.unshift(tok);
      break;
    }
    const starter = m[1]!;
    let name = m[2]!;
    let value: string | undefined;
    if (starter === '--' || mode.equalsForAllPrefixes) {
      const eq = name.indexOf('=', 1);
      if (eq > 0) {
        value = name.slice(eq + 1);
        name = name.slice(0, eq);
      }
    }
    const typed = name.toLowerCase();
    let entry = opts.get(typed);
    if (!entry && typed !== '') {
      const hits = names.filter((n) => n.startsWith(typed));
      const distinct = new Set(hits.map((h) => (opts.get(h)!.negated ? 'no' : '') + opts.get(h)!.canonical));
      if (distinct.size === 1) entry = opts.get(hits[0]!);
      else if (distinct.size > 1) seen.ambiguous.push({ typed, hits: hits.map((h) => opts.get(h)!.canonical) });
    }
    const recognised = entry ? consume(entry, value, rest, mode, seen, tok) : false;
    if (!recognised) {
      if (mode.name === 'permute') {
        kept.push(tok);
        continue;
      }
      rest.unshift(tok);
      break;
    }
  }
  return [...kept, ...rest];
}

/** Applies one recognised option; returns false when Getopt::Long (pass_through) would pass the token on. */
function consume(entry: Entry, value: string | undefined, rest: string[], mode: Mode, seen: Seen, token: string): boolean {
  const note = (v?: string) => seen.selected.push(v === undefined ? { canonical: entry.canonical, token } : { canonical: entry.canonical, value: v, token });
  switch (entry.type) {
    case 'flag':
      if (value !== undefined) return false; // `--dry-run=x`: passed through
      note();
      return true;
    case 'string':
      if (value === '' || (value === undefined && rest.length === 0)) {
        note(value ?? undefined); // empty or missing: not consumed, but the selector was named
        return false;
      }
      note(value ?? rest.shift()!); // a mandatory string takes anything, even `--`
      return true;
    case 'optional-string':
      if (value !== undefined) return note(value), true;
      if (rest.length > 0 && rest[0] !== '--' && !mode.prefix.test(rest[0]!.length > 1 ? rest[0]! : '')) {
        note(rest.shift()!);
        return true;
      }
      note('');
      return true;
    case 'int': {
      const v = value ?? rest[0];
      if (v === undefined || !INT.test(v)) return false;
      if (value === undefined) rest.shift();
      note(v);
      return true;
    }
    case 'optional-int': {
      if (value !== undefined) {
        if (!INT.test(value)) return false;
        note(value);
        return true;
      }
      if (rest.length > 0 && INT.test(rest[0]!)) note(rest.shift()!);
      else note('0');
      return true;
    }
  }
}

/** `--smtp-server` values that send-email would run as a program (or that leave the choice to config). */
function isProgramLikeSmtpServer(value: string | undefined): boolean {
  if (value === undefined || value === '') return true;
  return value.startsWith('/') || value.startsWith('\\') || /^[A-Za-z]:/.test(value);
}

export function judgeSendEmail(args: readonly string[]): Verdict {
  for (const mode of [PERMUTE, REQUIRE_ORDER]) {
    const seen: Seen = { selected: [], ambiguous: [] };
    let argv = getOptionsPass(args, IDENTITY_PASS, mode, seen);
    argv = getOptionsPass(argv, ALIASES_PASS, mode, seen);
    getOptionsPass(argv, MAIN_PASS, mode, seen);
    for (const s of seen.selected) {
      if ((SEND_EMAIL_SELECTORS as readonly string[]).includes(s.canonical)) {
        return deny('ARGUMENT_FORBIDDEN', 'git.send-email-selector', `git send-email ${s.token} is not allowed: --${s.canonical} names a program that send-email runs (read in Getopt::Long ${mode.name} mode).`);
      }
      if (s.canonical === 'smtp-server' && isProgramLikeSmtpServer(s.value)) {
        return deny('ARGUMENT_FORBIDDEN', 'git.send-email-smtp-program', `git send-email ${s.token} is not allowed: an smtp-server that is missing, empty or a path (/…, \\…, C:…) makes send-email run a program. Give a host name.`);
      }
    }
    for (const a of seen.ambiguous) {
      const bad = a.hits.find((h) => (SEND_EMAIL_SELECTORS as readonly string[]).includes(h) || h === 'smtp-server');
      if (bad) {
        return deny('ARGUMENT_FORBIDDEN', 'git.send-email-selector', `git send-email option "${a.typed}" is not allowed: it is an ambiguous abbreviation that includes --${bad}.`);
      }
    }
  }
  return allow('git.ok');
}
