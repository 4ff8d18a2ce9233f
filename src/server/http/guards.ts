import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh bearer token: 32 random bytes (256 bits), base64url. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time check of an `Authorization: Bearer …` header (hashing first makes the lengths equal). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (!header) return false;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m) return false;
  const a = createHash('sha256').update(m[1]!).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Host headers accepted for a server bound to `host:port` — the defence against DNS rebinding (a web page whose
 * name resolves to 127.0.0.1 sends its own name as Host). A wildcard bind accepts any Host (the token still applies).
 */
export function allowedHosts(host: string, port: number): Set<string> | undefined {
  if (WILDCARD.has(host)) return undefined;
  const names = new Set([host, 'localhost', '127.0.0.1', '[::1]']);
  if (host.includes(':') && !host.startsWith('[')) names.add(`[${host}]`);
  const out = new Set<string>();
  for (const n of names) out.add(`${n}:${port}`.toLowerCase());
  return out;
}

export function hostAllowed(hostHeader: string | undefined, allowed: Set<string> | undefined): boolean {
  if (!allowed) return true;
  if (!hostHeader) return false;
  return allowed.has(hostHeader.toLowerCase());
}

/** CORS response headers for an allowed browser origin, or undefined when the origin is not listed. */
export function corsHeaders(origin: string, allowedOrigins: readonly string[]): Record<string, string> | undefined {
  if (!allowedOrigins.includes(origin) && !allowedOrigins.includes('*')) return undefined;
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
    'Access-Control-Expose-Headers': 'Mcp-Session-Id',
    'Access-Control-Max-Age': '600',
    Vary: 'Origin',
  };
}
