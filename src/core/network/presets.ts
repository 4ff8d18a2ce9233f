/**
 * Domain presets: small lists of the hosts a package manager or a code host needs, as DATA (not code), so
 * `--domain-preset npm` / `guardedShell.domains.presets: ["npm"]` says exactly which hosts it lets in. Each
 * list is what the tool's default configuration contacts to resolve and download packages, nothing more
 * (no telemetry, no documentation sites). A preset adds to `allowedDomains`; `deniedDomains` still wins.
 */
export const DOMAIN_PRESETS = {
  npm: ['registry.npmjs.org'],
  yarn: ['registry.yarnpkg.com', 'registry.npmjs.org', 'repo.yarnpkg.com'],
  pypi: ['pypi.org', 'files.pythonhosted.org'],
  crates: ['crates.io', 'index.crates.io', 'static.crates.io'],
  go: ['proxy.golang.org', 'sum.golang.org'],
  github: ['github.com', 'api.github.com', 'codeload.github.com', 'objects.githubusercontent.com', 'raw.githubusercontent.com', 'release-assets.githubusercontent.com'],
  rubygems: ['rubygems.org', 'index.rubygems.org'],
  maven: ['repo.maven.apache.org', 'repo1.maven.org'],
} as const satisfies Record<string, readonly string[]>;

export type DomainPreset = keyof typeof DOMAIN_PRESETS;
export const DOMAIN_PRESET_NAMES = Object.keys(DOMAIN_PRESETS) as [DomainPreset, ...DomainPreset[]];
