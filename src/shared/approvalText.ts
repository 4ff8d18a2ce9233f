import type { ApprovalRequest } from '../core/approval';

/**
 * The text of an approval question, without VS Code (unit-tested). It shows exactly what will happen: every argv
 * element JSON-quoted (so spaces, quotes and odd characters are visible), the working directory, redirects, and for
 * a change its files and the first lines of its diff.
 */

export const DIFF_PREVIEW_LINES = 30;

export interface ApprovalText {
  /** One line: who asks what. */
  readonly message: string;
  /** The details, several lines. */
  readonly detail: string;
}

export function quoteArgv(argv: readonly string[]): string {
  return argv.map((a) => JSON.stringify(a)).join(' ');
}

export function describeApproval(r: ApprovalRequest, folderName: string): ApprovalText {
  const lines: string[] = [];
  if (r.command) {
    const c = r.command;
    lines.push(`Command: ${c.stages.map(quoteArgv).join(' | ')}`);
    lines.push(`In: ${c.cwd === '.' ? `${folderName} (workspace root)` : c.cwd}`);
    if (c.stdinFile) lines.push(`stdin from: ${c.stdinFile}`);
    if (c.stdoutFile) lines.push(`stdout ${c.stdoutFile.append ? 'appended to' : 'written to (replacing it)'}: ${c.stdoutFile.path}`);
    if (c.stdinPreview !== undefined) lines.push(`stdin:\n${c.stdinPreview}`);
    lines.push(`Isolation: ${c.isolation === 'none' ? 'none (runs with your permissions)' : c.isolation}`);
    if (c.notListed?.length) lines.push(`Not on your allowlist: ${c.notListed.map((i) => JSON.stringify(c.stages[i]?.[0] ?? '')).join(', ')}`);
    for (const r of c.runsAnyCode ?? []) lines.push(r.note);
  }
  if (r.change) {
    lines.push(`Change (${r.change.kind}): ${r.change.files.join(' -> ')}`);
    if (r.change.diff) {
      const diff = r.change.diff.split('\n');
      lines.push(diff.slice(0, DIFF_PREVIEW_LINES).join('\n'));
      if (diff.length > DIFF_PREVIEW_LINES) lines.push(`… ${diff.length - DIFF_PREVIEW_LINES} more diff line(s)`);
    }
  }
  if (r.effect) {
    const e = r.effect;
    lines.push(`Command (already run against a copy-on-write view): ${e.stages.map(quoteArgv).join(' | ')}`);
    lines.push(`It ended: ${e.outcome}${e.exitCode === null ? '' : `, exit status ${e.exitCode}`}`);
    lines.push(`Changes (Apply writes them, Discard drops them): ${e.files.length + e.more} file(s)`);
    for (const f of e.files.slice(0, DIFF_PREVIEW_LINES)) lines.push(`  ${f.change}: ${f.path}${f.detail ? ` (${f.detail})` : ''}`);
    const diff = e.diff.split('\n');
    lines.push(diff.slice(0, DIFF_PREVIEW_LINES).join('\n'));
    if (diff.length > DIFF_PREVIEW_LINES) lines.push(`… ${diff.length - DIFF_PREVIEW_LINES} more diff line(s)`);
    lines.push(e.limits);
  }
  if (r.fetch) lines.push(`Fetch: ${r.fetch.url}`);
  if (r.network) {
    lines.push(`Host: ${r.network.host}:${r.network.port} (${r.network.method}), not on the allowed domains`);
    if (r.network.command !== undefined) lines.push(`Asked by the running command: ${r.network.command}`);
  }
  lines.push(`Why asked: ${r.reason || r.rule}`);
  const what = r.network && !r.fetch ? `${r.network.host} for ${r.tool}` : r.tool;
  if (r.effect) return { message: `Guarded Shell (${folderName}): apply the changes of ${r.tool}?`, detail: lines.join('\n') };
  return { message: `Guarded Shell (${folderName}): allow ${what}?`, detail: lines.join('\n') };
}
