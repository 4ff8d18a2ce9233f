import { describe, expect, it } from 'vitest';
import { domainEntryProblem, domainList, entryCovers, listHost, narrowDomains } from '../../../src/core/network/domains';
import { commandHostVerdict, hostVerdict } from '../../../src/core/network/hosts';
import { DOMAIN_PRESET_NAMES, DOMAIN_PRESETS } from '../../../src/core/network/presets';
import { parsePolicy, PolicyError } from '../../../src/core/policy';
import { checkValue } from '../../../src/core/config/settings';

const list = (allowed: string[], denied: string[] = []) => ({ allowed, denied });

describe('domain list entries', () => {
  it.each(['registry.npmjs.org', 'REGISTRY.npmjs.org.', '*.github.com', '203.0.113.7', '[2001:db8::1]', '2001:db8::1', 'xn--bcher-kva.example', '_service.example.org'])('accepts %s', (e) => {
    expect(domainEntryProblem(e)).toBeUndefined();
  });

  it.each([
    ['*', /every host/],
    ['*.', /every host|not a host name/],
    ['a.*.example.org', /first label/],
    ['*example.org', /first label/],
    ['bücher.example', /xn--/],
    ['has space.org', /white space/],
    ['http://example.org', /not a host name/],
    ['example.org/path', /not a host name/],
    ['example.org:443', /not a host name/],
    ['user@example.org', /not a host name/],
    ['*.10.0.0.1', /IP address/],
    ['-bad-.org', /not a host name/],
    ['', /empty/],
  ])('refuses %j', (e, why) => {
    expect(domainEntryProblem(e)).toMatch(why);
  });

  it('a bad entry is a setting error naming the flag and the entry', () => {
    expect(() => checkValue('allowedDomains', ['ok.example', 'http://x.example'], '--allow-domain')).toThrow(PolicyError);
    expect(() => checkValue('allowedDomains', ['http://x.example'], '--allow-domain')).toThrow(/--allow-domain: entry 0 \("http:\/\/x.example"\)/);
  });
});

describe('which hosts an entry lets in', () => {
  it('an exact name matches itself only, without case or a trailing dot', () => {
    const l = list(['registry.npmjs.org']);
    expect(listHost('registry.npmjs.org', l).kind).toBe('listed');
    expect(listHost('Registry.NPMJS.org.', l).kind).toBe('listed');
    expect(listHost('evil.registry.npmjs.org', l).kind).toBe('unlisted');
    expect(listHost('registry.npmjs.org.evil.com', l).kind).toBe('unlisted');
    expect(listHost('xregistry.npmjs.org', l).kind).toBe('unlisted');
  });

  it('*.suffix matches the names strictly below it, never the suffix itself nor a name that merely ends the same way', () => {
    const l = list(['*.github.com']);
    expect(listHost('api.github.com', l).kind).toBe('listed');
    expect(listHost('a.b.github.com', l).kind).toBe('listed');
    expect(listHost('github.com', l).kind).toBe('unlisted');
    expect(listHost('evilgithub.com', l).kind).toBe('unlisted');
  });

  it('an IP address is listed only by its own entry, whatever its spelling (an attacker cannot spell past the list)', () => {
    const l = list(['203.0.113.7', '2001:db8::1']);
    for (const spelled of ['203.0.113.7', '0xcb.0x00.0x71.0x07', '3405803783', '0313.0.0161.07', '[2001:db8:0::1]', '2001:0db8::0001']) expect(listHost(spelled, l).kind, spelled).toBe('listed');
    expect(listHost('203.0.113.8', l).kind).toBe('unlisted');
    // A name entry never lets in an address, and *.suffix never matches an address.
    expect(listHost('127.0.0.1', list(['localhost', '*.0.0.1'].filter((e) => !domainEntryProblem(e)))).kind).toBe('unlisted');
  });

  it('a denied entry wins over an allowed one and over a preset', () => {
    const l = domainList({ allowedDomains: ['*.github.com'], deniedDomains: ['gist.github.com', 'raw.githubusercontent.com'], domainPresets: ['github'] });
    expect(listHost('api.github.com', l).kind).toBe('listed');
    expect(listHost('gist.github.com', l)).toEqual({ kind: 'denied', entry: 'gist.github.com' });
    expect(listHost('raw.githubusercontent.com', l).kind).toBe('denied');
  });

  it('a host that is no host name at all is refused as invalid (a CONNECT target or URL host with odd characters)', () => {
    expect(listHost('a b.example', list(['*.example'])).kind).toBe('invalid');
    expect(listHost('exa\u0000mple.org', list(['exa\u0000mple.org'])).kind).toBe('invalid');
  });

  it('presets are data: each names a few registry hosts, all valid entries', () => {
    for (const name of DOMAIN_PRESET_NAMES) {
      expect(DOMAIN_PRESETS[name].length).toBeGreaterThan(0);
      for (const h of DOMAIN_PRESETS[name]) expect(domainEntryProblem(h), `${name}: ${h}`).toBeUndefined();
    }
    expect(domainList({ allowedDomains: [], deniedDomains: [], domainPresets: ['npm'] }).allowed).toEqual(['registry.npmjs.org']);
  });
});

describe('a workspace may only narrow the list', () => {
  it('keeps exactly the entries the user list covers', () => {
    expect(entryCovers('*.example.org', 'a.example.org')).toBe(true);
    expect(entryCovers('*.example.org', '*.a.example.org')).toBe(true);
    expect(entryCovers('*.example.org', 'example.org')).toBe(false);
    expect(entryCovers('a.example.org', '*.example.org')).toBe(false);
    expect(entryCovers('203.0.113.7', '0xcb007107')).toBe(true);
    expect(narrowDomains(['*.example.org', 'pypi.org'], ['a.example.org', 'evil.test', 'pypi.org', '*.example.org', 'example.org'])).toEqual({
      kept: ['a.example.org', 'pypi.org', '*.example.org'],
      dropped: ['evil.test', 'example.org'],
    });
  });
});

describe('the verdict on a host (proxy and fetch tool alike)', () => {
  const policy = (over: Record<string, unknown> = {}) => parsePolicy({ root: '/tmp', network: 'domains', allowedDomains: ['allowed.test'], deniedDomains: ['bad.allowed.test'], ...over });

  it('listed: allowed; denied: refused naming the denied list; unlisted: asked where the mode asks, else refused naming the setting', () => {
    expect(hostVerdict(policy({ mode: 'auto' }), 'allowed.test', 'command').kind).toBe('allow');
    expect(hostVerdict(policy(), 'bad.allowed.test', 'command')).toMatchObject({ kind: 'deny', rule: 'network.domain.denied' });
    expect(hostVerdict(policy({ mode: 'confirm' }), 'other.test', 'command')).toMatchObject({ kind: 'ask', rule: 'network.domain.unlisted' });
    expect(hostVerdict(policy({ mode: 'confirmChanges' }), 'other.test', 'command').kind).toBe('ask');
    const auto = hostVerdict(policy({ mode: 'auto' }), 'other.test', 'command');
    expect(auto).toMatchObject({ kind: 'deny', rule: 'network.domain.unlisted' });
    expect(auto.kind === 'deny' && auto.reason).toMatch(/guardedShell\.domains\.allowed \(--allow-domain other\.test\)/);
    expect(hostVerdict(policy({ mode: 'readOnly' }), 'other.test', 'command').kind).toBe('deny');
    // The fetch tool's action: confirmChanges does not ask about a fetch, so an unlisted host is refused there.
    expect(hostVerdict(policy({ mode: 'confirmChanges' }), 'other.test', 'egress').kind).toBe('deny');
  });

  it('a refusal names the preset that lists the host', () => {
    const v = hostVerdict(policy({ mode: 'auto' }), 'registry.npmjs.org', 'command');
    expect(v.kind === 'deny' && v.reason).toMatch(/--domain-preset npm/);
  });

  it('with network fetch or deny every host a command tries is refused at once, naming network: domains', () => {
    for (const network of ['fetch', 'deny'] as const) {
      const v = commandHostVerdict(policy({ network, mode: 'confirm' }), 'allowed.test');
      expect(v).toMatchObject({ kind: 'deny', rule: `network.${network}` });
      expect(v.kind === 'deny' && v.reason).toMatch(/use network: domains \(guardedShell\.network, --network domains\)/);
    }
  });
});
