import * as dns from 'node:dns';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { classifyAddress, parseAddress } from '../../src/core/fetch/address';
import { describeWith } from '../helpers/needs';
import { httpClient, startServer, structured, TOKEN } from '../helpers/serverProcess';

/**
 * The one test that leaves 127.0.0.1, on purpose (capability `npm-registry`): the real CLI, the real sandbox, the
 * real npm, the real npm registry. With `--network domains --domain-preset npm` a sandboxed `npm install` of a real
 * package succeeds through the proxy; with `--network fetch` the same command fails at once, and the result says,
 * in one line, which setting would let it through.
 */

let root: string;
/** Machines whose resolver answers the registry with an address on no public network need the private exception. */
let addressFlags: string[] = [];

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-egress-npm-')));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'egress-npm', version: '1.0.0', private: true }));
  const answers = await dns.promises.lookup('registry.npmjs.org', { all: true }).catch(() => []);
  if (answers.some((a) => classifyAddress(parseAddress(a.address)!) !== 'public')) addressFlags = ['--fetch-allow-private'];
});
afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

async function install(network: string): Promise<{ s: Record<string, any>; text: string }> {
  const server = await startServer([
    '--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--isolation', 'required', '--allow', 'npm',
    '--network', network, '--domain-preset', 'npm', ...addressFlags, '--timeout', '120',
  ]);
  const client = await httpClient(server.url);
  try {
    const r = await client.callTool(
      { name: 'shell_execute', arguments: { command: ['npm', 'install', '--no-audit', '--no-fund', '--no-update-notifier', 'is-number@7.0.0'] } },
      undefined,
      { timeout: 150_000 },
    );
    return { s: structured(r), text: (r.content as Array<{ text: string }>)[0]!.text };
  } finally {
    await client.close();
    await server.stop();
  }
}

describeWith('bubblewrap', 'npm-registry')('a real npm install through the egress proxy (the real npm registry)', () => {
  it('succeeds with network domains and the npm preset; only the registry was reached', async () => {
    const { s } = await install('domains');
    expect(s.outcome, s.stderr).toBe('ok');
    expect(JSON.parse(fs.readFileSync(path.join(root, 'node_modules', 'is-number', 'package.json'), 'utf8')).version).toBe('7.0.0');
    expect(s.network.attempts).toEqual([expect.objectContaining({ host: 'registry.npmjs.org', port: 443, allowed: true, methods: ['CONNECT'] })]);
    expect(s.network.attempts[0].bytesReceived).toBeGreaterThan(1000);
  }, 180_000);

  it('fails at once with network fetch, with one line naming network: domains', async () => {
    fs.rmSync(path.join(root, 'node_modules'), { recursive: true, force: true });
    const { s, text } = await install('fetch');
    expect(s.outcome).toBe('failed');
    expect(s.stderr).toMatch(/E403/);
    expect(fs.existsSync(path.join(root, 'node_modules', 'is-number'))).toBe(false);
    // Refused at the first request, not after a minute of lookups and retries: npm asked a couple of times at most.
    expect(s.network.attempts).toEqual([expect.objectContaining({ host: 'registry.npmjs.org', allowed: false, rule: 'network.fetch' })]);
    expect(s.network.attempts[0].requests).toBeLessThanOrEqual(3);
    expect(text.split('\n').filter((l) => l.includes('network: domains'))).toEqual([
      expect.stringMatching(/^\[network\] registry\.npmjs\.org:443 \(CONNECT.*\) refused: .*use network: domains \(guardedShell\.network, --network domains\).*--domain-preset npm/),
    ]);
  }, 180_000);
});
