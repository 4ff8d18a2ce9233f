import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { killAll, pidsWithCmdline, sleep, uniqueSeconds } from '../helpers/procs';
import { describeWith } from '../helpers/needs';
import { findings, report, type ReachRun } from './findings';
import { FIXTURES, makeWorkspace, PYTHON, type PathName, type Workspace } from './paths';
import { besideTheBundle, LAUNCHER_NAME, LAUNCHER_PATH } from '../../scripts/launcher.mjs';

/**
 * The conformance suite's container cases, for every Linux launcher path (contract.ts), as root and as a normal
 * user: the "server" is harness.ts in a process of its own, run as that user; each test is an attack a command
 * makes from inside. Named after the attack it stops.
 */
let harness: string;
let ws: Workspace & { remove(): void };
let dir: string;
/** test/fixtures/bin, copied where every user and every sandbox can read it. */
let fixtures: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-conformance-harness-'));
  fs.chmodSync(dir, 0o755);
  harness = path.join(dir, 'harness.cjs');
  // The fork server beside the harness, as the shipped bundles find theirs (dist/ may be closed to nobody, below).
  if (fs.existsSync(LAUNCHER_PATH)) {
    fs.copyFileSync(LAUNCHER_PATH, path.join(dir, LAUNCHER_NAME));
    fs.chmodSync(path.join(dir, LAUNCHER_NAME), 0o755);
  }
  await build({ entryPoints: [path.join(__dirname, 'harness.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: harness, logLevel: 'error', loader: { '.pl': 'text' }, define: besideTheBundle });
  fs.chmodSync(harness, 0o644);
  ws = makeWorkspace();
  // The fixture programs in the workspace, where every user can read them and every sandbox sees them: a checkout
  // under a folder only its owner may enter (root cloning into its 0700 home) is closed to nobody, and the sandbox
  // hides the system's temporary folder.
  fixtures = path.join(ws.root, 'fixture-bin');
  fs.cpSync(FIXTURES, fixtures, { recursive: true });
  fs.chmodSync(fixtures, 0o755);
  for (const f of fs.readdirSync(fixtures)) fs.chmodSync(path.join(fixtures, f), 0o755);
}, 60_000);
afterAll(() => {
  ws?.remove();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Who runs the server: root and nobody when the tests run as root, else the user running them. */
const USERS: ReadonlyArray<{ readonly name: string; readonly root: boolean; readonly id?: { uid: number; gid: number } }> =
  process.getuid?.() === 0 ? [{ name: 'root', root: true }, { name: 'a normal user (nobody)', root: false, id: { uid: 65534, gid: 65534 } }] : [{ name: 'a normal user', root: false }];

interface Started {
  readonly done: Promise<Record<string, unknown>>;
  readonly held: Promise<void>;
  kill(): void;
}

function start(request: Record<string, unknown>, user: (typeof USERS)[number]): Started {
  const proc = spawn(process.execPath, [harness, JSON.stringify({ root: ws.root, home: ws.home, fixtures, ...request })], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: '/usr/bin:/bin', HOME: ws.home },
    ...(user.id && { uid: user.id.uid, gid: user.id.gid }),
  });
  let out = '';
  let onHeld: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('HELD\n')) onHeld();
  });
  const done = new Promise<Record<string, unknown>>((resolve) => proc.once('close', () => resolve(JSON.parse(out.split('\n').filter((l) => l.startsWith('{')).pop() ?? '{}') as Record<string, unknown>)));
  return { done, held, kill: () => proc.kill('SIGKILL') };
}

const reach = async (pathName: PathName, user: (typeof USERS)[number], extra: Record<string, unknown> = {}): Promise<ReachRun> => {
  const out = await start({ path: pathName, action: 'reach', ...extra }, user).done;
  if (out.error) throw new Error(String(out.error));
  return out as unknown as ReachRun;
};

const PATHS: ReadonlyArray<{ readonly name: PathName; readonly needs: 'namespaces' | 'bubblewrap' | 'fork-server' }> = [
  { name: 'fork-server', needs: 'fork-server' },
  { name: 'namespaces', needs: 'namespaces' },
  { name: 'bwrap', needs: 'bubblewrap' },
];

for (const p of PATHS) {
  for (const user of USERS) {
    describeWith(p.needs, 'python3')(`launcher path ${p.name}, the server run as ${user.name}`, () => {
      it('stops a command from seeing, signalling, tracing, reading or writing the server or any helper process, and leaves it no capability and no stray descriptor', async () => {
        expect(PYTHON, 'a python3 outside /root for the attack fixture').toBeDefined();
        const run = await reach(p.name, user);
        expect(findings(run, user.root)).toEqual([]);
        // The command is not its namespace's PID 1 on any path: that init was there to attack (and held).
        expect(report(run)?.probed).toContain(1);
      });

      it('leaves no process of the call behind, even one that left its session, closed every descriptor and dropped its environment', async () => {
        const secs = uniqueSeconds();
        const out = await start({ path: p.name, action: 'run', argv: [path.join(fixtures, 'escape-all'), secs] }, user).done;
        expect((out.result as { outcome: string }).outcome).toBe('ok');
        await sleep(300);
        const left = pidsWithCmdline(['sleep', secs]);
        killAll(left);
        expect(left).toEqual([]);
      });

      it('leaves no process of a running call behind a SIGKILL of the server, even one that cleared its own parent-death signal and left its session', async () => {
        const secs = uniqueSeconds();
        const server = start({ path: p.name, action: 'run', argv: [path.join(fixtures, 'escape-deathsig'), secs, 'wait'], hold: true }, user);
        await server.held;
        for (let i = 0; i < 100 && pidsWithCmdline(['sleep', secs]).length < 2; i++) await sleep(50);
        expect(pidsWithCmdline(['sleep', secs])).toHaveLength(2); // the escaped one and the foreground one
        server.kill();
        await server.done;
        for (let i = 0; i < 40 && pidsWithCmdline(['sleep', secs]).length > 0; i++) await sleep(50);
        const left = pidsWithCmdline(['sleep', secs]);
        killAll(left);
        expect(left).toEqual([]);
      });
    });
  }
}

// The suite is not hollow: launchers that break one promise each fail it.
describeWith('namespaces', 'python3')('a deliberately weakened launcher fails the suite', () => {
  const user = USERS[0]!;
  it('fails one that leaves the command the host /proc (the server and its helpers in plain sight)', async () => {
    const found = findings(await reach('weak-shared-proc', user), user.root);
    expect(found.some((f) => f.startsWith('sees '))).toBe(true);
  });

  it('fails one whose namespace init holds no capability the command lacks (the command traces it and opens its memory)', async () => {
    const found = findings(await reach('weak-bare-init', user), user.root);
    expect(found).toContain('traces timeout (its pid 1)');
    expect(found).toContain('opens the memory of timeout (its pid 1)');
  });

  it('fails one whose helper takes unauthenticated orders on a socket the command can reach', async () => {
    const found = findings(await reach('namespaces', user, { helper: `gs-weak-helper-${process.pid}` }), user.root);
    expect(found).toContain(`connects to @gs-weak-helper-${process.pid}, a socket of the server's processes`);
  });

  it('fails the plain launcher, which says so: it is not contained and names why', async () => {
    const found = findings(await reach('plain', user), user.root);
    expect(found.length).toBeGreaterThan(0);
    const { plainLinuxLauncher } = await import('../../src/core/exec/launch');
    expect(plainLinuxLauncher().contained).toBe(false);
  });
});
