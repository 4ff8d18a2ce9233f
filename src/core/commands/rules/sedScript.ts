/**
 * A reader for GNU sed scripts, far enough to find every command that leaves sed: `e` (run a command), `r`/`R`
 * (read a file of the script's choosing), `w`/`W` (write one), and the `e` and `w` flags of `s`. Anything the
 * reader does not understand is reported as unparsable and denied: sed would either reject it too, or read it
 * in a way the reader did not foresee.
 *
 * Where GNU sed's reading is uncertain, the reader ends data EARLY (a label ends at `;` as well as at a
 * newline), so it scans more text as commands, never less.
 */

export interface SedHazard {
  readonly what: 'exec' | 'read-file' | 'write-file' | 'unparsable';
  readonly reason: string;
}

const NO_ARG = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F']);
const OPTIONAL_NUMBER = new Set(['q', 'Q', 'l', 'L']);
const LABEL = new Set(['b', 't', 'T']);
const TEXT = new Set(['a', 'i', 'c']);
const HAZARD: Readonly<Record<string, SedHazard>> = {
  e: { what: 'exec', reason: 'the e command runs a shell command' },
  r: { what: 'read-file', reason: 'the r command reads a file of the script\'s choosing' },
  R: { what: 'read-file', reason: 'the R command reads a file of the script\'s choosing' },
  w: { what: 'write-file', reason: 'the w command writes a file of the script\'s choosing' },
  W: { what: 'write-file', reason: 'the W command writes a file of the script\'s choosing' },
};

class Unparsable extends Error {}

export function findSedHazard(script: string): SedHazard | undefined {
  try {
    return new Reader(script).run();
  } catch (e) {
    if (e instanceof Unparsable) return { what: 'unparsable', reason: `the script could not be read safely (${e.message})` };
    return { what: 'unparsable', reason: 'the script could not be read safely' };
  }
}

class Reader {
  private i = 0;
  constructor(private readonly s: string) {}

  private peek(): string | undefined {
    return this.s[this.i];
  }

  private skipBlanks(): void {
    while (this.i < this.s.length && /[ \t\r]/.test(this.s[this.i]!)) this.i++;
  }

  run(): SedHazard | undefined {
    const s = this.s;
    while (this.i < s.length) {
      this.skipBlanks();
      const c = this.peek();
      if (c === undefined) break;
      if (c === '\n' || c === ';' || c === '}') {
        this.i++;
        continue;
      }
      if (c === '#') {
        this.skipToLineEnd();
        continue;
      }
      this.readAddresses();
      this.skipBlanks();
      while (this.peek() === '!') {
        this.i++;
        this.skipBlanks();
      }
      const cmd = this.peek();
      if (cmd === undefined) throw new Unparsable('an address without a command');
      this.i++;
      const hazard = Object.prototype.hasOwnProperty.call(HAZARD, cmd) ? HAZARD[cmd] : undefined;
      if (hazard) return hazard;
      if (cmd === '{') continue;
      if (cmd === '}') continue;
      if (NO_ARG.has(cmd)) {
        this.endOfCommand();
      } else if (OPTIONAL_NUMBER.has(cmd)) {
        this.skipBlanks();
        while (/[0-9]/.test(this.peek() ?? '')) this.i++;
        this.endOfCommand();
      } else if (LABEL.has(cmd) || cmd === ':') {
        this.skipBlanks();
        while (this.i < s.length && !/[;\n]/.test(s[this.i]!)) this.i++;
      } else if (cmd === 'v') {
        while (this.i < s.length && !/[;\n}]/.test(s[this.i]!)) this.i++;
      } else if (TEXT.has(cmd)) {
        this.readText();
      } else if (cmd === 's') {
        const flagsHazard = this.readSubstitute();
        if (flagsHazard) return flagsHazard;
      } else if (cmd === 'y') {
        const delim = this.delimiter();
        this.readDelimited(delim);
        this.readDelimited(delim);
        this.endOfCommand();
      } else {
        throw new Unparsable(`unknown command "${cmd}"`);
      }
    }
    return undefined;
  }

  private skipToLineEnd(): void {
    while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
  }

  /** After a command: blanks, then `;`, newline, `}`, `#` or the end. */
  private endOfCommand(): void {
    this.skipBlanks();
    const c = this.peek();
    if (c === undefined || c === ';' || c === '\n' || c === '}' || c === '#') return;
    throw new Unparsable(`unexpected "${c}" after a command`);
  }

  private readAddresses(): void {
    if (!this.readAddress()) return;
    this.skipBlanks();
    if (this.peek() === ',') {
      this.i++;
      this.skipBlanks();
      if (this.peek() === '+' || this.peek() === '~') {
        this.i++;
        if (!this.readNumber()) throw new Unparsable('a bad address step');
      } else if (!this.readAddress()) throw new Unparsable('a missing second address');
    }
  }

  private readNumber(): boolean {
    const start = this.i;
    while (/[0-9]/.test(this.peek() ?? '')) this.i++;
    return this.i > start;
  }

  private readAddress(): boolean {
    const c = this.peek();
    if (c === undefined) return false;
    if (/[0-9]/.test(c)) {
      this.readNumber();
      if (this.peek() === '~') {
        this.i++;
        this.readNumber();
      }
      return true;
    }
    if (c === '$') {
      this.i++;
      return true;
    }
    if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        this.i++;
        delim = this.peek() ?? '';
        if (delim === '' || delim === '\n' || delim === '\\') throw new Unparsable('a bad address delimiter');
      }
      this.i++;
      this.readDelimited(delim);
      while (this.peek() === 'I' || this.peek() === 'M') this.i++;
      return true;
    }
    return false;
  }

  private delimiter(): string {
    const d = this.peek();
    if (d === undefined || d === '\n' || d === '\\') throw new Unparsable('a missing or bad delimiter');
    this.i++;
    return d;
  }

  /** Reads up to and past the next unescaped delimiter. A raw newline ends the script part: sed rejects that. */
  private readDelimited(delim: string): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '\\') {
        this.i += 2;
        continue;
      }
      if (c === '\n') throw new Unparsable('a newline inside a regular expression or replacement');
      this.i++;
      if (c === delim) return;
    }
    throw new Unparsable('an unterminated regular expression or replacement');
  }

  private readSubstitute(): SedHazard | undefined {
    const delim = this.delimiter();
    this.readDelimited(delim);
    // The replacement may contain escaped newlines (`\` + newline); readDelimited skips those as escapes.
    this.readDelimited(delim);
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === ';' || c === '\n' || c === '}' || c === '#' || c === ' ' || c === '\t' || c === '\r') break;
      if (c === 'e') return { what: 'exec', reason: 'the e flag of s runs the pattern space as a shell command' };
      if (c === 'w') return { what: 'write-file', reason: 'the w flag of s writes a file of the script\'s choosing' };
      if (/[gpiImM0-9]/.test(c)) {
        this.i++;
        continue;
      }
      throw new Unparsable(`unknown flag "${c}" of s`);
    }
    this.endOfCommand();
    return undefined;
  }

  /** a/i/c text: GNU one-liner (`a text`) or classic (`a\` newline text); lines continue with a trailing `\`. */
  private readText(): void {
    const s = this.s;
    this.skipBlanks();
    if (this.peek() === '\\') {
      this.i++;
      if (this.peek() === '\r') this.i++;
      if (this.peek() === '\n') this.i++;
    }
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '\\') {
        this.i += 2;
        continue;
      }
      if (c === '\n') return;
      this.i++;
    }
  }
}
