/**
 * Reads an awk program text far enough to find the constructs that leave awk: `system(…)`, pipes (`cmd |
 * getline`, `print | "cmd"`, gawk's `|&` coprocesses), output redirections inside print/printf (`print >
 * "file"`, `>>`), gawk's `@` syntax (`@include`, `@load`, `@nsinclude`, and indirect calls `@f(…)` that can
 * reach `system` by name) and gawk's network special files (`/inet/tcp/…`).
 *
 * The lexer knows strings, regex literals, comments and line continuations, so `$3 > 100`, `a || b`,
 * `/a|b/` and `"x > y"` stay allowed. Where awk's own grammar decides between regex and division, the lexer
 * guesses "division" whenever in doubt, which makes it scan MORE text as code (possibly a false denial, never
 * a missed pipe). Text it cannot read (an unterminated string or regex) is denied.
 */

export interface AwkHazard {
  readonly what: 'system' | 'pipe' | 'redirect' | 'gawk-directive' | 'network' | 'unparsable';
  readonly reason: string;
}

/**
 * Where a `/` starts a regex literal differs between awks; each dialect below is what the real program was
 * seen to do (test/unit/rules/bypassClasses.real.test.ts runs them). After these words a `/` starts a regex in
 * every awk: print, printf, return, exit, else, do, in. Then:
 *  - gawk (own mode): `case` too (`case /re/:`);
 *  - gawk --posix/--traditional and BWK awk: `case` is a variable, so `case / 1 …` is a division;
 *  - mawk (Debian's default awk): `length` without parentheses and a postfix `++`/`--` are followed by a regex;
 *  - gawk and BWK awk read a regex after the `)` that closes an if/while/for condition (`if (x) /re/`); mawk
 *    reads a division there;
 *  - BWK awk ends a regex at a `/` inside `[...]`; gawk and current mawk do not (older mawk may).
 * The program is denied when ANY dialect's reading finds a hazard, so where dialects disagree the stricter
 * reading wins. A last, synthetic dialect takes every "regex here" choice at once for awks not modelled
 * (busybox awk, goawk).
 */
const COMMON_KEYWORDS = ['print', 'printf', 'return', 'exit', 'else', 'do', 'in'];

interface Dialect {
  readonly name: string;
  /** A `/` inside `[...]` does not end a regex literal. */
  readonly bracketAware: boolean;
  /** Words after which a `/` starts a regex. */
  readonly keywords: ReadonlySet<string>;
  /** A postfix `++`/`--` is followed by a regex (mawk), not a division. */
  readonly regexAfterIncDec: boolean;
  /** The `)` closing an if/while/for condition starts a statement, so a `/` after it starts a regex (gawk, BWK). */
  readonly regexAfterControlParen: boolean;
}
const dialect = (name: string, bracketAware: boolean, extra: readonly string[], regexAfterIncDec: boolean, regexAfterControlParen: boolean): Dialect => ({
  name, bracketAware, keywords: new Set([...COMMON_KEYWORDS, ...extra]), regexAfterIncDec, regexAfterControlParen,
});
const DIALECTS: readonly Dialect[] = [
  dialect('gawk', true, ['case'], false, true),
  dialect('gawk --posix', true, [], false, true),
  dialect('mawk', true, ['length'], true, false),
  dialect('mawk (old)', false, ['length'], true, false),
  dialect('BWK awk', false, [], false, true),
  dialect('any other awk', false, ['case', 'length', 'getline'], true, true),
];
const CONTROL_WORDS = new Set(['if', 'while', 'for']);

export function findAwkHazard(src: string): AwkHazard | undefined {
  let unparsable: AwkHazard | undefined;
  for (const d of DIALECTS) {
    const h = lexForHazard(src, d);
    // A real hazard in one reading is the better explanation than text another reading could not lex.
    if (h && h.what !== 'unparsable') return h;
    unparsable ??= h;
  }
  return unparsable;
}

function lexForHazard(src: string, d: Dialect): AwkHazard | undefined {
  const { bracketAware, keywords } = d;
  // Belt and braces on the raw text: these spellings are denied wherever they appear, even inside strings.
  if (/system(\s|\\\r?\n)*\(/.test(src)) return { what: 'system', reason: 'the program calls system(), which runs a shell command' };
  if (/@\s*(include|load|nsinclude)\b/.test(src)) return { what: 'gawk-directive', reason: 'the program loads code or extensions with a gawk @include/@load/@nsinclude directive' };
  if (/\/inet[46]?\//.test(src)) return { what: 'network', reason: 'the program opens a gawk network special file (/inet/…)' };

  let prevIsOperand = false; // true after an operand: a `/` is division there
  let parenDepth = 0;
  let printBase: number | undefined; // paren depth at which the current print/printf statement started
  let getlineBase: number | undefined; // paren depth at which a getline (whose `<` reads a file) started
  let lastWord: string | undefined; // the previous token, when it was a word
  const parens: boolean[] = []; // per open `(`: does it hold an if/while/for condition?
  const n = src.length;
  for (let i = 0; i < n; i++) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\r') continue;
    if (c === '\\' && src[i + 1] === '\n') {
      i++;
      continue;
    }
    if (c === '\\' && src[i + 1] === '\r' && src[i + 2] === '\n') {
      i += 2;
      continue;
    }
    const wordBefore = lastWord;
    lastWord = undefined;
    if (c === '\n' || c === ';' || c === '{' || c === '}') {
      printBase = undefined;
      getlineBase = undefined;
      prevIsOperand = false;
      continue;
    }
    if (c === '#') {
      while (i < n && src[i] !== '\n') i++;
      i--;
      continue;
    }
    if (c === '"') {
      const end = skipLiteral(src, i, '"');
      if (end < 0) return { what: 'unparsable', reason: 'the program has an unterminated string' };
      i = end;
      prevIsOperand = true;
      continue;
    }
    if (c === '/') {
      if (!prevIsOperand) {
        const end = skipLiteral(src, i, '/', bracketAware);
        if (end < 0) return { what: 'unparsable', reason: 'the program has an unterminated regular expression' };
        i = end;
        prevIsOperand = true;
        continue;
      }
      prevIsOperand = false; // division
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < n && /[A-Za-z0-9_]/.test(src[j]!)) j++;
      const word = src.slice(i, j);
      i = j - 1;
      if (word === 'print' || word === 'printf') printBase = parenDepth;
      if (word === 'getline') getlineBase = parenDepth;
      prevIsOperand = !keywords.has(word);
      lastWord = word;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      let j = i;
      while (j < n && /[0-9A-Za-z.]/.test(src[j]!)) j++;
      i = j - 1;
      prevIsOperand = true;
      continue;
    }
    if (c === '@') return { what: 'gawk-directive', reason: 'the program uses gawk @ syntax (directives or indirect function calls, which can reach system())' };
    if (c === '|') {
      if (src[i + 1] === '|') {
        i++;
        prevIsOperand = false;
        continue;
      }
      return { what: 'pipe', reason: 'the program uses a pipe (|), which runs a shell command' };
    }
    if (c === '<' && getlineBase !== undefined && parenDepth >= getlineBase) {
      return { what: 'redirect', reason: 'the program reads a file of its choosing with getline < FILE' };
    }
    if (c === '>') {
      if (printBase !== undefined && parenDepth <= printBase) {
        return { what: 'redirect', reason: 'the program redirects print/printf output (>, >>) to a file of its choosing' };
      }
      if (src[i + 1] === '=') i++;
      prevIsOperand = false;
      continue;
    }
    if (c === '(' || c === '[') {
      if (c === '(') {
        parenDepth++;
        parens.push(wordBefore !== undefined && CONTROL_WORDS.has(wordBefore));
      }
      prevIsOperand = false;
      continue;
    }
    if (c === ')' || c === ']') {
      let control = false;
      if (c === ')') {
        parenDepth = Math.max(0, parenDepth - 1);
        control = parens.pop() ?? false;
      }
      if (getlineBase !== undefined && parenDepth < getlineBase) getlineBase = undefined;
      prevIsOperand = !(control && d.regexAfterControlParen);
      continue;
    }
    if ((c === '+' || c === '-') && src[i + 1] === c) {
      // `x++ / 2` is a division in gawk and BWK awk; mawk reads a regex after a postfix ++/--.
      i++;
      prevIsOperand = !d.regexAfterIncDec;
      continue;
    }
    if (c === '$') {
      prevIsOperand = false;
      continue;
    }
    prevIsOperand = false; // any other operator or punctuation
  }
  return undefined;
}

/**
 * Index of the `close` that ends a string (`"`) or regex literal (`/`) opened at `start`, or -1 when it is not
 * closed on its line. With `bracketAware`, a `/` inside `[...]` does not close a regex.
 */
function skipLiteral(src: string, start: number, close: string, bracketAware = false): number {
  let inBracket = false;
  for (let i = start + 1; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '\n') return -1;
    if (inBracket) {
      if (c === ']') inBracket = false;
      continue;
    }
    if (c === '[' && bracketAware) {
      inBracket = true;
      if (src[i + 1] === '^') i++;
      if (src[i + 1] === ']') i++;
      continue;
    }
    if (c === close) return i;
  }
  return -1;
}
