import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { headAndTail, shareBudget } from '../../../src/core/output/budget';
import { jsonCost, prefixWithin, suffixWithin } from '../../../src/core/output/jsonCost';
import { pageAt } from '../../../src/core/output/page';
import { INLINE_BYTES, placeParts } from '../../../src/core/output/place';
import { SpillSpace, type OutputStore } from '../../../src/core/output/spill';
import { mulberry32 } from '../../helpers/prng';

/**
 * The output budget's parts, on real text and real files: what an answer costs as sent, head and tail within the
 * budget, pages that give back every byte in order, and the kept outputs (nameless 0600 files outside the workspace,
 * bounded, freed with the session).
 */

const ALPHABET = ['a', 'b', ' ', '\n', '\t', '"', '\\', '\u0001', '\u001f', 'é', 'ß', '€', '中', '😀', '\ud800', '\udc00', '\u2028', '\u007f'];
function randomText(rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)]!;
  return s;
}
const sent = (s: string) => Buffer.byteLength(JSON.stringify(s), 'utf8') - 2;

describe('what text costs in a JSON answer', () => {
  it('jsonCost is the UTF-8 size of JSON.stringify for control characters, quotes, every UTF-8 length and lone surrogates', () => {
    const rand = mulberry32(29);
    for (let i = 0; i < 300; i++) {
      const s = randomText(rand, Math.floor(rand() * 60));
      expect(jsonCost(s), JSON.stringify(s)).toBe(sent(s));
    }
  });

  it('prefixWithin and suffixWithin stay within the cost and never split a surrogate pair', () => {
    const rand = mulberry32(7);
    for (let i = 0; i < 300; i++) {
      const s = randomText(rand, 80);
      const max = Math.floor(rand() * 120);
      const p = s.slice(0, prefixWithin(s, max));
      const q = s.slice(suffixWithin(s, max));
      expect(sent(p)).toBeLessThanOrEqual(max);
      expect(sent(q)).toBeLessThanOrEqual(max);
      expect(/[\ud800-\udbff]$/.test(p) && /^[\udc00-\udfff]/.test(s.slice(p.length))).toBe(false);
    }
  });
});

describe('head and tail within a budget', () => {
  it('keeps a prefix and a suffix, marks the gap with its byte size and offset, and costs at most the budget', () => {
    const rand = mulberry32(3);
    for (let i = 0; i < 200; i++) {
      const text = randomText(rand, 200 + Math.floor(rand() * 3000));
      const budget = 100 + Math.floor(rand() * 600);
      const f = headAndTail(text, budget, (g) => `\n[… ${g.bytes} bytes at ${g.offset} …]\n`);
      expect(sent(f.text)).toBeLessThanOrEqual(budget);
      if (!f.cut) {
        expect(f.text).toBe(text);
        continue;
      }
      const m = /\n\[… (\d+) bytes at (\d+) …\]\n/.exec(f.text)!;
      const head = f.text.slice(0, m.index);
      const tail = f.text.slice(m.index + m[0].length);
      expect(text.startsWith(head)).toBe(true);
      expect(text.endsWith(tail)).toBe(true);
      expect(Number(m[2])).toBe(Buffer.byteLength(head));
      expect(Number(m[1])).toBe(Buffer.byteLength(text) - Buffer.byteLength(head) - Buffer.byteLength(tail));
    }
  });

  it('cuts at line ends when one is near, so head and tail hold whole lines', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const f = headAndTail(text, 4000, () => '\n[gap]\n');
    const [head, tail] = f.text.split('\n[gap]\n') as [string, string];
    expect(head.endsWith('\n')).toBe(true);
    expect(tail.startsWith('line ')).toBe(true);
    expect(tail.endsWith('line 4999\n')).toBe(true);
  });

  it('shares one budget: a small part keeps all it needs and the rest goes to the large one', () => {
    expect(shareBudget([100, 5000], 1000)).toEqual([100, 900]);
    expect(shareBudget([5000, 5000], 1000)).toEqual([500, 500]);
    expect(shareBudget([10, 20], 1000)).toEqual([10, 20]);
  });
});

describe('pages of UTF-8 bytes', () => {
  it('read one after another, any page length, give back every byte in order, each page whole characters within the budget', () => {
    const rand = mulberry32(11);
    for (let round = 0; round < 30; round++) {
      const bytes = Buffer.from(randomText(rand, 2000), 'utf8');
      const source = { total: bytes.length, read: (at: number, n: number) => bytes.subarray(at, at + n) };
      const budget = 64 + Math.floor(rand() * 400);
      const parts: Buffer[] = [];
      let offset = 0;
      for (let pages = 0; pages < 10_000; pages++) {
        const p = pageAt(source, offset, 1 + Math.floor(rand() * 300), budget);
        expect(p.offset).toBe(offset);
        expect(sent(p.text)).toBeLessThanOrEqual(budget);
        expect(Buffer.from(p.text, 'utf8').equals(bytes.subarray(p.offset, p.offset + p.bytes))).toBe(true);
        parts.push(bytes.subarray(p.offset, p.offset + p.bytes));
        if (p.next === undefined) break;
        expect(p.next).toBeGreaterThan(offset);
        offset = p.next;
      }
      expect(Buffer.concat(parts).equals(bytes)).toBe(true);
    }
  });

  it('an offset inside a character starts at that character', () => {
    const bytes = Buffer.from('a€b', 'utf8'); // € is 3 bytes at 1..3
    const p = pageAt({ total: bytes.length, read: (at, n) => bytes.subarray(at, at + n) }, 2, 10, 100);
    expect(p.offset).toBe(1);
    expect(p.text).toBe('€b');
  });
});

describe('outputs kept for readOutput', () => {
  const stores: OutputStore[] = [];
  afterEach(() => {
    while (stores.length) stores.pop()!.close();
  });
  const session = (space: SpillSpace) => {
    const s = space.session();
    stores.push(s);
    return s;
  };
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-spill-ws-')));
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('keeps the bytes in a file with no name, mode 0600, outside the workspace, and reads back exactly them', () => {
    const space = new SpillSpace();
    const s = session(space);
    const text = 'first line\n€ and 😀\n'.repeat(1000);
    const id = s.keep(text, root)!;
    expect(id).toMatch(/^o\d+$/);
    const page = s.read(id, 0, 1e9)!;
    expect(page.bytes.toString('utf8')).toBe(text);
    expect(page.total).toBe(Buffer.byteLength(text));
    // The descriptor's file: no path leads to it, only the owner may read it, not under the workspace.
    const fds = fs.readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return [{ fd: Number(fd), target: fs.readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'utf8' }) }];
      } catch {
        return []; // the descriptor readdir itself used, closed by now
      }
    });
    const mine = fds.filter((f) => /guarded-shell-output-.*\(deleted\)$/.test(f.target));
    expect(mine.length).toBeGreaterThan(0);
    for (const f of mine) {
      expect(f.target.startsWith(root)).toBe(false);
      expect(fs.fstatSync(f.fd).mode & 0o777).toBe(0o600);
      expect(fs.fstatSync(f.fd).nlink).toBe(0);
      expect(fs.existsSync(path.dirname(f.target.replace(/ \(deleted\)$/, '')))).toBe(false);
    }
  });

  it('a session reads only its own outputs; closing it frees them', () => {
    const space = new SpillSpace();
    const a = session(space);
    const b = session(space);
    const id = a.keep('x'.repeat(10_000), root)!;
    expect(b.read(id, 0, 10)).toBeUndefined();
    expect(space.heldBytes).toBe(10_000);
    a.close();
    expect(space.heldBytes).toBe(0);
    expect(a.read(id, 0, 10)).toBeUndefined();
    expect(a.keep('y', root)).toBeUndefined();
  });

  it('is bounded: past the total size the oldest outputs of every session go first', () => {
    const space = new SpillSpace(25_000, 100);
    const a = session(space);
    const b = session(space);
    const first = a.keep('1'.repeat(10_000), root)!;
    const second = b.keep('2'.repeat(10_000), root)!;
    const third = a.keep('3'.repeat(10_000), root)!;
    expect(space.heldBytes).toBe(20_000);
    expect(a.read(first, 0, 1)).toBeUndefined();
    expect(a.issued(first)).toBe(true);
    expect(b.read(second, 0, 1)!.bytes.toString()).toBe('2');
    expect(a.read(third, 0, 1)!.bytes.toString()).toBe('3');
    expect(a.keep('4'.repeat(30_000), root)).toBeUndefined(); // alone larger than the whole space
  });

  it('keeps nothing when every temporary folder is inside the workspace', () => {
    const s = session(new SpillSpace());
    expect(s.keep('text', '/')).toBeUndefined();
  });

  it('places a short part in the text and structuredContent, a long one once, with an id whose pages give it back', () => {
    const s = session(new SpillSpace());
    const short = 'ok\n';
    const long = Array.from({ length: 20_000 }, (_, i) => `row ${i}`).join('\n');
    const [a, b] = placeParts([{ field: 'stderr', text: short }, { field: 'stdout', text: long }], 8192, (t) => s.keep(t, root));
    expect(a).toMatchObject({ shown: short, inText: true, cut: false });
    expect(a!.id).toBeUndefined();
    expect(b!.inText).toBe(false);
    expect(b!.cut).toBe(true);
    expect(sent(a!.shown) + sent(b!.shown)).toBeLessThanOrEqual(8192);
    expect(b!.shown).toContain(`readOutput {"id":"${b!.id}","offset":`);
    expect(s.read(b!.id!, 0, 1e9)!.bytes.toString('utf8')).toBe(long);
    expect(INLINE_BYTES).toBeLessThan(8192);
  });
});
