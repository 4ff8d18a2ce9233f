/**
 * What a command tried on the network, as the proxy saw it: one entry per host, port and decision, with the
 * methods used (CONNECT, GET …), how many requests, and the bytes exchanged with the host each way. It goes into
 * the command's result and its audit event (and from there the history card); never a body, a header or a path.
 */

export interface HostAttempt {
  readonly host: string;
  readonly port: number;
  readonly allowed: boolean;
  /** Every method seen, in the order first seen. */
  readonly methods: readonly string[];
  readonly requests: number;
  /** Bytes sent to the host (request bodies and tunnelled bytes) and received from it. */
  readonly bytesSent: number;
  readonly bytesReceived: number;
  /** The rule that allowed or refused it (`network.domain.listed`, `network.address.private` …). */
  readonly rule: string;
  /** Why it was refused, or why an allowed attempt still failed (no such name, connection refused). */
  readonly reason?: string;
}

export interface NetworkRecord {
  readonly attempts: readonly HostAttempt[];
  /** Distinct hosts beyond the kept ones (a command that tries thousands of names does not grow the record). */
  readonly omitted?: number;
}

/** Distinct host entries kept per command. */
const MAX_ENTRIES = 100;

type Entry = { -readonly [K in keyof HostAttempt]: HostAttempt[K] } & { methods: string[] };

export class AttemptRecord {
  private readonly entries = new Map<string, Entry>();
  private omitted = 0;

  /** One attempt; returns a handle for its bytes (undefined when the record is full). */
  note(host: string, port: number, method: string, allowed: boolean, rule: string, reason?: string): Entry | undefined {
    const key = JSON.stringify([host, port, allowed, allowed ? '' : rule]);
    let e = this.entries.get(key);
    if (!e) {
      if (this.entries.size >= MAX_ENTRIES) {
        this.omitted++;
        return undefined;
      }
      e = { host, port, allowed, methods: [], requests: 0, bytesSent: 0, bytesReceived: 0, rule, ...(reason !== undefined && { reason }) };
      this.entries.set(key, e);
    }
    if (!e.methods.includes(method)) e.methods.push(method);
    e.requests++;
    return e;
  }

  /** An allowed attempt that still failed (the name does not resolve, the host refused the connection). */
  failed(e: Entry | undefined, reason: string): void {
    if (e) e.reason = reason;
  }

  bytes(e: Entry | undefined, sent: number, received: number): void {
    if (!e) return;
    e.bytesSent += sent;
    e.bytesReceived += received;
  }

  snapshot(): NetworkRecord {
    const attempts = [...this.entries.values()].map((e) => ({ ...e, methods: [...e.methods] }));
    return { attempts, ...(this.omitted > 0 && { omitted: this.omitted }) };
  }
}

/** "registry.npmjs.org:443 (CONNECT ×12, 1.2 MB in)": one host's line for results and logs. */
export function attemptLine(a: HostAttempt): string {
  const what = `${a.host}:${a.port} (${a.methods.join('/')}${a.requests > 1 ? ` ×${a.requests}` : ''}`;
  if (!a.allowed) return `${what}) refused: ${a.reason ?? a.rule}`;
  const traffic = a.bytesSent || a.bytesReceived ? `, ${size(a.bytesSent)} out, ${size(a.bytesReceived)} in` : '';
  return `${what}${traffic})${a.reason ? ` failed: ${a.reason}` : ''}`;
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The record as the audit logs it (snake_case, flat). */
export function auditedAttempts(r: NetworkRecord): Record<string, unknown> {
  return {
    network_hosts: r.attempts.map((a) => ({
      host: a.host, port: a.port, allowed: a.allowed, methods: a.methods, requests: a.requests, bytes_sent: a.bytesSent, bytes_received: a.bytesReceived, rule: a.rule,
      ...(a.reason !== undefined && { reason: a.reason }),
    })),
    ...(r.omitted && { network_hosts_omitted: r.omitted }),
  };
}
