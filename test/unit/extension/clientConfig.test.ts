import { describe, expect, it } from 'vitest';
import { CLIENT_KINDS, clientConfiguration, serverName } from '../../../src/shared/clientConfig';
import { formatAudit } from '../../../src/extension/auditFormat';

const e = { url: 'http://127.0.0.1:41309/mcp', token: 'tok_ABC-123', name: 'guarded-shell-proj' };

describe('copied client configurations', () => {
  it('gives every client the URL and the bearer header', () => {
    for (const kind of CLIENT_KINDS) {
      const text = clientConfiguration(kind, e);
      expect(text, kind).toContain(e.url);
      expect(text, kind).toContain('Bearer tok_ABC-123');
    }
  });

  it('writes each client\'s own format', () => {
    expect(JSON.parse(clientConfiguration('mcpJson', e))).toEqual({ servers: { 'guarded-shell-proj': { type: 'http', url: e.url, headers: { Authorization: 'Bearer tok_ABC-123' } } } });
    expect(JSON.parse(clientConfiguration('cursor', e))).toEqual({ mcpServers: { 'guarded-shell-proj': { url: e.url, headers: { Authorization: 'Bearer tok_ABC-123' } } } });
    expect(JSON.parse(clientConfiguration('cline', e)).mcpServers['guarded-shell-proj']).toMatchObject({ type: 'streamableHttp', url: e.url });
    expect(clientConfiguration('claudeCode', e)).toBe(`claude mcp add --transport http guarded-shell-proj '${e.url}' --header 'Authorization: Bearer tok_ABC-123'`);
  });

  it('generic: the URL, the header and an mcp-remote line for clients that start only stdio servers; SSE and no token too', () => {
    expect(clientConfiguration('generic', e).split('\n')).toEqual([
      `URL: ${e.url} (Streamable HTTP)`,
      'Header: Authorization: Bearer tok_ABC-123',
      `A client that starts only stdio servers: npx -y mcp-remote '${e.url}' --header 'Authorization: Bearer tok_ABC-123'`,
    ]);
    const sse = { url: 'http://127.0.0.1:41309/sse', token: null, name: 'gs' };
    expect(clientConfiguration('generic', sse)).toContain("npx -y mcp-remote 'http://127.0.0.1:41309/sse' --transport sse-only");
    expect(JSON.parse(clientConfiguration('mcpJson', sse))).toEqual({ servers: { gs: { type: 'sse', url: sse.url } } });
    expect(clientConfiguration('claudeCode', sse)).toBe(`claude mcp add --transport sse gs '${sse.url}'`);
  });

  it('stops a folder name from injecting shell syntax into the Claude Code command line', () => {
    const name = serverName("it's $(rm -rf ~); `x`");
    expect(name).toMatch(/^guarded-shell-[a-z0-9_-]+$/);
    expect(serverName('---')).toBe('guarded-shell');
  });
});

describe('audit lines in the output channel', () => {
  it('puts event, tool and outcome first and keeps the rest as JSON', () => {
    const line = formatAudit({ timestamp: 't', event: 'shell_execution_audit', tool: 'shell_execute', result_type: 'rejected', argv: ['touch', 'x'] });
    expect(line).toBe('shell_execution_audit shell_execute rejected {"argv":["touch","x"]}');
  });
});
