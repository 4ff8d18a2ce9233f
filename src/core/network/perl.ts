import * as fs from 'node:fs';

const PERL_DIRS = ['/usr/bin', '/bin', '/usr/local/bin'];

/**
 * The perl that runs the sandbox's network bridge (bridge.pl): a fixed system location, visible inside the sandbox,
 * never the agent-influenced PATH.
 */
export function findPerl(): string | undefined {
  return PERL_DIRS.map((d) => `${d}/perl`).find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
