import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLinuxContainment } from '../../src/core/exec/launch/linux';
import { commOf, killAll, pidsWithCmdline, sleep, uniqueSeconds } from '../helpers/procs';
import { FIXTURE_BIN, httpClient, readableCopy, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { describeWith, has } from '../helpers/needs';
import { descendantsOf } from '../../src/core/exec/processes';

// Issue 12, "processes that outlive their call": WITHOUT a sandbox (--isolation none), a grandchild that calls
// setsid, closes every inherited descriptor and drops its environment must not survive its call, nor a
// SIGKILL of the server. Real server, real processes, counted in /proc.
const ESCAPE = path.join(FIXTURE_BIN, 'escape-all');
const ESCAPE_DEATHSIG = path.join(FIXTURE_BIN, 'escape-deathsig');
const containment = probeLinuxContainment();
const sleepers = (secs: string) => pidsWithCmdline(['sleep', secs]);

let root: string;
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-contain-')));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const args = () => ['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'auto', '--allow', ESCAPE, '--allow', ESCAPE_DEATHSIG];
/**
 * Starts `fixture <secs> wait` (a foreground sleep and an escaped one), kills the server with SIGKILL while it
 * runs, and returns the sleepers still alive a moment later (killed here, so a failure leaves nothing behind).
 */
async function survivorsOfServerKill(victim: RunningServer, c: Client, fixture: string): Promise<number[]> {
  const secs = uniqueSeconds();
  const pending = run(c, [fixture, secs, 'wait']).catch(() => 'rejected');
  for (let i = 0; i < 100 && sleepers(secs).length < 2; i++) await sleep(50);
  expect(sleepers(secs).length).toBe(2); // the escaped one and the foreground one
  expect(await victim.stop('SIGKILL')).toBeNull();
  await c.close().catch(() => undefined);
  await pending;
  for (let i = 0; i < 40 && sleepers(secs).length > 0; i++) await sleep(50);
  const survivors = sleepers(secs);
  killAll(survivors);
  return survivors;
}

const run = (c: Client, command: string[]) => c.callTool({ name: 'shell_execute', arguments: { command } }, undefined, { timeout: 60_000 });

// Without a sandbox every command runs in namespaces of its own (src/core/exec/launch/linux.ts) wherever they can
// be made: then that launcher must be the one chosen. (test/conformance runs every launcher path in depth.)
describeWith('fork-server')(`process containment without a sandbox (${containment.kind})`, () => {
  it('chose the fork server, the namespace launcher that forks nothing in the server', () => expect(containment.kind).toBe('fork-server'));
  let server: RunningServer;
  let client: Client;
  beforeAll(async () => {
    server = await startServer(args());
    client = await httpClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('stops a setsid + closed-descriptors + empty-environment grandchild from outliving its call', async () => {
    const secs = uniqueSeconds();
    const r = structured(await run(client, [ESCAPE, secs]));
    expect(r.outcome).toBe('ok');
    await sleep(300);
    const survivors = sleepers(secs);
    killAll(survivors);
    expect(survivors).toEqual([]);
  });

  it('stops every process of a running call from outliving a SIGKILL of the server', async () => {
    const victim = await startServer(args());
    const c = await httpClient(victim.url);
    expect(await survivorsOfServerKill(victim, c, ESCAPE)).toEqual([]);
  });
});

// The containment must not rest on a signal the command itself can switch off: a process may clear its own
// PR_SET_PDEATHSIG. The command's namespace ends with its PID 1, which dies with the server and which it cannot reach.
describeWith('namespaces')('a command that clears its own death signal (the fixture uses perl to do it)', () => {
  it('stops a grandchild that cleared its parent-death signal and left its session from outliving a SIGKILL of the server', async () => {
    const victim = await startServer(args());
    const c = await httpClient(victim.url);
    expect(await survivorsOfServerKill(victim, c, ESCAPE_DEATHSIG)).toEqual([]);
  });
});

// An unprivileged server makes its namespaces inside a user namespace: the same guarantees. Run as `nobody` when
// the tests run as root, else as the (already unprivileged) user running them.
const unprivileged = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
describeWith('namespaces')('process containment of an unprivileged server (user namespaces)', () => {
  it('runs commands as that user and stops every process of a running call from outliving a SIGKILL of the server', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-contain-nobody-'));
    try {
      fs.chmodSync(home, 0o777);
      // The fixture from a copy that user can read: the checkout itself may sit under a folder closed to it.
      const escape = unprivileged ? path.join(readableCopy().fixtureBin, 'escape-all') : ESCAPE;
      const victim = await startServer(['--cwd', home, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'auto', '--allow', escape, '--allow', 'touch'], { HOME: home }, unprivileged ? { user: unprivileged } : {});
      const c = await httpClient(victim.url);
      expect(structured(await run(c, ['touch', 'made'])).outcome).toBe('ok');
      expect(fs.statSync(path.join(home, 'made')).uid).toBe(unprivileged?.uid ?? process.getuid?.());
      // Through the launcher's fork server where it runs here (the copy that user runs carries it, executable).
      if (has('fork-server')) expect(descendantsOf([victim.proc.pid!]).map(commOf)).toContain('guarded-shell-l');
      expect(await survivorsOfServerKill(victim, c, escape)).toEqual([]);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('containment probe', () => {
  it('says which launcher is used and, when it is not a PID namespace, why', () => {
    expect(['fork-server', 'namespaces', 'plain']).toContain(containment.kind);
    if (containment.kind === 'plain') expect(containment.limitation).toMatch(/outlive its call/);
  });
});
