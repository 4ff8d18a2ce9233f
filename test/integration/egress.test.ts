import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as dgram from 'node:dgram';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalRequest, Approver } from '../../src/core/approval';
import { ApprovalMemory } from '../../src/core/approvalMemory';
import { AuditLog, memorySink, type AuditRecord } from '../../src/core/audit';
import { runCommand, type CommandDeps, type CommandResult } from '../../src/core/commands/run';
import { createExecutor } from '../../src/core/exec/executor';
import type { Executor } from '../../src/core/exec/types';
import type { LookupAll } from '../../src/core/fetch/resolve';
import { probeIsolation } from '../../src/core/isolation/probe';
import type { IsolationProbe } from '../../src/core/isolation/types';
import { Egress } from '../../src/core/network/egress';
import { parsePolicy, type PolicyInput } from '../../src/core/policy';
import { isolationFor } from '../../src/server/isolation';
import { toToolResult } from '../../src/server/tools/commandResult';
import { placeParts } from '../../src/core/output/place';
import { describeWith } from '../helpers/needs';

/**
 * network: domains end to end: real curl, wget, npm and node inside the real bubblewrap, through the real egress
 * proxy, against local servers on 127.0.0.1 that are known to the proxy under test names by an INJECTED resolver
 * (nothing in /etc/hosts, no real DNS). "Nothing leaves" is checked where it would arrive: the servers count every
 * connection, and a UDP server counts every DNS packet.
 */

let base: string;
let ws: string;
let executor: Executor;
let probe: IsolationProbe;
let egress: Egress;
let tarball: Buffer;

interface Origin {
  server: http.Server;
  port: number;
  connections: number;
  urls: string[];
}
let allowed: Origin; // allowed.test
let other: Origin; // other.test: never listed
let dns: dgram.Socket;
let dnsPackets = 0;

const NAMES: Record<string, string> = { 'allowed.test': '127.0.0.1', 'other.test': '127.0.0.1', 'private.test': '10.0.0.5' };
const lookup: LookupAll = async (host) => {
  const address = NAMES[host];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

/** A local origin that also answers as a tiny npm registry for the package `tiny`. */
async function origin(name: string): Promise<Origin> {
  const o: Origin = { server: undefined as never, port: 0, connections: 0, urls: [] };
  o.server = http.createServer((req, res) => {
    o.urls.push(req.url!);
    const self = `http://${name}:${o.port}`;
    if (req.url === '/tiny') {
      const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
      const version = { name: 'tiny', version: '1.0.0', dist: { tarball: `${self}/tiny/-/tiny-1.0.0.tgz`, integrity } };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'tiny', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } }));
    }
    if (req.url === '/tiny/-/tiny-1.0.0.tgz') return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    if (req.url!.startsWith('/tiny') || req.url!.startsWith('/-/')) return void res.writeHead(404).end('{}');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`hello from ${name}${req.url}\n`);
  });
  // A CONNECT that arrives INSIDE a tunnel lands at the host: recorded and answered here, never relayed.
  o.server.on('connect', (req: http.IncomingMessage, socket: import('node:net').Socket) => {
    o.urls.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 405 Not A Proxy\r\ncontent-length: 0\r\n\r\n');
  });
  o.server.on('connection', () => o.connections++);
  await new Promise<void>((r) => o.server.listen(0, '127.0.0.1', r));
  o.port = (o.server.address() as AddressInfo).port;
  return o;
}

/** node inside the sandbox (through `npm run`): every way out a program might try, one JSON line each. */
const PROBE = String.raw`
const http = require('node:http'), net = require('node:net'), dns = require('node:dns');
const [allowedPort, otherPort, dnsPort] = process.argv.slice(2).map(Number);
const proxy = new URL(process.env.HTTPS_PROXY);
const say = (what, result) => console.log(JSON.stringify({ what, result }));
const connectVia = (target, inside) => new Promise((resolve) => {
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target });
  req.on('connect', (res, socket) => {
    if (res.statusCode !== 200) { socket.destroy(); return resolve('status ' + res.statusCode); }
    let body = '';
    socket.on('data', (d) => (body += d));
    socket.on('end', () => resolve(inside ? body.split('\r\n')[0] : body.split('\r\n\r\n')[1]));
    socket.write(inside || 'GET /via-connect HTTP/1.0\r\nHost: ' + target + '\r\n\r\n');
  });
  req.on('error', (e) => resolve(e.code));
  req.end();
});
const direct = (port, host) => new Promise((resolve) => {
  const s = net.connect({ port, host, timeout: 3000 });
  s.on('connect', () => { s.destroy(); resolve('connected'); });
  s.on('error', (e) => resolve(e.code));
  s.on('timeout', () => { s.destroy(); resolve('timeout'); });
});
(async () => {
  say('connect allowed', await connectVia('allowed.test:' + allowedPort));
  say('connect other', await connectVia('other.test:' + otherPort));
  // A relay attempt: a second CONNECT sent inside the allowed tunnel.
  say('connect inside connect', await connectVia('allowed.test:' + allowedPort, 'CONNECT other.test:' + otherPort + ' HTTP/1.1\r\nHost: other.test:' + otherPort + '\r\n\r\n'));
  say('direct loopback', await direct(allowedPort, '127.0.0.1'));
  say('direct outside', await direct(443, '93.184.216.34'));
  const resolver = new dns.promises.Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers(['127.0.0.1:' + dnsPort]);
  say('own dns server', await resolver.resolve4('allowed.test').then(() => 'answered', (e) => e.code));
  say('system resolver', await dns.promises.lookup('allowed.test').then(() => 'answered', (e) => e.code));
})();
`;

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-egress-')));
  ws = path.join(base, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'package.json'), JSON.stringify({ name: 'egress-test', version: '1.0.0', private: true, scripts: { probe: 'node probe.js' } }));
  fs.writeFileSync(path.join(ws, 'probe.js'), PROBE);
  // The package the local registry serves, packed by the real npm (no network: a local folder).
  const pkg = path.join(base, 'tiny');
  fs.mkdirSync(pkg);
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0', main: 'index.js' }));
  fs.writeFileSync(path.join(pkg, 'index.js'), 'module.exports = 42;\n');
  execFileSync('npm', ['pack', '--silent', '--pack-destination', base], { cwd: pkg, stdio: 'ignore' });
  tarball = fs.readFileSync(path.join(base, 'tiny-1.0.0.tgz'));

  allowed = await origin('allowed.test');
  other = await origin('other.test');
  dns = dgram.createSocket('udp4');
  dns.on('message', () => dnsPackets++);
  await new Promise<void>((r) => dns.bind(0, '127.0.0.1', r));
  probe = await probeIsolation('linux');
  executor = createExecutor({ concurrency: 2, killGraceMs: 500 });
  egress = new Egress({ lookup });
});

afterAll(async () => {
  await executor?.shutdown();
  egress?.dispose();
  for (const o of [allowed, other]) {
    if (!o) continue;
    o.server.closeAllConnections();
    await new Promise((r) => o.server.close(r));
  }
  dns?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

interface Setup {
  readonly deps: CommandDeps;
  readonly asked: ApprovalRequest[];
  readonly audit: AuditRecord[];
}

function setup(over: Partial<PolicyInput> = {}, answer?: (r: ApprovalRequest) => ApprovalDecision, hostMemory = new ApprovalMemory()): Setup {
  const policy = parsePolicy({
    root: ws, allowCommands: ['curl', 'wget', 'npm', 'cat'], mode: 'auto', isolation: 'required', network: 'domains',
    allowedDomains: ['allowed.test', 'private.test'], fetch: { allowLoopback: true }, maxTimeoutSeconds: 120, ...over,
  });
  const isolation = isolationFor(policy, probe);
  if (!isolation.proxy) throw new Error(`the egress proxy must be wired here: ${isolation.kind} ${isolation.denial ?? isolation.warning ?? ''}`);
  const asked: ApprovalRequest[] = [];
  const approver: Approver = { kind: 'test', approve: async (r) => (asked.push(r), answer ? answer(r) : { approved: true, by: 'test' }) };
  const sink = memorySink();
  const deps: CommandDeps = {
    policy: () => policy, executor, approver: () => approver, audit: new AuditLog([sink]), isolation: () => isolation, egress, hostMemory,
    // The command itself is pre-approved: what is asked here is the host.
    memory: new ApprovalMemory(),
  };
  return { deps, asked, audit: sink.records };
}

const run = (s: Setup, command: string[], timeoutSeconds = 30): Promise<CommandResult> => runCommand({ command, timeoutSeconds }, s.deps, { tool: 'shell_execute' });
const hostsOf = (r: CommandResult) => (r.network?.attempts ?? []).map((a) => `${a.host} ${a.allowed ? 'allowed' : 'refused'} ${a.methods.join('/')}`);

function fresh(): void {
  for (const o of [allowed, other]) {
    o.connections = 0;
    o.urls.length = 0;
  }
  dnsPackets = 0;
}

describeWith('bubblewrap', 'http-clients')('network: domains, real clients in the real sandbox, through the proxy', () => {
  it('curl reaches a listed name (plain and CONNECT) and is refused another name, a private answer and an IP literal; the record lists each', async () => {
    fresh();
    const s = setup();
    const a = `allowed.test:${allowed.port}`;
    const r = await run(s, ['curl', '-sS', `http://${a}/plain`, '--next', '-sS', '--proxytunnel', `http://${a}/tunnel`, '--next', '-sS', `http://other.test:${other.port}/x`,
      '--next', '-sS', `http://private.test:${allowed.port}/x`, '--next', '-sS', `http://10.0.0.5:${allowed.port}/x`]);
    expect(r.stdout).toContain('hello from allowed.test/plain');
    expect(r.stdout).toContain('hello from allowed.test/tunnel');
    expect(r.stdout).toMatch(/Guarded Shell: other\.test is not on the allowed domains/);
    expect(r.stdout).toMatch(/Guarded Shell: the proxy refused "private\.test": it resolves to 10\.0\.0\.5, a private address/);
    expect(r.stdout).toMatch(/Guarded Shell: 10\.0\.0\.5 is not on the allowed domains/);
    expect(allowed.urls).toEqual(['/plain', '/tunnel']);
    expect(other.connections).toBe(0);
    // One entry per host and decision: the methods it used, how many requests, the bytes each way.
    expect(hostsOf(r).sort()).toEqual(['10.0.0.5 refused GET', 'allowed.test allowed GET/CONNECT', 'other.test refused GET', 'private.test refused GET']);
    const reached = r.network!.attempts.find((x) => x.allowed)!;
    expect(reached.requests).toBe(2);
    expect(reached.bytesSent).toBeGreaterThan(0);
    expect(reached.bytesReceived).toBeGreaterThan(0);
    // The tool's text lists every host too, refused ones first; the audit event carries them (no bodies).
    const text = (toToolResult(r, {}, (parts) => placeParts(parts, 1 << 20, () => undefined)).content[0] as { text: string }).text;
    expect(text).toMatch(/\[network\] other\.test:\d+ \(GET\) refused: other\.test is not on the allowed domains/);
    expect(text).toMatch(/\[network\] allowed\.test:\d+ \(GET\/CONNECT ×2, \d+ B out, \d+ B in\)/);
    const event = s.audit.find((e) => e.event === 'shell_execution_audit')!;
    expect(event.network_hosts).toEqual(expect.arrayContaining([expect.objectContaining({ host: 'other.test', allowed: false, rule: 'network.domain.unlisted' })]));
  });

  it('wget reaches a listed name and is refused another (and the refusal is what wget reports)', async () => {
    fresh();
    const s = setup();
    let r = await run(s, ['wget', '-q', '-O-', `http://allowed.test:${allowed.port}/w`]);
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('hello from allowed.test/w\n');
    r = await run(s, ['wget', '-O-', `http://other.test:${other.port}/w`]);
    expect(r.exitCode).toBe(8); // the server issued an error response
    expect(r.stderr).toMatch(/403 Forbidden/);
    expect(other.connections).toBe(0);
    expect(hostsOf(r)).toEqual(['other.test refused GET']);
  });

  it('npm installs from a listed registry and is refused another, at once', async () => {
    fresh();
    const s = setup();
    fs.rmSync(path.join(ws, 'node_modules'), { recursive: true, force: true });
    let r = await run(s, ['npm', 'install', '--no-audit', '--no-fund', '--no-update-notifier', '--no-save', '--registry', `http://allowed.test:${allowed.port}/`, 'tiny'], 90);
    expect(r.outcome, r.stderr).toBe('ok');
    expect(fs.readFileSync(path.join(ws, 'node_modules', 'tiny', 'index.js'), 'utf8')).toBe('module.exports = 42;\n');
    expect(allowed.urls).toContain('/tiny/-/tiny-1.0.0.tgz');
    expect(hostsOf(r)).toEqual(['allowed.test allowed GET']);
    r = await run(s, ['npm', 'install', '--no-audit', '--no-fund', '--no-update-notifier', '--no-save', '--registry', `http://other.test:${other.port}/`, 'tiny'], 90);
    expect(r.outcome).toBe('failed');
    expect(r.stderr).toMatch(/E403/);
    expect(other.connections).toBe(0);
    // Refused at once: no retry loop (npm asks a few times at most, never for a minute).
    expect(r.network!.attempts).toEqual([expect.objectContaining({ host: 'other.test', allowed: false })]);
    expect(r.network!.attempts[0]!.requests).toBeLessThanOrEqual(3);
    fs.rmSync(path.join(ws, 'node_modules'), { recursive: true, force: true });
  });

  it('node reaches a listed name through the proxy; a relayed CONNECT, a direct socket and its own DNS queries go nowhere', async () => {
    fresh();
    const s = setup();
    const r = await run(s, ['npm', 'run', '--silent', '--no-update-notifier', 'probe', '--', String(allowed.port), String(other.port), String((dns.address() as AddressInfo).port)], 60);
    const said = Object.fromEntries(r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { what: string; result: string }).map((x) => [x.what, x.result]));
    expect(said).toEqual({
      'connect allowed': 'hello from allowed.test/via-connect\n',
      'connect other': 'status 403',
      'connect inside connect': 'HTTP/1.1 405 Not A Proxy', // the listed host answered it: nothing was relayed
      'direct loopback': 'ECONNREFUSED', // the sandbox's own loopback: the host's servers are not there
      'direct outside': 'ENETUNREACH', // no route out of the sandbox at all
      'own dns server': 'ECONNREFUSED',
      'system resolver': expect.stringMatching(/^(EAI_AGAIN|ENOTFOUND)$/),
    });
    expect(allowed.urls).toEqual(['/via-connect', `CONNECT other.test:${other.port}`]); // the direct connection never arrived
    expect(other.connections).toBe(0);
    expect(dnsPackets).toBe(0);
    expect(hostsOf(r).sort()).toEqual(['allowed.test allowed CONNECT', 'other.test refused CONNECT']);
  });

  it('every stage of a pipeline goes through the same proxy, on the same record', async () => {
    fresh();
    const s = setup();
    const r = await run(s, ['curl', '-sS', `http://allowed.test:${allowed.port}/piped`, '|', 'cat']);
    expect(r.stdout).toBe('hello from allowed.test/piped\n');
    expect(hostsOf(r)).toEqual(['allowed.test allowed GET']);
  });

  it('with network fetch the proxy refuses every host at once, and the result names network: domains', async () => {
    fresh();
    const s = setup({ network: 'fetch' });
    const r = await run(s, ['curl', '-sS', '--proxytunnel', `http://allowed.test:${allowed.port}/x`]);
    expect(r.exitCode).toBe(56); // curl: the CONNECT was answered 403
    expect(allowed.connections).toBe(0);
    expect(r.network!.attempts).toEqual([expect.objectContaining({ host: 'allowed.test', allowed: false, rule: 'network.fetch' })]);
    const text = (toToolResult(r, {}, (parts) => placeParts(parts, 1 << 20, () => undefined)).content[0] as { text: string }).text;
    expect(text.split('\n').filter((l) => /use network: domains \(guardedShell\.network, --network domains\)/.test(l))).toHaveLength(1);
  });

  it('in confirm a host not on the list becomes a card; "this session" lets the next command through without one', async () => {
    fresh();
    const memory = new ApprovalMemory();
    const s = setup({ mode: 'confirm' }, (req) => ({ approved: true, by: 'user', option: req.network ? 'session' : 'once' }), memory);
    const url = `http://other.test:${other.port}/asked`;
    let r = await run(s, ['curl', '-sS', url]);
    expect(r.stdout).toBe('hello from other.test/asked\n');
    const cards = s.asked.filter((q) => q.network);
    expect(cards).toEqual([expect.objectContaining({ rule: 'network.domain.unlisted', key: 'other.test', network: { host: 'other.test', port: other.port, method: 'GET', command: `curl -sS ${url}` } })]);
    expect(r.network!.attempts).toEqual([expect.objectContaining({ host: 'other.test', allowed: true, rule: 'approval.session' })]);
    r = await run(s, ['curl', '-sS', url]);
    expect(r.stdout).toBe('hello from other.test/asked\n');
    expect(s.asked.filter((q) => q.network)).toHaveLength(1); // no second card
    expect(r.network!.attempts[0]).toMatchObject({ allowed: true, rule: 'approval.remembered' });
    expect(s.audit.filter((e) => e.event === 'approval_audit' && e.host === 'other.test')).toEqual([expect.objectContaining({ result_type: 'approved', option: 'session' })]);
  });

  it('in confirm a host the person refuses stays refused for the command (one card, however many connections)', async () => {
    fresh();
    const s = setup({ mode: 'confirm' }, (req) => (req.network ? { approved: false, by: 'user', reason: 'not that one' } : { approved: true, by: 'user' }));
    const url = `http://other.test:${other.port}/no`;
    const r = await run(s, ['curl', '-sS', url, '--next', '-sS', url, '--next', '-sS', url]);
    expect(r.stdout).toMatch(/Guarded Shell: other\.test: not that one/);
    expect(s.asked.filter((q) => q.network)).toHaveLength(1);
    expect(other.connections).toBe(0);
    expect(r.network!.attempts).toEqual([expect.objectContaining({ host: 'other.test', allowed: false, requests: 3 })]);
  });

  it('in auto a host not on the list is refused, and the refusal names the setting', async () => {
    fresh();
    const s = setup({ mode: 'auto' });
    const r = await run(s, ['curl', '-sS', `http://other.test:${other.port}/x`]);
    expect(s.asked).toEqual([]);
    expect(r.network!.attempts[0]!.reason).toMatch(/guardedShell\.domains\.allowed \(--allow-domain other\.test\)/);
  });
});
