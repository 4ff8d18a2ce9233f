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

/** Keywords after which a `/` starts a regex (awk expects an expression there). */
const EXPRESSION_KEYWORDS = new Set(['print', 'printf', 'return', 'case', 'else', 'do', 'in']);

export function findAwkHazard(src: string): AwkHazard | undefined {
  // awks disagree on whether a `/` inside `[...]` ends a regex literal (gawk: no); lex both ways, deny if either
  // reading finds a hazard.
  return lexForHazard(src, true) ?? lexForHazard(src, false);
}

function lexForHazard(src: string, bracketAware: boolean): AwkHazard | undefined {
  // Belt and braces on the raw text: these spellings are denied wherever they appear, even inside strings.
  if (/system(\s|\\\r?\n)*\(/.test(src)) return { what: 'system', reason: 'the program calls system(), which runs a shell command' };
  if (/@\s*(include|load|nsinclude)\b/.test(src)) return { what: 'gawk-directive', reason: 'the program loads code or extensions with a gawk @include/@load/@nsinclude directive' };
  if (/\/inet[46]?\//.test(src)) return { what: 'network', reason: 'the program opens a gawk network special file (/inet/…)' };

  let prevIsOperand = false; // true after an operand: a `/` is division there
  let parenDepth = 0;
  let printBase: number | undefined; // paren depth at which the current print/printf statement started
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
    if (c === '\n' || c === ';' || c === '{' || c === '}') {
      printBase = undefined;
      prevIsOperand = false;
      continue;
    }
    if (c === '#') {
      while (i < n && src[i] !== '\n') i++;
      i--;
      continue;
    }
    if (c === '"') {
      const end = skipQuoted(src, i, '"');
      if (end < 0) return { what: 'unparsable', reason: 'the program has an unterminated string' };
      i = end;
      prevIsOperand = true;
      continue;
    }
    if (c === '/') {
      if (!prevIsOperand) {
        const end = skipRegex(src, i, bracketAware);
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
      prevIsOperand = !EXPRESSION_KEYWORDS.has(word);
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
    if (c === '>') {
      if (printBase !== undefined && parenDepth <= printBase) {
        return { what: 'redirect', reason: 'the program redirects print/printf output (>, >>) to a file of its choosing' };
      }
      if (src[i + 1] === '=') i++;
      prevIsOperand = false;
      continue;
    }
    if (c === '(' || c === '[') {
      if (c === '(') parenDepth++;
      prevIsOperand = false;
      continue;
    }
    if (c === ')' || c === ']') {
      if (c === ')') parenDepth = Math.max(0, parenDepth - 1);
      prevIsOperand = true;
      continue;
    }
    if ((c === '+' || c === '-') && src[i + 1] === c) {
      // `x++ / 2` is a division; treating ++/-- as an operand is the "scan more" choice.
      i++;
      prevIsOperand = true;
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

/** Index of the closing quote, or -1 when the string is not closed on its line. */
function skipQuoted(src: string, start: number, quote: string): number {
  for (let i = start + 1; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '\n') return -1;
    if (c === quote) return i;
  }
  return -1;
}

/** Index of the closing `/` of a regex literal (a `/` inside `[...]` does not close it), or -1. */
function skipRegex(src: string, start: number, bracketAware: boolean): number {
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
    if (c === '/') return i;
  }
  return -1;
}
