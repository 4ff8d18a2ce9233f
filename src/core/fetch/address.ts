import type { FetchPolicy } from '../policy';

/**
 * The SSRF address guard, as PURE functions over address text. Hosts are judged by the address that will be
 * connected to, never by their spelling: `0x7f.1`, `2130706433`, `0177.0.0.1`, `127.1`, `[::ffff:7f00:1]` and
 * `[::ffff:169.254.169.254]` are all loopback / metadata. IPv6 forms that carry an IPv4 address (mapped,
 * compatible, NAT64, 6to4, Teredo) are judged by the IPv4 address inside them.
 */

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

export type ParsedAddress = { readonly family: 4; readonly value: number } | { readonly family: 6; readonly words: readonly number[] };

/**
 * IPv4 the way inet_aton (and the WHATWG URL parser) read it: 1 to 4 parts, each decimal, octal (leading 0) or
 * hex (0x); the last part fills the remaining bytes. Returns the 32-bit value, or undefined when not IPv4.
 */
export function parseIPv4Loose(text: string): number | undefined {
  const s = text.endsWith('.') ? text.slice(0, -1) : text;
  const parts = s.split('.');
  if (parts.length < 1 || parts.length > 4) return undefined;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]*$/.test(p)) n = p.length === 1 ? 0 : parseInt(p.slice(1), 8);
    else if (/^[1-9][0-9]*$/.test(p)) n = parseInt(p, 10);
    else return undefined;
    if (!Number.isSafeInteger(n)) return undefined;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - nums.length)) return undefined;
  let value = last;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return value;
}

/** Strict dotted quad (the only IPv4 form allowed inside IPv6 text). */
function parseDottedQuad(s: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const b = m.slice(1).map(Number);
  if (b.some((x) => x > 255)) return undefined;
  return ((b[0]! << 24) >>> 0) + (b[1]! << 16) + (b[2]! << 8) + b[3]!;
}

/** IPv6 text (with or without brackets; a zone id is ignored) as eight 16-bit words. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  let v4: number | undefined;
  if (s.includes('.')) {
    const cut = s.lastIndexOf(':');
    v4 = parseDottedQuad(s.slice(cut + 1));
    if (v4 === undefined) return undefined;
    s = s.slice(0, cut + 1) + '0:0';
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const group = (h: string) => (h === '' ? [] : h.split(':'));
  const head = group(halves[0]!);
  const tail = halves.length === 2 ? group(halves[1]!) : [];
  if (![...head, ...tail].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  if (halves.length === 1 ? head.length !== 8 : head.length + tail.length > 7) return undefined;
  const words = [...head.map((g) => parseInt(g, 16)), ...new Array(8 - head.length - tail.length).fill(0), ...tail.map((g) => parseInt(g, 16))];
  if (v4 !== undefined) {
    words[6] = v4 >>> 16;
    words[7] = v4 & 0xffff;
  }
  return words;
}

/** Any address text (IPv4 in any inet_aton spelling, IPv6 with or without brackets), or undefined for a name. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const v6 = parseIPv6(text);
  if (v6) return { family: 6, words: v6 };
  const v4 = parseIPv4Loose(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  return undefined;
}

const inV4 = (v: number, base: string, bits: number): boolean => {
  const b = parseDottedQuad(base)!;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return ((v & mask) >>> 0) === ((b & mask) >>> 0);
};

/** Cloud and platform metadata endpoints (credentials live there): never reachable, whatever the policy. */
const METADATA_V4 = ['169.254.169.254', '169.254.170.2', '169.254.169.123', '100.100.100.200', '168.63.129.16', '192.0.0.192'];

export function classifyIPv4(v: number): AddressClass {
  if (METADATA_V4.some((m) => parseDottedQuad(m) === v)) return 'metadata';
  if (inV4(v, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(v, '127.0.0.0', 8)) return 'loopback';
  if (inV4(v, '169.254.0.0', 16)) return 'link-local';
  if (inV4(v, '10.0.0.0', 8) || inV4(v, '172.16.0.0', 12) || inV4(v, '192.168.0.0', 16) || inV4(v, '100.64.0.0', 10) || inV4(v, '198.18.0.0', 15)) return 'private';
  // The documentation ranges are on no public network, but some networks route them inside (a sandboxed machine
  // was seen to resolve its package registry to 203.0.113.80): private, i.e. reachable only with allowPrivate.
  if (inV4(v, '192.0.2.0', 24) || inV4(v, '198.51.100.0', 24) || inV4(v, '203.0.113.0', 24)) return 'private';
  if (inV4(v, '224.0.0.0', 4)) return 'multicast';
  if (inV4(v, '240.0.0.0', 4) || inV4(v, '192.0.0.0', 24)) return 'reserved';
  return 'public';
}

export function classifyIPv6(w: readonly number[]): AddressClass {
  const v4 = (hi: number, lo: number) => classifyIPv4(((hi << 16) >>> 0) + lo);
  const zeros = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && w[7] === 1) return 'loopback';
  if (zeros(0, 5) && w[5] === 0xffff) return v4(w[6]!, w[7]!); // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 4) && w[4] === 0xffff && w[5] === 0) return v4(w[6]!, w[7]!); // ::ffff:0:a.b.c.d (SIIT)
  if (zeros(0, 6)) return v4(w[6]!, w[7]!); // ::a.b.c.d (compatible, deprecated)
  if (w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6)) return v4(w[6]!, w[7]!); // NAT64 well-known prefix
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return 'private'; // local-use NAT64
  if (w[0] === 0x2002) return v4(w[1]!, w[2]!); // 6to4 carries the IPv4 address in words 1-2
  if (w[0] === 0x2001 && w[1] === 0) return v4(~w[6]! & 0xffff, ~w[7]! & 0xffff); // Teredo client (inverted)
  if (w[0] === 0xfd00 && w[1] === 0x0ec2 && zeros(2, 7) && w[7] === 0x254) return 'metadata'; // AWS IPv6 IMDS
  if ((w[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((w[0]! & 0xfe00) === 0xfc00 || (w[0]! & 0xffc0) === 0xfec0) return 'private'; // ULA, old site-local
  if ((w[0]! & 0xff00) === 0xff00) return 'multicast';
  if (w[0] === 0x2001 && w[1] === 0x0db8) return 'private'; // documentation: as the IPv4 documentation ranges
  if (w[0] === 0x0100 && zeros(1, 4)) return 'reserved'; // discard prefix
  return 'public';
}

export function classifyAddress(a: ParsedAddress): AddressClass {
  return a.family === 4 ? classifyIPv4(a.value) : classifyIPv6(a.words);
}

export interface AddressJudgement {
  readonly allowed: boolean;
  readonly class: AddressClass;
  /** Why it was refused, naming the flag that would allow it when one exists. */
  readonly reason?: string;
}

/** Whether the policy lets fetch connect to this class of address. */
export function judgeClass(cls: AddressClass, policy: Pick<FetchPolicy, 'allowLoopback' | 'allowPrivate'>): AddressJudgement {
  switch (cls) {
    case 'public':
      return { allowed: true, class: cls };
    case 'loopback':
      return policy.allowLoopback ? { allowed: true, class: cls } : { allowed: false, class: cls, reason: 'a loopback address (allow with --fetch-allow-loopback, or one port of localhost with --fetch-loopback-port)' };
    case 'private':
    case 'link-local':
      return policy.allowPrivate ? { allowed: true, class: cls } : { allowed: false, class: cls, reason: `a ${cls} address (allow with --fetch-allow-private)` };
    case 'metadata':
      return { allowed: false, class: cls, reason: 'a cloud metadata address (never allowed: it hands out credentials)' };
    default:
      return { allowed: false, class: cls, reason: `${cls === 'unspecified' ? 'an' : 'a'} ${cls} address (never allowed)` };
  }
}

/** Judges address text; text that is not an address at all is refused (the guard only passes what it understands). */
export function judgeAddress(text: string, policy: Pick<FetchPolicy, 'allowLoopback' | 'allowPrivate'>): AddressJudgement {
  const parsed = parseAddress(text);
  if (!parsed) return { allowed: false, class: 'reserved', reason: `"${text}" is not an IP address` };
  return judgeClass(classifyAddress(parsed), policy);
}
