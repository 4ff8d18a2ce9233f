import { editToolOffered, offers, redirectOffered } from './offers';
import type { Policy } from './policy';

/**
 * The advice a refusal gives, computed from the live policy. A rule states the fact in its own message ("sed -i
 * edits files in place"); the route that works is added here, per rule id, and only when the policy offers it: an
 * agent told "use the edit tool" where editFile is disabled, or "use a redirect" in mode readOnly, is sent the
 * wrong way. Applied once, by the guarded pipeline, to every refusal of every tool (src/core/pipeline.ts).
 */

type Advice = (policy: Policy) => string | undefined;

/** Write to standard output and let the server's `>` redirect place it, where a redirect can run. */
const redirect: Advice = (p) =>
  redirectOffered(p) ? 'Write to standard output and add a redirect instead (in shell_execute: ">", "out.txt" as the last two elements).' : 'Write to standard output instead.';

/** The file tools edit a file after showing a diff. */
const edit: Advice = (p) => {
  const tool = editToolOffered(p);
  return tool ? `Use ${tool} to change the file: it shows a diff first.` : 'File changes are not offered here.';
};

const ADVICE: Readonly<Record<string, Advice>> = {
  'sed.in-place': edit,
  'sort.output-file': redirect,
  'git.output-file': redirect,
  'awk.': redirect,
  'replace.empty': (p) => (offers(p, 'writeFile') ? 'To write a whole file, use writeFile.' : undefined),
};

/** The advice for a rule id (an exact id, or a family prefix ending in "."), or undefined. */
export function adviceFor(rule: string | undefined, policy: Policy): string | undefined {
  if (rule === undefined) return undefined;
  const exact = Object.prototype.hasOwnProperty.call(ADVICE, rule) ? ADVICE[rule] : undefined;
  const family = exact ?? ADVICE[rule.slice(0, rule.indexOf('.') + 1)];
  return family?.(policy);
}

/** A refusal's message with the route that works under this policy, when its rule has one. */
export function withAdvice(message: string, rule: string | undefined, policy: Policy): string {
  const advice = adviceFor(rule, policy);
  return advice ? `${message} ${advice}` : message;
}
