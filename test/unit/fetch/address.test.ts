import { describe, expect, it } from 'vitest';
import { classifyAddress, judgeAddress, parseAddress, parseIPv4Loose, parseIPv6 } from '../../../src/core/fetch/address';

const closed = { allowLoopback: false, allowPrivate: false };
const cls = (text: string) => {
  const a = parseAddress(text);
  if (!a) throw new Error(`not an address: ${text}`);
  return classifyAddress(a);
};

describe('IPv4 spellings (inet_aton rules)', () => {
  it.each([
    ['127.0.0.1', 0x7f000001],
    ['0x7f.1', 0x7f000001],
    ['0x7f000001', 0x7f000001],
    ['2130706433', 0x7f000001],
    ['0177.0.0.1', 0x7f000001],
    ['127.1', 0x7f000001],
    ['127.0.1', 0x7f000001],
    ['0251.0376.0251.0376', 0xa9fea9fe],
    ['2852039166', 0xa9fea9fe],
    ['127.0.0.1.', 0x7f000001],
  ])('reads %s as the address it connects to', (text, value) => {
    expect(parseIPv4Loose(text)).toBe(value);
  });

  it.each(['256.0.0.1', '1.2.3.4.5', '4294967296', '08.0.0.1', 'example.com', '', '1..2'])('refuses %s as an IPv4 address', (text) => {
    expect(parseIPv4Loose(text)).toBeUndefined();
  });
});

describe('IPv6 parsing', () => {
  it('expands :: and embedded IPv4', () => {
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('[::ffff:169.254.169.254]')).toEqual([0, 0, 0, 0, 0, 0xffff, 0xa9fe, 0xa9fe]);
    expect(parseIPv6('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
  });
  it.each(['1::2::3', '12345::1', '::ffff:300.1.1.1', '1:2:3:4:5:6:7', 'g::1'])('refuses malformed %s', (text) => {
    expect(parseIPv6(text)).toBeUndefined();
  });
});

describe('address classes', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['[::ffff:169.254.169.254]', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['0251.0376.0251.0376', 'metadata'],
    ['2852039166', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['192.0.0.8', 'reserved'],
    // Documentation ranges: on no public network, routed inside some (a registry seen at 203.0.113.80).
    ['203.0.113.80', 'private'],
    ['198.51.100.7', 'private'],
    ['192.0.2.1', 'private'],
    ['2001:db8::1', 'private'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['93.184.216.34', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (text, expected) => {
    expect(cls(text)).toBe(expected);
  });
});

describe('judgeAddress (the policy over classes)', () => {
  it('stops loopback in any spelling unless loopback is allowed', () => {
    for (const a of ['127.0.0.1', '0x7f.1', '2130706433', '::1', '::ffff:127.0.0.1']) {
      expect(judgeAddress(a, closed).allowed).toBe(false);
      expect(judgeAddress(a, { allowLoopback: true, allowPrivate: false }).allowed).toBe(true);
    }
  });
  it('stops private and link-local unless private networks are allowed', () => {
    expect(judgeAddress('10.0.0.1', closed).allowed).toBe(false);
    expect(judgeAddress('10.0.0.1', { allowLoopback: true, allowPrivate: false }).allowed).toBe(false);
    expect(judgeAddress('10.0.0.1', { allowLoopback: false, allowPrivate: true }).allowed).toBe(true);
    expect(judgeAddress('fe80::1', { allowLoopback: false, allowPrivate: true }).allowed).toBe(true);
  });
  it('stops the cloud metadata address even when everything local is allowed', () => {
    const open = { allowLoopback: true, allowPrivate: true };
    for (const a of ['169.254.169.254', '[::ffff:169.254.169.254]', '0xa9fea9fe', 'fd00:ec2::254']) {
      const j = judgeAddress(a, open);
      expect(j.allowed).toBe(false);
      expect(j.class).toBe('metadata');
    }
  });
  it('stops unspecified and multicast whatever the policy', () => {
    const open = { allowLoopback: true, allowPrivate: true };
    expect(judgeAddress('0.0.0.0', open).allowed).toBe(false);
    expect(judgeAddress('::', open).allowed).toBe(false);
    expect(judgeAddress('239.1.1.1', open).allowed).toBe(false);
  });
  it('refuses text that is not an address at all', () => {
    expect(judgeAddress('localhost', closed).allowed).toBe(false);
  });
  it('lets a public address through', () => {
    expect(judgeAddress('93.184.216.34', closed)).toEqual({ allowed: true, class: 'public' });
  });
});
