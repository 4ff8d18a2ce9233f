import type { ApprovalOption, ApprovalRequest } from '../../core/approval';
import type { Card, ChangeCardData, DiffLine, EffectCardData } from '../webviewProtocol';

/**
 * Approval requests as cards for the panel, without VS Code and without HTML (unit-tested in plain Node). The page
 * only draws what is computed here; the host decides which options a card offers.
 */

/** Diff lines sent to the page; a longer diff is cut (the diff editor shows the whole change). */
export const MAX_DIFF_LINES = 2000;
/** stdin lines shown on a card. */
export const STDIN_PREVIEW_LINES = 10;

/**
 * The options the server honours for a request. Session and 15-minute approvals are remembered by the server for
 * command lines (ApprovalMemory, keyed by the exact command line) and for a running command's hosts (keyed by
 * host), and "always" is written to the user's `guardedShell.autoApprove` (command lines) or
 * `guardedShell.domains.allowed` (a host): offering them for a file change or a fetch would be a button
 * that silently does less than it says.
 */
export function optionsFor(request: ApprovalRequest): ApprovalOption[] {
  return request.command || (request.network && !request.fetch) ? ['once', 'session', 'timed', 'always'] : ['once'];
}

export function toCard(request: ApprovalRequest, folder: string, since: number): Card {
  const card: Card = {
    id: request.id,
    tool: request.tool,
    folder,
    rule: request.rule,
    reason: request.reason,
    since,
    options: optionsFor(request),
    ...(request.fetch && { fetch: { url: request.fetch.url } }),
    ...(request.command && request.rules?.length && { rules: [...request.rules] }),
    ...(request.network && { network: { ...request.network } }),
  };
  if (request.command) {
    const c = request.command;
    const stdin = c.stdinPreview === undefined ? undefined : c.stdinPreview.split('\n');
    return {
      ...card,
      command: {
        stages: c.stages.map((s) => [...s]),
        cwd: c.cwd,
        isolation: c.isolation,
        ...(stdin && { stdinLines: stdin.slice(0, STDIN_PREVIEW_LINES), stdinMore: stdin.length > STDIN_PREVIEW_LINES }),
        ...(c.stdinFile !== undefined && { stdinFile: c.stdinFile }),
        ...(c.stdoutFile && { stdoutFile: { path: c.stdoutFile.path, append: c.stdoutFile.append } }),
        ...(c.notListed?.length && { notListed: [...c.notListed] }),
        ...(c.runsAnyCode?.length && { runsAnyCode: c.runsAnyCode.map((r) => ({ stage: r.stage, note: r.note })) }),
        ...(c.background && { background: { ...c.background } }),
      },
    };
  }
  if (request.change) return { ...card, change: changeCard(request) };
  if (request.effect) return { ...card, effect: effectCard(request) };
  return card;
}

function effectCard(request: ApprovalRequest): EffectCardData {
  const e = request.effect!;
  const lines = parseUnifiedDiff(e.diff);
  const shown = lines.slice(0, MAX_DIFF_LINES);
  return {
    stages: e.stages.map((s) => [...s]), cwd: e.cwd, outcome: e.outcome, exitCode: e.exitCode, stdout: e.stdout, stderr: e.stderr,
    files: e.files.map((f) => ({ path: f.path, change: f.change, ...(f.detail !== undefined && { detail: f.detail }) })), more: e.more,
    diff: shown, added: lines.filter((l) => l.kind === 'add').length, removed: lines.filter((l) => l.kind === 'del').length,
    ...(lines.length > shown.length && { diffOmitted: lines.length - shown.length }),
    limits: e.limits, canOpenDiff: canOpenDiff(request),
  };
}

function changeCard(request: ApprovalRequest): ChangeCardData {
  const ch = request.change!;
  const base = { kind: ch.kind, files: [...ch.files], canOpenDiff: canOpenDiff(request) };
  if (ch.diff === undefined) return { ...base, added: 0, removed: 0 };
  const lines = parseUnifiedDiff(ch.diff);
  const added = lines.filter((l) => l.kind === 'add').length;
  const removed = lines.filter((l) => l.kind === 'del').length;
  const shown = lines.slice(0, MAX_DIFF_LINES);
  return { ...base, diff: shown, added, removed, ...(lines.length > shown.length && { diffOmitted: lines.length - shown.length }) };
}

/** A change can be opened in the diff editor when the server sent the proposed content of exactly one file. */
export function canOpenDiff(request: ApprovalRequest): boolean {
  const ch = request.change;
  if (request.effect) return request.effect.proposed !== undefined && request.effect.files.length === 1;
  return !!ch && ch.proposed !== undefined && ch.files.length >= 1;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Parses a unified diff (the `diff` package's output, git-style headers) into lines with old/new line numbers.
 * Inside a hunk the header's counts decide what is content, so a removed line that reads `-- x` (shown `--- x`)
 * is a removed line, not a file header.
 */
export function parseUnifiedDiff(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  const lines = diff.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop(); // the diff's own final newline
  let oldNo = 0;
  let newNo = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (oldLeft > 0 || newLeft > 0) {
      const sign = line[0];
      const text = line.slice(1);
      if (sign === '+' && newLeft > 0) {
        out.push({ kind: 'add', newNo: newNo++, text });
        newLeft--;
        continue;
      }
      if (sign === '-' && oldLeft > 0) {
        out.push({ kind: 'del', oldNo: oldNo++, text });
        oldLeft--;
        continue;
      }
      if ((sign === ' ' || line === '') && oldLeft > 0 && newLeft > 0) {
        out.push({ kind: 'ctx', oldNo: oldNo++, newNo: newNo++, text });
        oldLeft--;
        newLeft--;
        continue;
      }
      if (sign === '\\') {
        out.push({ kind: 'note', text: line.slice(2) });
        continue;
      }
      // A line the counts do not allow: the diff is malformed from here on; show it as-is, never guess numbers.
      oldLeft = newLeft = 0;
    }
    const h = HUNK.exec(line);
    if (h) {
      oldNo = Number(h[1]);
      oldLeft = h[2] === undefined ? 1 : Number(h[2]);
      newNo = Number(h[3]);
      newLeft = h[4] === undefined ? 1 : Number(h[4]);
      // An empty side starts "after line N": its first real line would be N+1.
      if (oldLeft === 0) oldNo++;
      if (newLeft === 0) newNo++;
      out.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('--- ') || line.startsWith('+++ ')) {
      out.push({ kind: 'file', text: line });
    } else if (line.startsWith('\\')) {
      out.push({ kind: 'note', text: line.slice(2) });
    } else if (line.startsWith('===') || line.startsWith('Index: ')) {
      continue; // decoration some diff writers add; it carries nothing the headers do not
    } else {
      out.push({ kind: 'info', text: line });
    }
  }
  return out;
}
