import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { constants } from 'node:os';
import type { CommandResult } from '../../core/commands/run';
import { attemptLine } from '../../core/network/record';
import { referenceLine, type PartIn, type PartOut } from '../../core/output/place';
import type { Policy } from '../../core/policy';
import type { ToolEnv } from './define';

/** Places an answer's parts within the session's output budget (ToolEnv.place). */
export type Place = (parts: readonly PartIn[]) => PartOut[];

/** The structured result of every command tool (zod, so the SDK validates what we send and clients see a schema). */
export const commandOutputShape = {
  outcome: z.enum(['ok', 'failed', 'denied', 'timeout', 'canceled', 'output_limit', 'error', 'started']),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** What the answer shows of each stream: all of it, or its head and tail within the output budget (the gap marked). */
  stdout: z.string(),
  stderr: z.string(),
  /** The shown stream is not all the command wrote (cut by the output limit, or by the answer's budget). */
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  /** Bytes the command wrote to each stream. */
  stdoutBytes: z.number().int(),
  stderrBytes: z.number().int(),
  /** readOutput's id for the whole kept stream, when this answer's text does not repeat it. */
  stdoutId: z.string().optional(),
  stderrId: z.string().optional(),
  durationMs: z.number(),
  queueMs: z.number(),
  approvalMs: z.number(),
  isolation: z.string(),
  approvedBy: z.string().optional(),
  /** The session's sandbox / root warning, in its first command result only (the instructions carry it too). */
  warning: z.string().optional(),
  /** A sandbox or child-environment limit that explains the failure, naming the setting that lifts it. */
  hint: z.object({ cause: z.enum(['git-read-only', 'network', 'program-missing']), text: z.string() }).optional(),
  /** About the request itself: a clamped timeout, a whole command line sent as one element. */
  notes: z.array(z.string()).optional(),
  error: z.string().optional(),
  denial: z.object({ code: z.string(), message: z.string(), rule: z.string() }).optional(),
  /** Every host the command tried through the egress proxy: allowed or refused, methods, bytes each way. */
  network: z.object({
    attempts: z.array(z.object({
      host: z.string(), port: z.number().int(), allowed: z.boolean(), methods: z.array(z.string()), requests: z.number().int(),
      bytesSent: z.number().int(), bytesReceived: z.number().int(), rule: z.string(), reason: z.string().optional(),
    })),
    omitted: z.number().int().optional(),
  }).optional(),
  /** A background run that started (outcome `started`): readOutput and shell_background take its id. */
  background: z.object({ id: z.string(), lifetimeSeconds: z.number(), inputOpen: z.boolean() }).optional(),
  /** What the command changed in the folder: previewed (applied, discarded, conflict) or recorded by a checkpoint. */
  effect: z.object({
    via: z.enum(['preview', 'checkpoint']),
    outcome: z.enum(['applied', 'discarded', 'conflict', 'failed', 'unchanged', 'recorded', 'not-recorded']),
    files: z.array(z.object({ path: z.string(), change: z.string(), detail: z.string().optional() })),
    more: z.number().int().optional(),
    /** The diff that was shown (cut past EFFECT_DIFF_CHARS). */
    diff: z.string().optional(),
    conflicts: z.array(z.object({ path: z.string(), why: z.string() })).optional(),
    undoable: z.boolean(),
    message: z.string(),
    decidedBy: z.string().optional(),
    decisionMs: z.number().optional(),
  }).optional(),
  /** mcp-shell-server's field names, for clients written against it. */
  status: z.number().int(),
  execution_time: z.number(),
};

/** What the tool layer adds: the session's one-time warning, notes about the request itself. */
export interface ResultNotes {
  /** The sandbox / root warning, only in the first command result of a session. */
  readonly warning?: string;
  readonly notes?: readonly string[];
  /** The sandbox hint, only the first time in a session for its cause (in the text and in structuredContent). */
  readonly hint?: string;
  /** The command name as sent, for the hint when it holds a whole command line. */
  readonly commandName?: string;
}

/**
 * A command result as MCP sends it. The bytes of stdout and stderr travel once, in structuredContent, within the
 * output budget (src/core/output/place.ts); the text repeats a short stream and says where a long one is.
 */
export function toToolResult(r: CommandResult, extra: ResultNotes, place: Place): CallToolResult {
  const status = r.exitCode ?? (r.outcome === 'ok' ? 0 : 1);
  const notes = [...(extra.notes ?? [])];
  if (r.denial?.code === 'COMMAND_NOT_ALLOWED' && extra.commandName !== undefined && /\s/.test(extra.commandName.trim())) {
    const words = extra.commandName.trim().split(/\s+/);
    notes.push(`Hint: "${extra.commandName}" is one element; put each argument in its own element: ${JSON.stringify(words)}.`);
  }
  const [stdout, stderr] = place([{ field: 'stdout', text: r.stdout }, { field: 'stderr', text: r.stderr }]) as [PartOut, PartOut];
  // The core result carries the sandbox warning on every call; the answer carries it once per session (extra.warning).
  // The same for the sandbox hint: in the answer the first time this session meets its cause (extra.hint).
  const { warning: _everyCall, hint: _everyHint, ...rest } = r;
  const structured = {
    ...rest,
    ...(r.effect && { effect: effectForAgent(r.effect) }),
    stdout: stdout.shown,
    stderr: stderr.shown,
    stdoutTruncated: r.stdoutTruncated || stdout.cut,
    stderrTruncated: r.stderrTruncated || stderr.cut,
    ...(stdout.id !== undefined && { stdoutId: stdout.id }),
    ...(stderr.id !== undefined && { stderrId: stderr.id }),
    ...(extra.warning && { warning: extra.warning }),
    ...(extra.hint && r.hint && { hint: r.hint }),
    ...(notes.length > 0 && { notes }),
    status,
    execution_time: r.durationMs / 1000,
  };
  const lines = [...(extra.warning ? [`Warning: ${extra.warning}`] : []), ...notes];
  const text = [describe(r, stdout, stderr), ...networkLines(r), ...effectLines(r)].join('\n');
  // After the output: the model reads the failure first, then what caused it.
  const hint = extra.hint ? [`Hint: ${extra.hint}`] : [];
  return {
    content: [{ type: 'text', text: r.denial ? [text, ...lines].join('\n') : [...lines, text, ...hint].join('\n') }],
    structuredContent: structured as unknown as Record<string, unknown>,
    isError: r.outcome !== 'ok' && r.outcome !== 'started',
  };
}

function describe(r: CommandResult, stdout: PartOut, stderr: PartOut): string {
  if (r.outcome === 'denied' && r.denial) return `Denied (${r.denial.code}, rule ${r.denial.rule}): ${r.denial.message}`;
  const parts: string[] = [];
  switch (r.outcome) {
    case 'failed': {
      const signal = r.signal ?? sandboxSignal(r);
      parts.push(
        signal
          ? `Error executing command: Command terminated by signal ${signal}${r.signal ? '' : ` (exit status ${r.exitCode})`}`
          : `Error executing command: Command failed with exit status ${r.exitCode}`,
      );
      break;
    }
    case 'timeout':
      parts.push(`Error executing command: timed out after ${(r.durationMs / 1000).toFixed(1)} s; the whole process tree was killed.`);
      break;
    case 'canceled':
      parts.push('Error executing command: canceled; the whole process tree was killed.');
      break;
    case 'output_limit':
      parts.push('Error executing command: output limit reached; the command was stopped and the first bytes are kept below.');
      break;
    case 'error':
      parts.push(`Error executing command: the process could not be started (${r.error ?? 'unknown error'}).`);
      break;
    case 'started': {
      const b = r.background!;
      parts.push(
        `Started in the background as ${b.id} (${r.isolation === 'none' ? 'no sandbox' : `sandbox ${r.isolation}`}); it runs until it exits, is stopped (shell_background {"id":"${b.id}","stop":true}), ` +
          `its session ends, or ${b.lifetimeSeconds} s pass. Its output (stdout and stderr together): readOutput {"id":"${b.id}"}, with "wait" and "until" to wait for a text or its end.` +
          (b.inputOpen ? ` Input: shell_background {"id":"${b.id}","input":"…"}.` : ''),
      );
      break;
    }
    default:
      break;
  }
  // With outputLimitAction "keep" the gap is marked inside the text; "kill" cuts the end, said here.
  const killed = r.outcome === 'output_limit';
  const stream = (p: PartOut, truncated: boolean, written: number) => {
    if (p.bytes === 0) return;
    const end = killed && truncated ? `\n[${p.field} cut: ${written} bytes written, the first part kept]` : written > p.bytes ? `\n[${p.field}: ${written} bytes written, ${p.bytes} kept]` : '';
    if (!p.inText) return void parts.push(referenceLine(p) + end);
    parts.push(p.field === 'stdout' ? p.shown + (killed ? end : '') : `[stderr]\n${p.shown}${killed ? end : ''}`);
  };
  stream(stdout, r.stdoutTruncated, r.stdoutBytes);
  stream(stderr, r.stderrTruncated, r.stderrBytes);
  if (parts.length === 0) parts.push(r.outcome === 'ok' ? '(no output; exit status 0)' : '(no output)');
  return parts.join('\n');
}

/** The diff of an effect in a result, at most: the card showed all of it to the person. */
export const EFFECT_DIFF_CHARS = 8000;

function effectForAgent(e: NonNullable<CommandResult['effect']>): NonNullable<CommandResult['effect']> {
  if (e.diff === undefined || e.diff.length <= EFFECT_DIFF_CHARS) return e;
  return { ...e, diff: `${e.diff.slice(0, EFFECT_DIFF_CHARS)}\n[diff cut: ${e.diff.length} characters in all]\n` };
}

/** The effect in words: the outcome, then (a few) files with what happened to each. */
function effectLines(r: CommandResult): string[] {
  const e = r.effect;
  if (!e) return [];
  const shown = e.files.slice(0, 20).map((f) => `[effect] ${f.change}: ${f.path}${f.detail ? ` (${f.detail})` : ''}`);
  const more = e.files.length - shown.length + (e.more ?? 0);
  return [`[effect] ${e.message}`, ...shown, ...(more > 0 ? [`[effect] … and ${more} more`] : [])];
}

/** One line per host the command tried (refused ones first: they are what a person acts on). */
function networkLines(r: CommandResult): string[] {
  if (!r.network) return [];
  const sorted = [...r.network.attempts].sort((a, b) => Number(a.allowed) - Number(b.allowed));
  return [...sorted.map((a) => `[network] ${attemptLine(a)}`), ...(r.network.omitted ? [`[network] … and ${r.network.omitted} more host(s)`] : [])];
}

/**
 * Inside a sandbox the sandbox's own process reports a child killed by signal N as exit status 128+N; name the
 * signal so a kill reads the same with and without a sandbox.
 */
function sandboxSignal(r: CommandResult): string | undefined {
  if (r.isolation === 'none' || r.exitCode === null || r.exitCode <= 128 || r.exitCode > 128 + 64) return undefined;
  const n = r.exitCode - 128;
  return Object.entries(constants.signals).find(([, v]) => v === n)?.[0];
}

const withWarning = (warning: string | undefined): { warning?: string } => (warning ? { warning } : {});

/** What a session says once: the sandbox warning (its first command result), each sandbox hint (once per cause). */
export function sessionNotes(env: Pick<ToolEnv, 'warnOnce' | 'hintOnce'>, r: CommandResult): { warning?: string; hint?: string } {
  const hint = r.hint && env.hintOnce(r.hint.cause) ? r.hint.text : undefined;
  return { ...withWarning(env.warnOnce(r.warning)), ...(hint && { hint }) };
}

/** A timeout above the maximum is clamped by the command pipeline; the agent is told, not left to guess. */
export function timeoutNote(asked: number | undefined, policy: Pick<Policy, 'maxTimeoutSeconds'>): string | undefined {
  if (asked === undefined || asked <= policy.maxTimeoutSeconds) return undefined;
  return `Note: timeout ${asked} s is above the server's maximum; ${policy.maxTimeoutSeconds} s was used (the maximum is the server's --max-timeout / guardedShell.timeout.max).`;
}

/**
 * A command that ran out of time below the maximum: the agent is told it may ask for more, and how much (a
 * default of 30 s stops an install or a test suite that needs a minute, and the result said only "timed out").
 */
export function timeoutAdvice(asked: number | undefined, r: Pick<CommandResult, 'outcome'>, policy: Pick<Policy, 'defaultTimeoutSeconds' | 'maxTimeoutSeconds'>): string | undefined {
  if (r.outcome !== 'timeout') return undefined;
  const used = Math.min(asked ?? policy.defaultTimeoutSeconds, policy.maxTimeoutSeconds);
  if (used >= policy.maxTimeoutSeconds) return undefined;
  return `Note: it had ${used} s. If it needs longer, call again with "timeout" up to ${policy.maxTimeoutSeconds} (seconds).`;
}
