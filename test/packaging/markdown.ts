/**
 * Just enough Markdown for checking links the way GitHub renders them: the relative links and images of a page
 * (outside code), and the anchors its headings get.
 */

export interface Link {
  readonly target: string;
  readonly line: number;
}

/** The text with fenced code blocks and inline code spans blanked (line numbers kept). */
function withoutCode(md: string): string {
  let inFence = false;
  return md
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line.replace(/`+[^`]*`+/g, '``');
    })
    .join('\n');
}

/** Every link and image target that is not absolute (no scheme): `[t](x)`, `![a](x)`, `<img src="x">`. */
export function relativeLinks(md: string): Link[] {
  const out: Link[] = [];
  withoutCode(md).split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1]!, line: i + 1 });
    for (const m of line.matchAll(/<img\s[^>]*src="([^"]+)"/g)) out.push({ target: m[1]!, line: i + 1 });
  });
  return out.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l.target));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let inFence = false;
  for (const line of md.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const h = !inFence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const text = h[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The rows of the table between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`: cells per row. */
export function generatedTable(md: string, name: string): string[][] {
  const start = md.indexOf(`<!-- generated:${name} -->`);
  const end = md.indexOf(`<!-- /generated:${name} -->`);
  if (start < 0 || end < start) throw new Error(`no <!-- generated:${name} --> … <!-- /generated:${name} --> block`);
  return md
    .slice(start, end)
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2) // header and separator
    .map((l) => l.replace(/\\\|/g, '\u0000').split('|').slice(1, -1).map((c) => c.trim().replace(/\u0000/g, '|')));
}

/** The first code span of a cell: `--allow CMD` → "--allow CMD". */
export function code(cell: string): string {
  const m = /`([^`]+)`/.exec(cell);
  if (!m) throw new Error(`no code span in table cell "${cell}"`);
  return m[1]!;
}
