import { describe, expect, it } from 'vitest';
import { connectionHelp, exposureWarning, isLoopback } from '../../../src/cli/connectionHelp';

/** A bind address other machines can reach is said at start, naming who can reach it (issue 29). */
describe('the --host exposure warning', () => {
  it('says nothing for loopback addresses', () => {
    for (const h of ['127.0.0.1', '127.3.4.5', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) {
      expect(isLoopback(h), h).toBe(true);
      expect(exposureWarning(h, '8003', true), h).toBeUndefined();
    }
  });

  it('names every interface for 0.0.0.0 and ::, the address otherwise, and the port', () => {
    expect(exposureWarning('0.0.0.0', '8003', true)).toMatch(/^guarded-shell: WARNING: --host 0\.0\.0\.0 listens on every network interface of this machine \(port 8003\), not only on this machine: anyone on those networks who has the bearer token can run commands/);
    expect(exposureWarning('::', '8003', true)).toMatch(/every network interface/);
    expect(exposureWarning('192.168.1.20', '9000', true)).toMatch(/the network interface with address 192\.168\.1\.20 \(port 9000\)/);
    expect(exposureWarning('10.0.0.1', '1', false)).toMatch(/ANYONE on those networks can run commands in the workspace \(authentication is off\)/);
  });
});

describe('the client configuration printed at start', () => {
  const url = 'http://127.0.0.1:8003/mcp';
  it('is the family named, or generic, and says how to ask for another', () => {
    expect(connectionHelp(url, 'tok', '/w')).toContain("npx -y mcp-remote 'http://127.0.0.1:8003/mcp' --header 'Authorization: Bearer tok'");
    expect(connectionHelp(url, 'tok', '/w')).toContain('(generic; --print-config vscode, claude, cursor for another client)');
    expect(connectionHelp(url, 'tok', '/w', 'vscode')).toContain('"servers": {');
    expect(connectionHelp(url, 'tok', '/w', 'cursor')).toContain('"mcpServers": {');
    expect(connectionHelp(url, 'tok', '/w', 'claude')).toContain(`claude mcp add --transport http guarded-shell '${url}' --header 'Authorization: Bearer tok'`);
    expect(connectionHelp(url, null, '/w', 'vscode')).not.toContain('Authorization');
  });
});
