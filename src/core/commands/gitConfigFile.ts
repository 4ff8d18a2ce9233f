/**
 * A git configuration file read the way git's own parser (config.c, git_parse_source) reads it, so that the keys
 * the server judges are the keys git will see: `[section]`, `[section "subsection"]` and the legacy
 * `[section.subsection]`, several headers and entries on one line, bare keys (boolean true), quoted values,
 * the escapes `\n \t \b \" \\`, backslash-newline continuations, `#`/`;` comments, CRLF and a leading BOM.
 * Where git would stop with "bad config line", this parser returns an error too (git then refuses to run at
 * all, and the server does not treat the call as read-only).
 */

export interface GitConfigEntry {
  /**
   * The key as git compares it: section and variable name in lower case, the subsection as written (lower case
   * for the legacy dotted header), joined by dots: `core.fsmonitor`, `diff.Driver.textconv`.
   */
  readonly key: string;
  /** The value, decoded; undefined for a bare key (`[core] bare`), which git reads as boolean true. */
  readonly value?: string;
  readonly line: number;
}

export type ParsedGitConfig = { readonly entries: readonly GitConfigEntry[] } | { readonly error: string };

const isKeyChar = (c: string): boolean => /^[A-Za-z0-9-]$/.test(c);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\v' || c === '\f';
const ESCAPES: Readonly<Record<string, string>> = { t: '\t', b: '\b', n: '\n', '\\': '\\', '"': '"' };

/** Follows config.c function by function (get_next_char, get_base_var, get_extended_base_var, get_value, parse_value). */
export function parseGitConfig(text: string): ParsedGitConfig {
  const src = (text.startsWith('\uFEFF') ? text.slice(1) : text).replace(/\r\n/g, '\n');
  let i = 0;
  let line = 1;
  let eof = false;
  /** get_next_char: the end of the file reads as a newline and sets `eof`. */
  const next = (): string => {
    if (i >= src.length) {
      eof = true;
      return '\n';
    }
    const c = src[i++]!;
    if (c === '\n') line++;
    return c;
  };
  const bad = (at: number): ParsedGitConfig => ({ error: `bad config line ${at}` });

  const entries: GitConfigEntry[] = [];
  let section = '';
  let comment = false;
  for (;;) {
    const c = next();
    if (c === '\n') {
      if (eof) return { entries };
      comment = false;
      continue;
    }
    if (comment || isSpace(c)) continue;
    if (c === '#' || c === ';') {
      comment = true;
      continue;
    }
    const at = line;
    if (c === '[') {
      const header = readHeader();
      if (header === undefined || header === '') return bad(at);
      section = header;
      continue;
    }
    if (!/^[A-Za-z]$/.test(c)) return bad(at);
    // A key before any header has no section (git passes it on as it is: `foo=bar`).
    let name = c.toLowerCase();
    let d: string;
    for (;;) {
      d = next();
      if (eof || !isKeyChar(d)) break;
      name += d.toLowerCase();
    }
    while (d === ' ' || d === '\t') d = next();
    const key = section === '' ? name : `${section}.${name}`;
    if (d === '\n') {
      entries.push({ key, line: at });
      if (eof) return { entries };
      continue;
    }
    if (d !== '=') return bad(at);
    const value = readValue();
    if (value === undefined) return bad(at);
    entries.push({ key, value, line: at });
    if (eof) return { entries };
  }

  /** get_base_var: after `[`, `name]`, `name "sub"]` or the legacy `name.sub]` (all lower case). */
  function readHeader(): string | undefined {
    let name = '';
    for (;;) {
      const c = next();
      if (eof) return undefined;
      if (c === ']') return name;
      if (isSpace(c)) return readSubsection(name, c);
      if (!isKeyChar(c) && c !== '.') return undefined;
      name += c.toLowerCase();
    }
  }

  /** get_extended_base_var: white space, then `"sub"` (a backslash takes the next character as it is), then `]`. */
  function readSubsection(name: string, first: string): string | undefined {
    let c = first;
    do {
      if (c === '\n') return undefined;
      c = next();
    } while (isSpace(c));
    if (c !== '"') return undefined;
    let sub = '';
    for (;;) {
      c = next();
      if (c === '\n') return undefined;
      if (c === '"') break;
      if (c === '\\') {
        c = next();
        if (c === '\n') return undefined;
      }
      sub += c;
    }
    if (next() !== ']') return undefined;
    return `${name}.${sub}`;
  }

  /**
   * parse_value: leading white space dropped, each inner run of unquoted white space kept as that many spaces,
   * trailing white space dropped; `"` toggles quoting; `#`/`;` outside quotes start a comment; the escapes above.
   */
  function readValue(): string | undefined {
    let quote = false;
    let inComment = false;
    let spaces = 0;
    let value = '';
    for (;;) {
      let c = next();
      if (c === '\n') return quote ? undefined : value;
      if (inComment) continue;
      if (isSpace(c) && !quote) {
        if (value.length > 0) spaces++;
        continue;
      }
      if (!quote && (c === ';' || c === '#')) {
        inComment = true;
        continue;
      }
      value += ' '.repeat(spaces);
      spaces = 0;
      if (c === '\\') {
        c = next();
        if (c === '\n') continue; // a continuation line (at the end of the file: the end)
        const escaped = ESCAPES[c];
        if (escaped === undefined) return undefined;
        value += escaped;
        continue;
      }
      if (c === '"') {
        quote = !quote;
        continue;
      }
      value += c;
    }
  }
}
