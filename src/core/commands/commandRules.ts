import { commandKey, type ParsedCommand } from './parse';

/**
 * Command rules a person saved ("Always allow", `autoApprove`): an exact command line, or an argv prefix that ends
 * in a lone `*` (`npm test *`, `git log *`). A rule both admits the command (it need not be on the allowlist) and
 * pre-approves it (no card in the modes that would ask). The argument rules, the sandbox and every deny still
 * apply: a rule only answers the questions "is it listed?" and "should a person be asked?".
 *
 * Rules are written the way command lines are keyed (parse.ts commandKey): words separated by spaces, a word with
 * spaces or special characters in single quotes (`'two words'`, `'it'\''s'`) or double quotes. Matching is on the
 * argv words, never on a string prefix, so `npm test *` does not match `npm testx` and a quoted `*` is a literal
 * argument.
 */

export interface CommandRule {
  /** The rule as the person wrote it. */
  readonly text: string;
  /** The words before a trailing `*` (all of them for an exact rule). */
  readonly words: readonly string[];
  /** True when the rule ended in a lone `*`: any further arguments (also none). */
  readonly prefix: boolean;
}

export type RuleParse = { readonly rule: CommandRule } | { readonly error: string };

const OPERATOR_WORDS = new Set(['|', '<', '>', '>>']);

/** Splits a rule into words (quotes removed) and marks which were a bare, unquoted `*`. */
function tokenize(text: string): { words: string[]; bare: boolean[] } | { error: string } {
  const words: string[] = [];
  const bare: boolean[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    let word = '';
    let quoted = false;
    while (i < text.length && !/\s/.test(text[i]!)) {
      const c = text[i]!;
      if (c === "'") {
        const end = text.indexOf("'", i + 1);
        if (end < 0) return { error: `a single quote at position ${i + 1} is not closed` };
        word += text.slice(i + 1, end);
        quoted = true;
        i = end + 1;
      } else if (c === '"') {
        let j = i + 1;
        let closed = false;
        while (j < text.length) {
          const d = text[j]!;
          if (d === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) {
            word += text[j + 1];
            j += 2;
          } else if (d === '"') {
            closed = true;
            break;
          } else {
            word += d;
            j++;
          }
        }
        if (!closed) return { error: `a double quote at position ${i + 1} is not closed` };
        quoted = true;
        i = j + 1;
      } else if (c === '\\' && i + 1 < text.length) {
        // Outside quotes a backslash keeps the next character (`'it'\''s'`, as command keys write a quote).
        word += text[i + 1];
        quoted = true;
        i += 2;
      } else {
        word += c;
        i++;
      }
    }
    words.push(word);
    bare.push(!quoted && word === '*');
  }
  return { words, bare };
}

export function parseRule(text: string): RuleParse {
  if (typeof text !== 'string' || text.trim() === '') return { error: 'the rule is empty' };
  if (text.includes('\0') || /[\r\n]/.test(text)) return { error: 'the rule contains a line break or NUL byte' };
  const t = tokenize(text);
  if ('error' in t) return t;
  const { words, bare } = t;
  const star = bare.indexOf(true);
  if (star >= 0 && star !== words.length - 1) return { error: 'a "*" may only stand at the end, for "any further arguments" (quote it to mean a literal *)' };
  const prefix = star >= 0;
  const fixed = prefix ? words.slice(0, -1) : words;
  if (fixed.length === 0) return { error: 'the rule names no program ("*" alone would allow every command)' };
  if (fixed[0]!.trim() === '') return { error: 'the rule starts with an empty program name' };
  if (prefix && fixed.some((w) => OPERATOR_WORDS.has(w))) {
    return { error: 'a rule with "*" covers one command: it cannot contain "|", "<", ">" or ">>" (an exact rule can)' };
  }
  return { rule: { text, words: fixed, prefix } };
}

/** The rule's words as a command-line key (for exact rules: the key it matches). */
export function ruleKey(rule: CommandRule): string {
  return commandKey(rule.words) + (rule.prefix ? ' *' : '');
}

function matchesStage(rule: CommandRule, stage: readonly string[]): boolean {
  if (rule.prefix ? stage.length < rule.words.length : stage.length !== rule.words.length) return false;
  return rule.words.every((w, i) => stage[i] === w);
}

/** Parsed rules, invalid ones dropped (the policy schema refuses them; a stale entry must never match). */
export function parseRules(texts: readonly string[]): CommandRule[] {
  const out: CommandRule[] = [];
  for (const t of texts) {
    const r = parseRule(t);
    if ('rule' in r) out.push(r.rule);
  }
  return out;
}

const parsedCache = new WeakMap<readonly string[], CommandRule[]>();
function rulesOf(texts: readonly string[]): CommandRule[] {
  let r = parsedCache.get(texts);
  if (!r) parsedCache.set(texts, (r = parseRules(texts)));
  return r;
}

/**
 * Which of a request's stages the rules cover. The whole request is covered by an exact rule equal to its key
 * (redirects included, as written); a prefix rule covers one stage and never an output redirect (the file a
 * command writes is decided per call).
 */
export interface RuleCoverage {
  /** Every stage covered and, with an output redirect, the whole line exactly. */
  readonly all: boolean;
  readonly stages: readonly boolean[];
}

export function ruleCoverage(texts: readonly string[], parsed: ParsedCommand, key: string, extraExact?: (key: string) => boolean): RuleCoverage {
  const rules = rulesOf(texts);
  const exact = texts.includes(key) || rules.some((r) => !r.prefix && ruleKey(r) === key) || (extraExact?.(key) ?? false);
  if (exact) return { all: true, stages: parsed.stages.map(() => true) };
  const stages = parsed.stages.map((s) => rules.some((r) => matchesStage(r, s)));
  return { all: !parsed.stdoutFile && stages.every(Boolean), stages };
}

/** True when the rule covers the whole request (an "Always allow" must cover what the person approved). */
export function ruleCoversRequest(rule: CommandRule, parsed: ParsedCommand, key: string): boolean {
  if (!rule.prefix && ruleKey(rule) === key) return true;
  return !parsed.stdoutFile && parsed.stages.every((s) => matchesStage(rule, s));
}

const WORD = /^[A-Za-z][A-Za-z0-9_.:+-]*$/;
const MODULE_FLAG = new Set(['-m']);

/**
 * What "Always allow" offers for a request, most specific first: the exact line, then (for one command) its
 * program with up to two subcommand words and a `*` (`git log *`, `npm run test *`, `python3 -m pytest *`).
 */
export function suggestRules(parsed: ParsedCommand, key: string): string[] {
  const out = [key];
  if (parsed.stages.length !== 1 || parsed.stdoutFile) return out;
  const stage = parsed.stages[0]!;
  const words = [stage[0]!];
  for (let i = 1; i < stage.length && words.length < 3; i++) {
    const a = stage[i]!;
    if (WORD.test(a)) words.push(a);
    else if (MODULE_FLAG.has(a) && i + 1 < stage.length && WORD.test(stage[i + 1]!)) {
      words.push(a, stage[i + 1]!);
      i++;
    } else break;
  }
  const prefixRule = `${commandKey(words)} *`;
  if (!out.includes(prefixRule)) out.push(prefixRule);
  return out;
}
