/**
 * git's configuration file syntax, read as DATA (no git is run): sections, subsections, keys and values the way
 * git's own parser (config.c) reads them — comments (`#`, `;`) outside quotes, quoted parts, the escapes `\"`,
 * `\\`, `\n`, `\t`, `\b`, a backslash at the end of a line continuing the value, whitespace outside quotes kept
 * inside a value and dropped around it, a key without `=` meaning true, the legacy `[section.sub]` header.
 * Anything git would refuse (a bad escape, an unclosed quote, a malformed header) throws: the caller then uses
 * nothing from the file, as git would use nothing.
 */

export interface GitConfigEntry {
  /** Lower case (section names are case-insensitive). */
  readonly section: string;
  /** As written (subsections are case-sensitive), except the legacy `[section.sub]` form, which git lower-cases. */
  readonly subsection?: string;
  /** Lower case. */
  readonly key: string;
  /** `true` for a key written without `=`. */
  readonly value: string | true;
}

export class GitConfigSyntaxError extends Error {}

const isAlpha = (c: string | undefined) => c !== undefined && /^[A-Za-z]$/.test(c);
const isKeyChar = (c: string | undefined) => c !== undefined && /^[A-Za-z0-9-]$/.test(c);
const isSectionChar = (c: string | undefined) => c !== undefined && /^[A-Za-z0-9.-]$/.test(c);
const isBlank = (c: string | undefined) => c === ' ' || c === '\t' || c === '\f' || c === '\v';

export function parseGitConfig(input: string): GitConfigEntry[] {
  // git reads "\r\n" as "\n" and skips a UTF-8 byte-order mark.
  const text = input.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const entries: GitConfigEntry[] = [];
  let i = 0;
  let section: string | undefined;
  let subsection: string | undefined;
  const fail = (what: string): never => {
    const line = text.slice(0, i).split('\n').length;
    throw new GitConfigSyntaxError(`bad config line ${line}: ${what}`);
  };
  const skipComment = () => {
    while (i < text.length && text[i] !== '\n') i++;
  };

  while (i < text.length) {
    const c = text[i];
    if (c === '\n' || isBlank(c) || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' || c === ';') {
      skipComment();
      continue;
    }
    if (c === '[') {
      i++;
      let name = '';
      while (isSectionChar(text[i])) name += text[i++];
      if (name === '') fail('empty section name');
      subsection = undefined;
      if (isBlank(text[i])) {
        while (isBlank(text[i])) i++;
        if (text[i] !== '"') fail('expected a quoted subsection');
        i++;
        let sub = '';
        for (;;) {
          const s = text[i++];
          if (s === undefined || s === '\n') fail('unterminated subsection');
          if (s === '"') break;
          if (s === '\\') {
            const e = text[i++];
            if (e === undefined || e === '\n') fail('unterminated subsection');
            sub += e;
          } else sub += s;
        }
        if (text[i] !== ']') fail('expected "]" after the subsection');
        i++;
        section = name.toLowerCase();
        subsection = sub;
      } else {
        if (text[i] !== ']') fail('expected "]"');
        i++;
        const dot = name.indexOf('.');
        // [section.sub]: deprecated, and git lower-cases the subsection too.
        section = (dot < 0 ? name : name.slice(0, dot)).toLowerCase();
        if (dot >= 0) subsection = name.slice(dot + 1).toLowerCase();
      }
      continue;
    }
    if (!isAlpha(c)) fail(`unexpected character ${JSON.stringify(c)}`);
    if (section === undefined) fail('a key outside any section');
    let key = '';
    while (isKeyChar(text[i])) key += text[i++];
    while (isBlank(text[i])) i++;
    const next = text[i];
    if (next === undefined || next === '\n' || next === '#' || next === ';') {
      if (next === '#' || next === ';') skipComment();
      entries.push({ section: section!, ...(subsection !== undefined && { subsection }), key: key.toLowerCase(), value: true });
      continue;
    }
    if (next !== '=') fail(`expected "=" after ${key}`);
    i++;
    entries.push({ section: section!, ...(subsection !== undefined && { subsection }), key: key.toLowerCase(), value: parseValue() });
  }
  return entries;

  /** git's parse_value, from just after the "=" up to the end of the (possibly continued) line. */
  function parseValue(): string {
    let value = '';
    let quote = false;
    let comment = false;
    let spaces = 0;
    for (;;) {
      const c = text[i++];
      if (c === undefined || c === '\n') {
        if (quote) fail('unclosed quote');
        if (c === undefined) i = text.length;
        return value;
      }
      if (comment) continue;
      if ((isBlank(c) || c === '\r') && !quote) {
        if (value.length) spaces++;
        continue;
      }
      if (!quote && (c === ';' || c === '#')) {
        comment = true;
        continue;
      }
      value += ' '.repeat(spaces);
      spaces = 0;
      if (c === '\\') {
        const e = text[i++];
        switch (e) {
          case '\n':
            continue; // the value goes on on the next line
          case 't':
            value += '\t';
            break;
          case 'b':
            value += '\b';
            break;
          case 'n':
            value += '\n';
            break;
          case '\\':
          case '"':
            value += e;
            break;
          default:
            fail('bad escape in a value');
        }
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
