import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { pidsWithCmdline, rssKb, sleep, uniqueSeconds } from '../helpers/procs';
import { recordFigures } from './figures';
import { baseArgs, killAll, processesIn, rawSession, shell, SPAWN_TREE, tempWorkspace, waitFor } from './helpers';
import { probeLinuxContainment } from '../../src/core/exec/launch/linux';

/** Every live process of one spawn-tree run (its shell and its three sleeps carry the unique seconds). */
// Each pid once: the two lists are two looks at /proc, and a child the shell forked can be a shell in the first and
// a sleep by the second (counted twice, 5 of 4, in CI once the fork server got faster).
const treeOf = (secs: string) => [...new Set([...pidsWithCmdline(['/bin/sh', SPAWN_TREE, secs]), ...pidsWithCmdline(['sleep', secs])])];
const sleepsOf = (secs: string) => pidsWithCmdline(['sleep', secs]);

describe('faults: the server killed, the client gone, awkward commands', () => {
  let root: string;
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    root = tempWorkspace();
    server = await startServer(baseArgs(root, ['echo', 'seq', 'head', 'sleep', 'cat', SPAWN_TREE]));
    client = await httpClient(server.url);
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    killAll(processesIn(root));
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('nothing survives a SIGKILL of the server mid-command without a sandbox where a PID namespace can be made (else: counted)', async () => {
    const victim = await startServer(baseArgs(root, [SPAWN_TREE]));
    const c = await httpClient(victim.url);
    const secs = uniqueSeconds();
    const pending = shell(c, [SPAWN_TREE, secs], { timeout: 120 }).then(
      () => 'answered',
      () => 'rejected',
    );
    const seen = await waitFor(() => treeOf(secs), (p) => p.length >= 4, 10_000);
    expect(seen.length).toBe(4);
    const code = await victim.stop('SIGKILL');
    expect(code).toBeNull(); // killed by the signal, no clean shutdown
    // The SDK client keeps waiting on a broken stream until its request timeout; closing it ends the call.
    await c.close().catch(() => undefined);
    expect(await pending).toBe('rejected');
    await sleep(1000);
    const survivors = treeOf(secs);
    const containment = probeLinuxContainment();
    recordFigures('fault: server SIGKILL (isolation none)', { processesBefore: seen.length, survivorsAfter1s: survivors.length, containment: containment.kind });
    killAll(survivors);
    // A PID-namespace launcher takes every process of the call down with the server (docs/isolation.md);
    // without one, survivors are only reported.
    if (containment.kind === 'namespaces') expect(survivors).toEqual([]);
  });

  it('with --isolation required, either nothing survives a server SIGKILL or no command runs without the sandbox', async () => {
    const victim = await startServer(baseArgs(root, ['sleep', 'echo'], []).map((a) => (a === 'none' ? 'required' : a)));
    const c = await httpClient(victim.url);
    try {
      const probe = await shell(c, ['echo', 'sandboxed']);
      if (probe.outcome !== 'ok') {
        // No working sandbox here: fail closed, and say so.
        expect(probe.outcome).toBe('denied');
        expect(String(probe.denial?.message)).toMatch(/sandbox|isolation/i);
        recordFigures('fault: server SIGKILL (isolation required)', { sandbox: 'unavailable', outcome: probe.outcome, message: String(probe.denial?.message).slice(0, 80) });
        return;
      }
      const secs = uniqueSeconds();
      const pending = shell(c, ['sleep', secs, '|', 'sleep', secs], { timeout: 120 }).then(
        () => 'answered',
        () => 'rejected',
      );
      const seen = await waitFor(() => sleepsOf(secs), (p) => p.length >= 2, 10_000);
      expect(seen.length).toBe(2);
      await victim.stop('SIGKILL');
      await c.close().catch(() => undefined);
      expect(await pending).toBe('rejected');
      const survivors = await waitFor(() => sleepsOf(secs), (p) => p.length === 0, 3_000);
      recordFigures('fault: server SIGKILL (isolation required)', { sandbox: 'on', processesBefore: seen.length, survivors: survivors.length });
      killAll(survivors);
      expect(survivors).toEqual([]);
    } finally {
      await c.close().catch(() => undefined);
      // RunningServer.stop() waits for 'exit', which a process already killed by a signal never emits again.
      if (victim.proc.exitCode === null && victim.proc.signalCode === null) await victim.stop('SIGKILL');
    }
  });

  it('kills the command of a client whose HTTP connection drops mid-call', async () => {
    const session = await rawSession(server.url);
    const secs = uniqueSeconds();
    const u = new URL(server.url);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'shell_execute', arguments: { command: [SPAWN_TREE, secs], timeout: 120 } } });
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${TOKEN}`, 'mcp-session-id': session, 'Content-Length': String(Buffer.byteLength(body)) },
    });
    req.on('error', () => undefined); // we are the ones who break it
    req.end(body);
    const seen = await waitFor(() => treeOf(secs), (p) => p.length >= 4, 10_000);
    expect(seen.length).toBe(4);
    const t = performance.now();
    req.destroy();
    const left = await waitFor(() => treeOf(secs), (p) => p.length === 0, 10_000);
    const ms = Math.round(performance.now() - t);
    recordFigures('fault: client disconnect mid-call', { processesBefore: seen.length, processesAfter: left.length, msToGone: ms });
    killAll(left);
    expect(left).toEqual([]);
    expect((await shell(client, ['echo', 'still serving'])).stdout).toBe('still serving\n');
  });

  it('answers at once when a pipeline stage closes its stdout early (seq 1 100000000 | head -c 1)', async () => {
    const t = performance.now();
    const r = await shell(client, ['seq', '1', '100000000', '|', 'head', '-c', '1']);
    const ms = Math.round(performance.now() - t);
    expect(r.outcome).toBe('ok');
    expect(r.stdout).toBe('1');
    expect(ms).toBeLessThan(20_000); // seq alone would run for a minute: it died of SIGPIPE
    const left = await waitFor(() => processesIn(root), (p) => p.length === 0, 3_000);
    recordFigures('fault: stdout closed early', { ms, outcome: r.outcome, leftover: left.length });
    expect(left).toEqual([]);
  });

  it('returns 100,000 bytes of binary garbage as text without breaking the session (head -c 100000 /dev/urandom)', async () => {
    const r = await shell(client, ['head', '-c', '100000', '/dev/urandom']);
    expect(r.outcome).toBe('ok');
    expect(r.stdoutBytes).toBe(100000);
    expect(typeof r.stdout).toBe('string');
    expect(r.stdout.length).toBeGreaterThan(0);
    recordFigures('fault: binary output', { bytesProduced: r.stdoutBytes, charsReturned: r.stdout.length, truncated: r.stdoutTruncated });
    expect((await shell(client, ['echo', 'after garbage'])).stdout).toBe('after garbage\n');
  });

  it('finishes a command that never reads its 5 MB stdin (sleep 0.2)', async () => {
    const t = performance.now();
    const r = await shell(client, ['sleep', '0.2'], { stdin: 'x'.repeat(5 * 1024 * 1024) });
    const ms = Math.round(performance.now() - t);
    expect(r.outcome).toBe('ok');
    expect(r.exitCode).toBe(0);
    expect(ms).toBeLessThan(20_000);
    recordFigures('fault: unread 5 MB stdin', { ms, outcome: r.outcome, serverRssMB: +(rssKb(server.proc.pid!) / 1024).toFixed(1) });
  });
});

/**
 * Edits on a target that fails under them: a tiny tmpfs (disk full) and the same remounted read-only. Root
 * ignores file modes, so a real mount is the only honest way to make the write fail.
 */
describe('faults: the disk fills or turns read-only during an edit', () => {
  let mountPoint: string;
  let server: RunningServer;
  let client: Client;
  const original = Array.from({ length: 4000 }, (_, i) => `line ${i} of the original file`).join('\n') + '\n';

  beforeAll(async () => {
    mountPoint = tempWorkspace('gs-stress-mnt-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint]);
    fs.writeFileSync(path.join(mountPoint, 'file.txt'), original);
    server = await startServer(baseArgs(mountPoint, ['echo']));
    client = await httpClient(server.url);
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (mountPoint) {
      try {
        execFileSync('umount', ['-l', mountPoint]);
      } catch {
        /* never mounted */
      }
      fs.rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  const edit = async (script: string) => {
    const r = await client.callTool({ name: 'editFile', arguments: { file: 'file.txt', script } });
    return { isError: (r as { isError?: boolean }).isError === true, s: structured(r) ?? {}, text: JSON.stringify((r as { content?: unknown }).content) };
  };

  it('lists the editFile tool (the edit target faults below go through it)', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('editFile');
  });

  it('keeps the original file intact when the disk fills during an edit', async () => {
    expect(original.length).toBeGreaterThan(100_000);
    // Triples every line: ~330 KB cannot fit into what is left of 256 KB.
    const r = await edit('s/.*/&&&/');
    const after = fs.readFileSync(path.join(mountPoint, 'file.txt'), 'utf8');
    const files = fs.readdirSync(mountPoint).sort();
    recordFigures('fault: disk full during edit', { isError: r.isError, intact: after === original, files: files.join(' '), message: r.text.slice(0, 100) });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/ENOSPC|space|full/i);
    expect(after).toBe(original);
    // No half-written temporary file is left behind (a numbered backup of the original may be).
    expect(files.filter((f) => f !== 'file.txt' && !/^file\.txt\.bk\d+$/.test(f))).toEqual([]);
  });

  it('keeps the original file intact when the target is read-only during an edit', async () => {
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    try {
      const before = fs.readFileSync(path.join(mountPoint, 'file.txt'), 'utf8');
      const r = await edit('s/line/LINE/');
      const after = fs.readFileSync(path.join(mountPoint, 'file.txt'), 'utf8');
      recordFigures('fault: read-only target during edit', { isError: r.isError, intact: after === before, message: r.text.slice(0, 100) });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/EROFS|read-only/i);
      expect(after).toBe(before);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    }
    expect((await shell(client, ['echo', 'still serving'])).stdout).toBe('still serving\n');
  });
});
