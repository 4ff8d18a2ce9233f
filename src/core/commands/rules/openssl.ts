import { allow, deny } from '../../verdict';
import type { FamilyRule } from './types';

/**
 * openssl (1.1 and 3.x): options that load a shared object into openssl — `-engine PATH` (a path is loaded as a
 * dynamic engine; seen to run the object's constructor), `-provider-path DIR` with `-provider NAME`, and
 * `-config`/`-conf FILE` (a configuration file can load engines and providers). openssl takes `-name` and
 * `--name`, values separate or after `=`. Denied (`openssl.load-module`): every option whose name contains
 * "engine" (`-engine`, `-keygen_engine`, `-ssl_client_engine` …), starts with "provider", or is config/conf.
 */
export const opensslRule: FamilyRule = (args) => {
  for (const tok of args) {
    if (!tok.startsWith('-') || tok === '-' || tok === '--') continue;
    const name = tok.replace(/^-{1,2}/, '').split('=')[0]!.toLowerCase();
    if (name.includes('engine') || name.startsWith('provider') || name === 'config' || name === 'conf') {
      return deny('ARGUMENT_FORBIDDEN', 'openssl.load-module', `openssl ${tok} is not allowed: it loads a shared object (an engine or provider), directly or through a configuration file, into openssl.`);
    }
  }
  return allow('openssl.ok');
};
