/**
 * HTML → readable text without a parser package: drop what is never text (scripts, styles, comments, head
 * metadata), turn block elements into line breaks, list items into "- ", headings into "#", links into
 * "text (href)", decode entities, and collapse white space. Good enough for reading docs; not a browser.
 */

const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™', hellip: '…',
  mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', bull: '•',
  middot: '·', times: '×', divide: '÷', deg: '°', euro: '€', pound: '£', yen: '¥', cent: '¢', sect: '§', para: '¶',
  larr: '←', rarr: '→', uarr: '↑', darr: '↓', harr: '↔', le: '≤', ge: '≥', ne: '≠', plusmn: '±', shy: '',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z][a-zA-Z0-9]*);/g, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body] ?? whole;
  });
}

const BLOCK = 'address|article|aside|blockquote|body|dd|details|div|dl|dt|fieldset|figcaption|figure|footer|form|header|hr|html|main|nav|ol|p|pre|section|summary|table|tbody|thead|tfoot|tr|ul';

export function htmlToText(html: string): string {
  let s = html;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(s)?.[1]?.trim();
  s = s.replace(/<!--[\s\S]*?-->/g, '');
  s = s.replace(/<(script|style|noscript|template|svg|head|iframe|object)\b[\s\S]*?<\/\1\s*>/gi, '');
  // Preformatted text keeps its line breaks: protect them before white space is collapsed.
  s = s.replace(/<pre\b[^>]*>([\s\S]*?)<\/pre\s*>/gi, (_m, body: string) => `\n${body.replace(/<[^>]+>/g, '').replace(/\n/g, '\u0000').replace(/ /g, '\u0001').replace(/\t/g, '\u0002')}\n`);
  s = s.replace(/<h([1-6])\b[^>]*>/gi, (_m, n: string) => `\n\n${'#'.repeat(Number(n))} `).replace(/<\/h[1-6]\s*>/gi, '\n\n');
  s = s.replace(/<li\b[^>]*>/gi, '\n- ');
  s = s.replace(/<a\b[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi, (_m, a?: string, b?: string, c?: string, text?: string) => {
    const href = a ?? b ?? c ?? '';
    const label = (text ?? '').replace(/<[^>]+>/g, '').trim();
    return href && !href.startsWith('#') && !href.startsWith('javascript:') && label !== href ? `${label} (${href})` : label;
  });
  s = s.replace(/<br\s*\/?>/gi, '\n');
  s = s.replace(/<\/?(td|th)\b[^>]*>/gi, ' | ');
  s = s.replace(new RegExp(`</?(?:${BLOCK})\\b[^>]*>`, 'gi'), '\n');
  s = s.replace(/<[^>]+>/g, '');
  s = decodeEntities(s);
  s = s
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\u0000/g, '\n')
    .replace(/\u0001/g, ' ')
    .replace(/\u0002/g, '\t')
    .trim();
  return title && !s.startsWith(title) ? `${title}\n\n${s}` : s;
}
