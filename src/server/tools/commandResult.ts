import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CommandResult } from '../../core/commands/run';

/** The structured result of every command tool (zod, so the SDK validates what we send and clients see a schema). */
export const commandOutputShape = {
  outcome: z.enum(['ok', 'failed', 'denied', 'timeout', 'canceled', 'output_limit', 'error']),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  stdoutBytes: z.number().int(),
  stderrBytes: z.number().int(),
  durationMs: z.number(),
  queueMs: z.number(),
  approvalMs: z.number(),
  isolation: z.string(),
  approvedBy: z.string().optional(),
  warning: z.string().optional(),
  error: z.string().optional(),
  denial: z.object({ code: z.string(), message: z.string(), rule: z.string() }).optional(),
  /** mcp-shell-server's field names, for clients written against it. */
  status: z.number().int(),
  execution_time: z.number(),
};

export function toToolResult(r: CommandResult): CallToolResult {
  const status = r.exitCode ?? (r.outcome === 'ok' ? 0 : 1);
  const structured = { ...r, status, execution_time: r.durationMs / 1000 };
  return {
    content: [{ type: 'text', text: describe(r) }],
    structuredContent: structured as unknown as Record<string, unknown>,
    isError: r.outcome !== 'ok',
  };
}

function describe(r: CommandResult): string {
  if (r.outcome === 'denied' && r.denial) return `Denied (${r.denial.code}, rule ${r.denial.rule}): ${r.denial.message}`;
  const parts: string[] = [];
  switch (r.outcome) {
    case 'failed':
      parts.push(r.signal ? `Error executing command: Command terminated by signal ${r.signal}` : `Error executing command: Command failed with exit status ${r.exitCode}`);
      break;
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
    default:
      break;
  }
  if (r.warning) parts.push(`Warning: ${r.warning}`);
  if (r.stdout) parts.push(r.stdout + (r.stdoutTruncated ? `\n[stdout truncated: ${r.stdoutBytes} bytes written, first part kept]` : ''));
  if (r.stderr) parts.push(`[stderr]\n${r.stderr}${r.stderrTruncated ? `\n[stderr truncated: ${r.stderrBytes} bytes written]` : ''}`);
  if (parts.length === 0) parts.push(r.outcome === 'ok' ? '(no output; exit status 0)' : '(no output)');
  return parts.join('\n');
}
