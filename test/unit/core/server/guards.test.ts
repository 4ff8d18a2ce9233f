import { describe, expect, it } from 'vitest';
import { allowedHosts, bearerMatches, corsHeaders, generateToken, hostAllowed } from '../../../../src/server/http/guards';

const TOKEN = 'Zx8_secret-Token';

describe('bearerMatches', () => {
  it.each<[string, string | undefined, boolean]>([
    ['the right token', `Bearer ${TOKEN}`, true],
    ['a lower-case scheme (schemes are case-insensitive)', `bearer ${TOKEN}`, true],
    ['an upper-case scheme', `BEARER ${TOKEN}`, true],
    ['extra spaces around', `  Bearer   ${TOKEN}  `, true],
    ['a missing header', undefined, false],
    ['an empty header', '', false],
    ['a wrong token', 'Bearer wrong', false],
    ['the token in another case (tokens are case-sensitive)', `Bearer ${TOKEN.toLowerCase()}`, false],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`, false],
    ['the token with a suffix', `Bearer ${TOKEN}x`, false],
    ['the token followed by another word', `Bearer ${TOKEN} extra`, false],
    ['the Basic scheme carrying the token', `Basic ${TOKEN}`, false],
    ['the token without a scheme', TOKEN, false],
    ['the scheme without a token', 'Bearer', false],
    ['the scheme glued to the token', `Bearer${TOKEN}`, false],
  ])('%s -> %s', (_what, header, expected) => {
    expect(bearerMatches(header, TOKEN)).toBe(expected);
  });

  it('stops an empty configured token from matching an empty credential', () => {
    expect(bearerMatches('Bearer ', '')).toBe(false);
    expect(bearerMatches('Bearer', '')).toBe(false);
  });
});

describe('generateToken', () => {
  it('makes at least 128 bits of URL-safe randomness, different each time', () => {
    const a = generateToken();
    const b = generateToken();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(a, 'base64url').length).toBeGreaterThanOrEqual(16);
  });
});

describe('allowedHosts / hostAllowed (DNS rebinding)', () => {
  const loopback = allowedHosts('127.0.0.1', 8003);

  it.each([['127.0.0.1:8003'], ['localhost:8003'], ['LOCALHOST:8003'], ['[::1]:8003']])('accepts the loopback Host %s', (host) => {
    expect(hostAllowed(host, loopback)).toBe(true);
  });

  it.each([
    ['a rebinding name that resolves to 127.0.0.1', 'evil.example:8003'],
    ['a name that starts like localhost', 'localhost.evil.example:8003'],
    ['a name that ends like localhost', 'notlocalhost:8003'],
    ['the right name on another port', 'localhost:9999'],
    ['the right name without a port', 'localhost'],
    ['the address without a port', '127.0.0.1'],
    ['a trailing-dot name', 'localhost.:8003'],
    ['an empty Host', ''],
    ['a missing Host', undefined],
    ['0.0.0.0 as Host', '0.0.0.0:8003'],
  ])('stops %s (%j)', (_what, host) => {
    expect(hostAllowed(host, loopback)).toBe(false);
  });

  it('accepts the bound name itself when bound to a specific address', () => {
    const set = allowedHosts('192.168.1.5', 9000);
    expect(hostAllowed('192.168.1.5:9000', set)).toBe(true);
    expect(hostAllowed('evil.example:9000', set)).toBe(false);
  });

  it('accepts the bracketed form of a bound IPv6 address', () => {
    expect(hostAllowed('[::1]:8003', allowedHosts('::1', 8003))).toBe(true);
  });

  it.each([['0.0.0.0'], ['::'], ['[::]']])('accepts any Host on a wildcard bind (%s): the token is the guard there', (host) => {
    const set = allowedHosts(host, 8003);
    expect(set).toBeUndefined();
    expect(hostAllowed('anything.example:8003', set)).toBe(true);
  });
});

describe('corsHeaders', () => {
  it('grants a listed origin and exposes Mcp-Session-Id', () => {
    const h = corsHeaders('https://app.example', ['https://app.example']);
    expect(h).toBeDefined();
    expect(h!['Access-Control-Allow-Origin']).toBe('https://app.example');
    expect(h!['Access-Control-Expose-Headers']).toContain('Mcp-Session-Id');
    expect(h!['Access-Control-Allow-Headers']).toContain('Authorization');
    expect(h!.Vary).toBe('Origin');
  });

  it.each<[string, string, string[]]>([
    ['any origin when none is listed (the default)', 'https://app.example', []],
    ['an unlisted origin', 'https://evil.example', ['https://app.example']],
    ['a look-alike origin with a suffix', 'https://app.example.evil.example', ['https://app.example']],
    ['the listed host on another scheme', 'http://app.example', ['https://app.example']],
    ['the listed host on another port', 'https://app.example:8443', ['https://app.example']],
    ['the "null" origin of sandboxed frames and files', 'null', ['https://app.example']],
  ])('stops a page from reading responses: %s', (_what, origin, listed) => {
    expect(corsHeaders(origin, listed)).toBeUndefined();
  });

  it('echoes the request origin (never "*") when the user lists "*"', () => {
    expect(corsHeaders('https://x.example', ['*'])!['Access-Control-Allow-Origin']).toBe('https://x.example');
  });
});
