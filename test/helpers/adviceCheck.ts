import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_ALLOW_COMMANDS } from '../../src/core/config/values';
import { commandOffered, offers, redirectOffered } from '../../src/core/offers';
import type { Policy } from '../../src/core/policy';
import { TOOL_NAMES, type ToolName } from '../../src/core/toolNames';
import { REPO } from './serverProcess';

/**
 * Finds advice a message gives that the policy refuses: a tool it does not offer, a program the allowlist does not
 * let run (in an argv example, a `command "x"` example or an example list "(a, b …)"), a redirect where none can
 * run, a backup the setting does not keep. Used by test/integration/messages.test.ts on every description,
 * instruction and refusal under several policies.
 */

/** What a message is about (the tool called, the programs of its request): naming them is no advice. */
export interface Subject {
  readonly tool?: string;
  readonly programs?: readonly string[];
}

/**
 * Program names the check knows: the default allowlist, the rule families and every name the rules list (shells,
 * interpreters, wrappers …), read from the rules' source so a name added there is known here.
 */
export const PROGRAMS: ReadonlySet<string> = (() => {
  const names = new Set<string>([...DEFAULT_ALLOW_COMMANDS, 'git', 'sed', 'awk', 'tar', 'zip', 'wget', 'curl', 'openssl', 'gcc', 'make', 'npm', 'npx', 'node', 'python3', 'rg', 'tree', 'touch', 'cp', 'mv', 'rm']);
  const rules = path.join(REPO, 'src/core/commands/rules');
  for (const f of ['forbidden.ts', 'families.ts']) {
    for (const m of fs.readFileSync(path.join(rules, f), 'utf8').matchAll(/'([a-z][a-z0-9+._-]{1,})'/g)) names.add(m[1]!);
  }
  return names;
})();

/** Tool names that are also words or programs ("fetch", "mkdir"): counted only as "the X tool" or `X` in code. */
const AMBIGUOUS = new Set<ToolName>(['fetch', 'mkdir', 'rmdir']);
const PHRASES: ReadonlyArray<readonly [RegExp, ToolName]> = [
  [/\bthe edit tool\b/i, 'editFile'],
  [/\bthe shell tool\b/i, 'shell_execute'],
  [/\bthe fetch tool\b/i, 'fetch'],
];

const JSON_ARRAY = /\[\s*"(?:[^"\\]|\\.)*"(?:\s*,\s*"(?:[^"\\]|\\.)*")*\s*\]/g;

export function adviceProblems(text: string, policy: Policy, subject: Subject = {}): string[] {
  const problems: string[] = [];
  const exempt = new Set(subject.programs ?? []);
  const tool = (t: ToolName, why: string) => {
    if (t !== subject.tool && !offers(policy, t)) problems.push(`names ${t} (${why}), which this policy does not offer`);
  };
  for (const t of TOOL_NAMES) {
    const plain = new RegExp(`(?<![\\w.-])${t}(?![\\w-])`);
    if (AMBIGUOUS.has(t) ? new RegExp(`\`${t}\``).test(text) : plain.test(text)) tool(t, 'by name');
  }
  for (const [re, t] of PHRASES) if (re.test(text)) tool(t, re.source);
  const program = (p: string, where: string) => {
    if (PROGRAMS.has(p) && !exempt.has(p) && !commandOffered(policy, p)) problems.push(`shows ${p} in ${where}, which the allowlist does not let run`);
  };
  for (const m of text.matchAll(JSON_ARRAY)) {
    let argv: string[];
    try {
      argv = JSON.parse(m[0]) as string[];
    } catch {
      continue;
    }
    argv.forEach((a, i) => (i === 0 || argv[i - 1] === '|') && program(a, m[0]));
    if ((argv.includes('>') || argv.includes('>>')) && !redirectOffered(policy)) problems.push(`shows a redirect (${m[0]}) where none can run`);
  }
  for (const m of text.matchAll(/\bcommand "([^"]+)"/g)) program(m[1]!, m[0]);
  for (const m of text.matchAll(/\(([^()]*?) …\)/g)) for (const item of m[1]!.split(', ')) program(item.split(' ')[0]!, m[0]);
  if (/\.bk[0-9N]\b|numbered backup/.test(text) && policy.editBackup !== 'numbered') problems.push(`promises a numbered backup; editBackup is ${policy.editBackup}`);
  if (/(kept|store) outside the workspace|undone from the history/.test(text) && policy.editBackup !== 'storage') problems.push(`promises the backup store; editBackup is ${policy.editBackup}`);
  if (/\b(add|use) (a|the server'?s?) redirects?\b/i.test(text) && !redirectOffered(policy)) problems.push('advises a redirect where none can run');
  return problems;
}
