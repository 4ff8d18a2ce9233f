import { beforeEach, describe, inject, it, type TestContext } from 'vitest';
import { strict, summaryLine, type Capability, type CapabilityStatus } from './capabilities';

/**
 * The test side of the capability probes (test/helpers/capabilities.ts): the global setup probes once and provides
 * the results; these read them. Missing → the tests are skipped (the global setup prints one summary line per
 * capability); under GUARDED_SHELL_STRICT=1 they fail instead, with the same line as the error.
 */

export function capability(name: Capability): CapabilityStatus {
  const all = inject('capabilities');
  if (!all) throw new Error('capabilities were not probed: run the tests through a vitest config with test/helpers/globalSetup.ts');
  return all[name];
}

/** True when every capability is available. */
export function has(...names: Capability[]): boolean {
  return names.every((n) => capability(n).available);
}

function missingLine(names: readonly Capability[]): string | undefined {
  const missing = names.filter((n) => !capability(n).available);
  return missing.length ? missing.map((n) => summaryLine(n, capability(n), strict())).join(' | ') : undefined;
}

/**
 * For a whole file (call at the top level): every test in it is skipped (or fails, strictly) when a capability is
 * missing. Returns whether they are all available, for the file's own beforeAll to return early on.
 */
export function requires(...names: Capability[]): boolean {
  const line = missingLine(names);
  if (line) {
    beforeEach((ctx) => {
      if (strict()) throw new Error(line);
      ctx.skip(line); // skipped: a capability this machine lacks (the line names it and how to install it)
    });
  }
  return !line;
}

/**
 * `describe` for suites that need the capabilities: when one is missing the suite is skipped whole (its hooks do
 * not run either), or, strictly, replaced by one failing test that says what is missing.
 */
export function describeWith(...names: Capability[]): (title: string, body: () => void) => void {
  const line = missingLine(names);
  if (!line) return (title, body) => describe(title, body);
  if (strict()) return (title) => describe(title, () => it(`has ${names.join(' and ')}`, () => { throw new Error(line); }));
  // GUARDED_SHELL_STRICT (CI) takes the branch above instead, so CI cannot pass by skipping.
  // Reason for the skip: a capability this machine lacks (the global setup prints which, and how to install it).
  return (title, body) => describe.skip(title, body); // skipped: a capability this machine lacks (named at the start)
}

/** For one test: skips it (or fails it, strictly) when a capability is missing. */
export function skipWithout(ctx: TestContext, ...names: Capability[]): void {
  const line = missingLine(names);
  if (!line) return;
  if (strict()) throw new Error(line);
  ctx.skip(line); // skipped: a capability this machine lacks (the line names it and how to install it)
}

declare module 'vitest' {
  export interface ProvidedContext {
    capabilities: Record<Capability, CapabilityStatus>;
  }
}
