import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

/**
 * Structured, redacted audit. One event per request and per decision. Field names follow mcp-shell-server's
 * `shell_execution_audit` record so existing log tooling keeps working. stdout/stderr BODIES are never logged.
 */

export type ResultType =
  | 'success'
  | 'failed'
  | 'rejected'
  | 'timeout'
  | 'canceled'
  | 'output_limit'
  | 'process_error'
  | 'approved'
  | 'approval_denied';

export interface AuditEvent {
  readonly event: string; // 'shell_execution_audit' | 'file_audit' | 'fetch_audit' | 'approval_audit' | 'server'
  readonly tool?: string;
  readonly request_id?: string;
  readonly result_type?: ResultType;
  readonly [field: string]: unknown;
}

export interface AuditRecord extends AuditEvent {
  readonly timestamp: string;
}

export interface AuditSink {
  write(record: AuditRecord): void;
  close?(): void;
}

const SECRET_MARKERS = ['SECRET', 'TOKEN', 'PASSWORD', 'PASSWD', 'API_KEY', 'APIKEY', 'ACCESS_KEY', 'PRIVATE_KEY', 'KEY', 'CREDENTIAL', 'AUTH', 'COOKIE', 'SESSION'];
const SECRET_VALUE = [
  /^(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{20,}/, // GitHub tokens
  /^sk-[A-Za-z0-9_-]{16,}/, // OpenAI-style keys
  /^(?:AKIA|ASIA)[A-Z0-9]{16}$/, // AWS access key ids
  /^xox[abprs]-[A-Za-z0-9-]{10,}/, // Slack
  /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./, // JWT
  /^(?:Bearer|Basic)\s+\S+/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];
export const REDACTED = '[REDACTED]';
/** Output and input bodies never reach the log, whoever builds the event. */
const BODY_FIELDS = new Set(['stdout', 'stderr', 'stdin']);
/** Values longer than this that are not numbers are logged as a short digest instead. */
const LONG_VALUE = 64;

export function looksSecretName(name: string): boolean {
  const upper = name.toUpperCase().replace(/-/g, '_');
  return SECRET_MARKERS.some((m) => upper.includes(m));
}

export function looksSecretValue(value: string): boolean {
  return SECRET_VALUE.some((re) => re.test(value)) || /:\/\/[^/\s:@]+:[^/\s@]+@/.test(value); // user:pass@ in URLs
}

export function digest(value: string): string {
  return `sha256:${createHash('sha256').update(value).digest('hex').slice(0, 12)}`;
}

/** A value as it may appear in the log: redacted when secret-like, a digest when long. */
export function redactValue(value: string): string {
  if (looksSecretValue(value) || containsSecret(value)) return REDACTED;
  if (value.length > LONG_VALUE && !/^-?\d+(?:\.\d+)?$/.test(value)) return digest(value);
  return value;
}

/** A header-like `Name: value` with a secret-looking name, or a secret-looking word anywhere inside. */
function containsSecret(value: string): boolean {
  const header = /^\s*([A-Za-z0-9_-]+)\s*:\s*\S/.exec(value);
  if (header && looksSecretName(header[1]!)) return true;
  return /\s/.test(value) && value.split(/\s+/).some((w) => looksSecretValue(w) || /^(?:Bearer|Basic)$/i.test(w));
}

/**
 * Redacts an argv: `--token=abc` keeps its name, `--password abc` hides the next element, secret-looking values
 * are hidden wherever they stand, long values become digests.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  let hideNext = false;
  for (const arg of argv) {
    if (hideNext) {
      out.push(REDACTED);
      hideNext = false;
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0 && looksSecretName(arg.slice(0, eq))) {
      out.push(`${arg.slice(0, eq)}=${REDACTED}`);
      continue;
    }
    if (/^--?[A-Za-z]/.test(arg) && eq < 0 && looksSecretName(arg)) {
      out.push(arg);
      hideNext = true;
      continue;
    }
    out.push(redactValue(arg));
  }
  return out;
}

/** Environment overrides as metadata: names kept (secret-like ones hidden too), values never logged raw. */
export function redactEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (looksSecretName(k)) out[REDACTED] = REDACTED;
    else out[k] = redactValue(v);
  }
  return out;
}

/** Deep redaction for arbitrary event fields (strings inspected, known argv/env fields handled by shape). */
function redactDeep(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return looksSecretName(key) && key !== 'rejection_reason' ? REDACTED : redactText(value);
  if (Array.isArray(value)) return key === 'argv' ? redactArgv(value.map(String)) : value.map((v) => redactDeep(v));
  if (value && typeof value === 'object') {
    if (key === 'env') return redactEnv(value as Record<string, string>);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!BODY_FIELDS.has(k)) out[k] = redactDeep(v, k);
    return out;
  }
  return value;
}

/** Free text (messages, reasons): hides secret-looking tokens inside it without digesting the whole text. */
function redactText(text: string): string {
  // The argv rules apply word by word, so `--password hunter2` inside a quoted command line is hidden too.
  const parts = text.split(/(\s+)/);
  const words = parts.filter((_, i) => i % 2 === 0);
  const redacted = redactArgv(words.map((w) => w.replace(/^["'`]+|["'`.,;:]+$/g, '')));
  return parts.map((p, i) => (i % 2 === 1 ? p : redacted[i / 2] === words[i / 2]!.replace(/^["'`]+|["'`.,;:]+$/g, '') ? p : redacted[i / 2]!)).join('');
}

export class AuditLog {
  private readonly sinks: AuditSink[];
  constructor(sinks: AuditSink[] = []) {
    this.sinks = sinks;
  }
  add(sink: AuditSink): void {
    this.sinks.push(sink);
  }
  record(event: AuditEvent): AuditRecord {
    // Nobody listens (--quiet, no file, no host): skip the redaction work on this hot path.
    if (this.sinks.length === 0) return { timestamp: '', ...event } as AuditRecord;
    const record = { timestamp: new Date().toISOString(), ...(redactDeep(event) as AuditEvent) } as AuditRecord;
    for (const sink of this.sinks) {
      try {
        sink.write(record);
      } catch {
        /* a broken sink must not break the request; the other sinks still receive it */
      }
    }
    return record;
  }
  close(): void {
    for (const s of this.sinks) s.close?.();
  }
}

/** JSON lines to a stream (stdout for the HTTP transports, stderr under --stdio so MCP framing stays clean). */
export function streamSink(stream: NodeJS.WritableStream): AuditSink {
  return { write: (r) => void stream.write(JSON.stringify(r) + '\n') };
}

/** Appends JSON lines to a file, created 0600 because it names commands and paths. */
export function fileSink(file: string): AuditSink {
  const fd = fs.openSync(file, 'a', 0o600);
  try {
    fs.fchmodSync(fd, 0o600); // an existing file keeps its mode on open: tighten it, the log names commands and paths
  } catch {
    /* not ours to change (another owner): keep logging */
  }
  return {
    write: (r) => fs.writeSync(fd, JSON.stringify(r) + '\n'),
    close: () => fs.closeSync(fd),
  };
}

/** Keeps records in memory (tests, the extension's history view). */
export function memorySink(limit = 1000): AuditSink & { readonly records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  return {
    records,
    write: (r) => {
      records.push(r);
      if (records.length > limit) records.shift();
    },
  };
}
