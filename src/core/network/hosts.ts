import { unlistedHostAnswer, type Action } from '../modes';
import type { Policy } from '../policy';
import { allow, ask, deny, type Verdict } from '../verdict';
import { domainList, listHost, normalHost } from './domains';
import { DOMAIN_PRESET_NAMES, DOMAIN_PRESETS } from './presets';

/**
 * The verdict on one HOST, by name, before any lookup: the one rule the proxy (for commands) and the fetch tool
 * both follow with `network: domains`. A denied entry wins; a listed host is allowed (its addresses are judged
 * next, by the fetch tool's guard); an unlisted one is asked where the mode asks for the request's action and
 * refused elsewhere, with the setting that would allow it named.
 */

type DomainPolicy = Pick<Policy, 'network' | 'mode' | 'allowedDomains' | 'deniedDomains' | 'domainPresets'>;

/** `--allow-domain x` and, when one has it, the preset that lists it: how a person would let it in. */
export function howToAllow(host: string): string {
  const h = normalHost(host);
  const preset = DOMAIN_PRESET_NAMES.find((n) => (DOMAIN_PRESETS[n] as readonly string[]).includes(h));
  return `guardedShell.domains.allowed (--allow-domain ${h})${preset ? ` or the "${preset}" preset (guardedShell.domains.presets, --domain-preset ${preset})` : ''}`;
}

/**
 * The verdict for a host a request wants to reach with `network: domains`, for the mode's `action` (`command`
 * for what a sandboxed command reaches, `egress` for the fetch tool).
 */
export function hostVerdict(p: DomainPolicy, host: string, action: Action): Verdict {
  const listing = listHost(host, domainList(p));
  switch (listing.kind) {
    case 'invalid':
      return deny('NETWORK_DENIED', 'network.host.invalid', `${listing.reason}.`);
    case 'denied':
      return deny('NETWORK_DENIED', 'network.domain.denied', `${host} matches "${listing.entry}" in the denied domains (guardedShell.domains.denied, --deny-domain).`);
    case 'listed':
      return allow('network.domain.listed');
    case 'unlisted': {
      const answer = unlistedHostAnswer(p.mode, action);
      const why = `${host} is not on the allowed domains (network: domains)`;
      if (answer === 'ask') return ask('network.domain.unlisted', `${why}: allow it for this command, this session or always?`);
      return deny('NETWORK_DENIED', 'network.domain.unlisted', `${why}; add it to ${howToAllow(host)}.`);
    }
  }
}

/**
 * What a sandboxed command's connection gets when the network setting is not `domains`: the proxy refuses every
 * host (`fetch`, `deny`), at once and saying which setting would let it through, instead of the command retrying a
 * lookup that can never work.
 */
export function commandHostVerdict(p: DomainPolicy, host: string): Verdict {
  if (p.network === 'domains') return hostVerdict(p, host, 'command');
  return deny(
    'NETWORK_DENIED',
    `network.${p.network}`,
    `${host}: sandboxed commands reach no host with network: ${p.network}; use network: domains (guardedShell.network, --network domains) with the host on ${howToAllow(host)}.`,
  );
}
