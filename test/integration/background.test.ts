import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWith, skipWithout } from '../helpers/needs';
import { killAll, sleep } from '../helpers/procs';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { waitFor } from '../helpers/waitFor';

/**
 * Background commands end to end: the real server (dist/cli.js) over Streamable HTTP with the MCP SDK's client, the
 * real bubblewrap sandbox, real programs (python3's http.server, a watcher), and /proc to see what still runs.
 */

type Result = Awaited<ReturnType<Client['callTool']>>;
const texts = (r: Result) => (r.content as { type: string; text: string }[]).map((c) => c.text);
const text = (r: Result) => texts(r).join('\n');

/** Live processes (not zombies) whose command line contains `marker`. */
function pidsWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** A port no other test uses: each sandbox has a loopback of its own, but /proc is shared, and so are markers. */
const uniquePort = () => String(20_000 + Math.floor(Math.random() * 20_000));

const servers: RunningServer[] = [];
const clients: Client[] = [];
let ws: string;

async function serve(...flags: string[]): Promise<{ server: RunningServer; client: Client }> {
  const server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--isolation', 'required', '--allow', 'python3', 'curl', 'sleep', ...flags]);
  servers.push(server);
  const client = await httpClient(server.url);
  clients.push(client);
  return { server, client };
}

/** Reads a run's new output until `until` shows or it ends (each read waits up to 10 s). */
async function readUntil(client: Client, id: string, until: string): Promise<string> {
  let seen = '';
  for (let i = 0; i < 10 && !seen.includes(until); i++) {
    const r = await client.callTool({ name: 'readOutput', arguments: { id, wait: 10, until } });
    expect(r.isError, text(r)).toBeFalsy();
    seen += texts(r).length > 1 ? texts(r)[0] : '';
    if (/ended|exited|stopped|could not run/.test(texts(r).at(-1)!)) break;
  }
  return seen;
}

beforeAll(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-background-')));
  fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello from the workspace\n');
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  for (const s of servers.splice(0)) await s.stop('SIGTERM');
});
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }));

describeWith('bubblewrap', 'python3')('background commands in the sandbox', () => {
  it('a dev server started in the background is reached by a later command and by fetch, its log read, and stopped: nothing of it left running', async () => {
    const port = uniquePort();
    const { client } = await serve('--fetch-loopback-port', port);
    const start = await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-u', '-m', 'http.server', port, '--bind', '127.0.0.1'], background: true } });
    expect(structured(start)).toMatchObject({ outcome: 'started', isolation: 'bwrap', background: { id: 'b1', inputOpen: false } });
    expect(start.isError).toBeFalsy();
    // It writes the folder directly while it runs: no preview, no checkpoint, and the agent is told so.
    expect(structured(start).effect).toMatchObject({ via: 'checkpoint', outcome: 'not-recorded', undoable: false });
    expect(await readUntil(client, 'b1', 'Serving HTTP')).toContain(`port ${port}`);
    expect(pidsWith(`http.server\0${port}`).length).toBeGreaterThan(0);

    // A second command, in a sandbox (and a network namespace) of its own, reaches it on its own loopback.
    const curl = await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-c', `import urllib.request;print(urllib.request.urlopen("http://127.0.0.1:${port}/hello.txt").read().decode())`] } });
    expect(structured(curl).outcome, text(curl)).toBe('ok');
    expect(structured(curl).stdout).toContain('hello from the workspace');
    // The fetch tool reaches it too, the person having allowed that loopback port.
    const fetched = await client.callTool({ name: 'fetch', arguments: { url: `http://localhost:${port}/hello.txt` } });
    expect(structured(fetched).body, text(fetched)).toBe('hello from the workspace\n');

    // Its log has both requests, read after what was read before.
    const log = await readUntil(client, 'b1', 'GET /hello.txt HTTP/1.1" 200');
    expect(log).not.toContain('Serving HTTP');
    const listed = await client.callTool({ name: 'shell_background', arguments: {} });
    expect(structured(listed).runs[0]).toMatchObject({ id: 'b1', running: true, isolation: 'bwrap', ports: [Number(port)] });

    const stop = await client.callTool({ name: 'shell_background', arguments: { id: 'b1', stop: true } });
    expect(text(stop)).toMatch(/^b1 was stopped by the agent after [\d.]+ s \(SIGTERM\); nothing of it runs any more/);
    expect(structured(stop).runs[0]).toMatchObject({ running: false, end: { stoppedBy: 'agent', outcome: 'canceled' } });
    // The sandbox, the bridge's relay and the server itself: all gone when the stop answers.
    expect(pidsWith(`http.server\0${port}`)).toEqual([]);
    // Stopped and read to its end: forgotten.
    const gone = await client.callTool({ name: 'readOutput', arguments: { id: 'b1' } });
    expect(text(gone)).toMatch(/not a background command of this session/);
  });

  it('a watcher printing every second is read incrementally: every line once, in order, nothing lost', async () => {
    const { client } = await serve();
    const script = 'import time\nfor i in range(6):\n    print(f"tick {i}", flush=True)\n    time.sleep(1)\n';
    await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-u', '-c', script], background: true } });
    let all = '';
    const pieces: string[] = [];
    for (let k = 0; k < 6; k++) {
      const r = await client.callTool({ name: 'readOutput', arguments: { id: 'b1', wait: 10, until: `tick ${k}\n` } });
      const [out, status] = texts(r).length > 1 ? texts(r) : ['', texts(r)[0]!];
      pieces.push(out!);
      all += out;
      expect(status).toMatch(k < 5 ? /b1 is running|found/ : /found|exited/);
    }
    const last = await client.callTool({ name: 'readOutput', arguments: { id: 'b1', wait: 10 } });
    all += texts(last).length > 1 ? texts(last)[0] : '';
    expect(texts(last).at(-1)).toMatch(/b1 exited with status 0/);
    expect(all).toBe('tick 0\ntick 1\ntick 2\ntick 3\ntick 4\ntick 5\n');
    // Incremental: the lines came over several reads, not all at the end.
    expect(pieces.filter((p) => p.length > 0).length).toBeGreaterThanOrEqual(4);
  });

  it('the caps hold under a flood of starts from two sessions; refusals say which cap; a session\'s end stops its runs', async () => {
    const { server, client: a } = await serve('--background-max', '3', '--background-max-per-session', '2');
    const b = await httpClient(server.url);
    clients.push(b);
    const seconds = String(4000 + Math.floor(Math.random() * 5000));
    const flood = (c: Client, n: number) =>
      Promise.all(Array.from({ length: n }, () => c.callTool({ name: 'shell_execute', arguments: { command: ['sleep', seconds], background: true } })));
    const fromA = await flood(a, 10);
    const startedA = fromA.filter((r) => structured(r).outcome === 'started');
    expect(startedA).toHaveLength(2);
    for (const r of fromA.filter((x) => structured(x).outcome !== 'started')) {
      expect(structured(r).denial).toMatchObject({ code: 'LIMIT_REACHED', rule: 'background.cap' });
      expect(structured(r).denial.message).toMatch(/this session's 2 \(background\.maxRunsPerSession\)/);
    }
    const fromB = await flood(b, 10);
    expect(fromB.filter((r) => structured(r).outcome === 'started')).toHaveLength(1);
    expect(fromB.map((r) => structured(r).denial?.message).find(Boolean)).toMatch(/this folder's 3 \(background\.maxRuns\).*Other sessions hold the rest/);
    // Exactly three commands run: the caps are on processes, not only on answers.
    const sleeps = () => pidsWith(`sleep\0${seconds}`).filter((p) => /(^|\/)sleep$/.test(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[0]!));
    await waitFor('the three sleeps', () => sleeps().length >= 3);
    await sleep(300);
    expect(sleeps()).toHaveLength(3);
    // Session A ends (its client says so): its two runs are stopped; B's goes on.
    await (a as unknown as { transport: { terminateSession(): Promise<void> } }).transport.terminateSession();
    await waitFor('session A\'s runs to stop', () => sleeps().length === 1);
    const listB = await b.callTool({ name: 'shell_background', arguments: {} });
    expect(structured(listB).runs).toHaveLength(1);
    expect(structured(listB).runs[0].running).toBe(true);
  });

  it('a SIGKILL of the server leaves no background process behind (the sandboxes die with it)', async () => {
    const port = uniquePort();
    const { server, client } = await serve();
    await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-u', '-m', 'http.server', port, '--bind', '127.0.0.1'], background: true } });
    await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', port], background: true } });
    await readUntil(client, 'b1', 'Serving HTTP');
    // The port bridge's relay of the server (and a later command's) live in the sandbox too.
    await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '0.1'] } });
    expect(pidsWith(port).length).toBeGreaterThanOrEqual(3);
    await server.stop('SIGKILL');
    try {
      await waitFor('every process of the background commands to end', () => pidsWith(port).length === 0, 10_000);
    } finally {
      killAll(pidsWith(port));
    }
  });

  it('its end is audited under its start\'s request id, with the hosts it tried through the egress proxy', async () => {
    const log = path.join(os.tmpdir(), `gs-bg-audit-${process.pid}-${Date.now()}.jsonl`);
    try {
      const { client } = await serve('--auditlog', log);
      const script = 'import urllib.request\ntry:\n    urllib.request.urlopen("http://nowhere.example/", timeout=5)\nexcept Exception as e:\n    print("refused:", e)\n';
      await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-c', script], background: true } });
      const r = await client.callTool({ name: 'readOutput', arguments: { id: 'b1', wait: 20 } });
      expect(texts(r).at(-1)).toMatch(/b1 exited with status 0/);
      const records = await waitFor('the end in the audit log', () => {
        const all = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>) : [];
        return all.some((x) => x.background_state === 'ended') && all;
      });
      const start = records.find((x) => x.background_state === 'started')!;
      const end = records.find((x) => x.background_state === 'ended')!;
      expect(end).toMatchObject({ request_id: start.request_id, background: 'b1', result_type: 'success', return_code: 0 });
      expect(end.network_hosts).toEqual([expect.objectContaining({ host: 'nowhere.example', port: 80, allowed: false })]);
    } finally {
      fs.rmSync(log, { force: true });
    }
  });

  it('a run ends at its lifetime, and says so', async () => {
    const { client } = await serve();
    const start = await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '60'], background: true, timeout: 3 } });
    expect(structured(start).background.lifetimeSeconds).toBe(3);
    // The wait reports progress (a client that resets its timeout on progress waits as long as it asked).
    let progress = 0;
    const r = await client.callTool({ name: 'readOutput', arguments: { id: 'b1', wait: 20 } }, undefined, { onprogress: () => void progress++ });
    expect(texts(r).at(-1)).toMatch(/b1 was stopped at the end of its lifetime \(background\.maxSeconds\) after 3\.\d s/);
    expect(progress).toBeGreaterThanOrEqual(1);
  });

  it('a flood of output keeps the latest bytes within the log\'s size, counts what was dropped, and answers within the budget', async () => {
    const { client } = await serve('--background-output', '8192', '--output-budget', '2048');
    const script = 'import sys\nfor i in range(20000):\n    sys.stdout.write(f"line {i:05d}\\n")\nsys.stdout.flush()\n';
    await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-u', '-c', script], background: true } });
    const r = await client.callTool({ name: 'readOutput', arguments: { id: 'b1', wait: 20 } });
    const [out, status] = texts(r);
    const total = 20_000 * 11;
    const m = /^\[([\d,]+) bytes were dropped before this read \(the log keeps the last 8,192\); new output: bytes (\d+)-(\d+) of ([\d,]+)/.exec(status!);
    expect(m, status).not.toBeNull();
    const [dropped, from, to, all] = [Number(m![1]!.replace(/,/g, '')), Number(m![2]), Number(m![3]), Number(m![4]!.replace(/,/g, ''))];
    expect(all).toBe(total);
    expect(to).toBe(total - 1);
    // What was dropped is counted exactly: the bytes the log no longer holds, and the line they cut.
    expect(dropped).toBe(from);
    expect(from).toBeGreaterThanOrEqual(total - 8192);
    expect(from % 11).toBe(0);
    expect(Buffer.byteLength(out!, 'utf8')).toBeLessThanOrEqual(2048);
    expect(out).toMatch(/^line \d{5}\n/);
    expect(out).toMatch(/line 19999\n$/);
    // The part not shown is marked where it is, and can be read there while the log keeps it.
    const gap = /readOutput \{"id":"b1","offset":(\d+)\}/.exec(out!);
    expect(gap).not.toBeNull();
    const page = await client.callTool({ name: 'readOutput', arguments: { id: 'b1', offset: Number(gap![1]), length: 11 } });
    expect(texts(page)[0]).toMatch(/^line \d{5}\n$/);
  });

  it('input sent to a command started with open input reaches it; closing the input ends it', async () => {
    const { client } = await serve();
    const script = 'import sys\nfor line in sys.stdin:\n    print("got", line.strip(), flush=True)\nprint("input closed", flush=True)\n';
    const start = await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-u', '-c', script], background: true, openInput: true, stdin: 'first\n' } });
    expect(structured(start).background.inputOpen).toBe(true);
    // (Until the whole line: python3 -u writes print's parts one by one, and a read can fall between them.)
    expect(await readUntil(client, 'b1', 'got first\n')).toBe('got first\n');
    const sent = await client.callTool({ name: 'shell_background', arguments: { id: 'b1', input: 'second\n', closeInput: true } });
    expect(text(sent)).toMatch(/^7 bytes sent to b1; its input is closed/);
    const rest = await client.callTool({ name: 'readOutput', arguments: { id: 'b1', wait: 10 } });
    expect(texts(rest)[0]).toBe('got second\ninput closed\n');
    expect(texts(rest).at(-1)).toMatch(/b1 exited with status 0/);
    // A run started without open input refuses input, saying how to start one that takes it.
    await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', '30'], background: true } });
    const refused = await client.callTool({ name: 'shell_background', arguments: { id: 'b2', input: 'x' } });
    expect(text(refused)).toMatch(/b2 was started without open input; start it with "openInput": true/);
    await client.callTool({ name: 'shell_background', arguments: { id: 'b2', stop: true } });
  });
});

describeWith('python3')('background commands without a sandbox', () => {
  it('a later command and fetch reach an unsandboxed server on this machine\'s loopback; a stop ends its tree', async () => {
    const port = uniquePort();
    const server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--isolation', 'none', '--allow-unsandboxed-code', '--allow', 'python3', '--fetch-loopback-port', port]);
    servers.push(server);
    const client = await httpClient(server.url);
    clients.push(client);
    await client.callTool({ name: 'shell_execute', arguments: { command: ['python3', '-u', '-m', 'http.server', port, '--bind', '127.0.0.1'], background: true } });
    await readUntil(client, 'b1', 'Serving HTTP');
    const fetched = await client.callTool({ name: 'fetch', arguments: { url: `http://127.0.0.1:${port}/hello.txt` } });
    expect(structured(fetched).body, text(fetched)).toBe('hello from the workspace\n');
    await client.callTool({ name: 'shell_background', arguments: { id: 'b1', stop: true } });
    expect(pidsWith(`http.server\0${port}`)).toEqual([]);
  });

  it('a SIGKILL of the server leaves no background process behind without a sandbox either (the launcher\'s namespace)', async (ctx) => {
    skipWithout(ctx, 'namespaces'); // the plain launcher says it cannot promise this
    const seconds = `${uniquePort()}.5`;
    const server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--isolation', 'none', '--allow', 'sleep']);
    servers.push(server);
    const client = await httpClient(server.url);
    clients.push(client);
    const r = await client.callTool({ name: 'shell_execute', arguments: { command: ['sleep', seconds], background: true } });
    expect(structured(r).outcome, text(r)).toBe('started');
    await waitFor('the sleep to run', () => pidsWith(`sleep\0${seconds}`).length > 0);
    await server.stop('SIGKILL');
    try {
      await waitFor('the background sleep to end with the server', () => pidsWith(`sleep\0${seconds}`).length === 0, 10_000);
    } finally {
      killAll(pidsWith(`sleep\0${seconds}`));
    }
  });
});
