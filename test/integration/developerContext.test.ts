import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { onPath } from '../helpers/capabilities';
import { describeWith } from '../helpers/needs';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * A developer's context, end to end: the real server (dist/cli.js) started with a home folder of its own (a git
 * identity, a pyenv-style toolchain, secrets), real commands in the real bubblewrap sandbox over a real MCP
 * client. Commands get the identity, the toolchain folder (read-only) and a private HOME that persists per
 * workspace; nothing else of the home folder; and a failure the sandbox caused is explained once per session.
 */

let base: string;
let home: string;
let ws: string;
let state: string;
const IDENTITY = 'Ada Test <ada@example.test>';
const SECRET = 'HOME-SECRET-' + process.pid;
const servers: RunningServer[] = [];
const clients: Client[] = [];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
}

/** A pyenv-style root: bash shims that exec the manager's libexec, which runs a version found below the root. */
function makePyenv(root: string, python: string): void {
  for (const d of ['shims', 'libexec', 'versions/3/bin']) fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.writeFileSync(path.join(root, 'shims', 'gs-py'), `#!/usr/bin/env bash\nset -e\nprogram="\${0##*/}"\nexport PYENV_ROOT="${root}"\nexec "${root}/libexec/pyenv" exec "$program" "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'libexec', 'pyenv'), '#!/usr/bin/env bash\n[ "$1" = exec ] && shift\nprogram="$1"; shift\nexec "$PYENV_ROOT/versions/3/bin/$program" "$@"\n', { mode: 0o755 });
  fs.symlinkSync(python, path.join(root, 'versions', '3', 'bin', 'gs-py'));
}

async function serve(root: string, flags: string[] = []): Promise<Client> {
  const server = await startServer(
    ['--cwd', root, '--auth', TOKEN, '--quiet', '--mode', 'auto', '--isolation', 'required', '--allow', 'git', 'make', 'printenv', 'ls', 'cat', 'touch', 'gs-py', ...flags],
    { HOME: home, PATH: `${path.join(home, '.pyenv', 'shims')}:${process.env.PATH ?? ''}`, XDG_STATE_HOME: state },
  );
  servers.push(server);
  const client = await httpClient(server.url);
  clients.push(client);
  return client;
}

const call = async (client: Client, command: string[]): Promise<Record<string, any>> => {
  const r = await client.callTool({ name: 'shell_execute', arguments: { command } });
  return { ...structured(r), text: (r.content as { text: string }[])[0]!.text };
};

describeWith('bubblewrap', 'git', 'python3')("a developer's context reaches sandboxed commands as data", () => {
  beforeAll(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-devctx-')));
    home = path.join(base, 'home');
    ws = path.join(base, 'ws');
    state = path.join(base, 'state');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), SECRET);
    fs.writeFileSync(path.join(home, 'secret.txt'), SECRET);
    fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Ada Test\n\temail = ada@example.test\n');
    // A real interpreter (not a shim of this machine's own version manager, which would find ours again).
    const python = onPath('python3', '/usr/local/bin:/usr/bin:/bin')[0] ?? onPath('python3')[0]!;
    makePyenv(path.join(home, '.pyenv'), fs.realpathSync(python));
    fs.mkdirSync(ws);
    git(ws, 'init', '-q');
    fs.writeFileSync(path.join(ws, 'Makefile'), 'test:\n\tgs-py -c "print(\'from the shim\')"\n');
    fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {});
    for (const s of servers.splice(0)) await s.stop();
  });

  afterAll(() => {
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it("commits with the identity from the person's own .gitconfig (git writes allowed), without asking anything", async () => {
    const c = await serve(ws, ['--allow-git-writes']);
    expect((await call(c, ['git', 'add', 'a.txt'])).outcome).toBe('ok');
    const commit = await call(c, ['git', 'commit', '-m', 'from the agent']);
    expect(commit.outcome, commit.text).toBe('ok');
    expect(git(ws, 'log', '-1', '--format=%an <%ae>|%cn <%ce>').trim()).toBe(`${IDENTITY}|${IDENTITY}`);
  });

  it('runs a pyenv-style shim from the server PATH inside the sandbox (also through make), and shows nothing else of the home folder', async () => {
    const c = await serve(ws);
    const made = await call(c, ['make', 'test']);
    expect(made.outcome, made.text).toBe('ok');
    expect(made.stdout).toContain('from the shim');
    expect((await call(c, ['gs-py', '-c', 'import sys; print(sys.version_info[0])'])).stdout).toBe('3\n');
    // The home folder: only the toolchain root is there; its secrets are not.
    expect((await call(c, ['ls', '-A', home])).stdout).toBe('.pyenv\n');
    for (const file of [path.join(home, 'secret.txt'), path.join(home, '.ssh', 'id_rsa'), path.join(home, '.gitconfig')]) {
      const r = await call(c, ['cat', file]);
      expect(r.outcome).toBe('failed');
      expect(r.stdout).not.toContain(SECRET);
    }
    // Read-only: the toolchain cannot be changed from inside.
    expect((await call(c, ['touch', path.join(home, '.pyenv', 'shims', 'planted')])).outcome).toBe('failed');
    expect(fs.existsSync(path.join(home, '.pyenv', 'shims', 'planted'))).toBe(false);
  });

  it("gives each workspace a private HOME whose caches persist; another workspace's is invisible", async () => {
    let c = await serve(ws);
    const own = (await call(c, ['printenv', 'HOME'])).stdout.trim();
    expect(own.startsWith(path.join(state, 'guarded-shell', 'home') + path.sep)).toBe(true);
    expect(fs.statSync(own).mode & 0o777).toBe(0o700);
    const touched = await call(c, ['touch', path.join(own, '.cache', 'pip-entry'), path.join(own, '.npm', 'npm-entry')]);
    expect(touched.outcome, touched.text).toBe('ok');
    await clients.splice(0)[0]!.close();
    await servers.splice(0)[0]!.stop();

    c = await serve(ws); // a restart: the same folder, the same HOME, the caches still there
    expect((await call(c, ['printenv', 'HOME'])).stdout.trim()).toBe(own);
    expect((await call(c, ['ls', path.join(own, '.cache'), path.join(own, '.npm')])).stdout).toContain('pip-entry');
    expect((await call(c, ['ls', path.join(own, '.npm')])).stdout).toBe('npm-entry\n');

    const other = path.join(base, 'other-ws');
    fs.mkdirSync(other, { recursive: true });
    const c2 = await serve(other);
    const otherHome = (await call(c2, ['printenv', 'HOME'])).stdout.trim();
    expect(otherHome).not.toBe(own);
    expect((await call(c2, ['ls', path.join(own, '.npm')])).outcome).toBe('failed');
  });

  it('stops a configuration file planted in HOME (~/.wgetrc, ~/.gitconfig) from reaching the next command', async () => {
    const c = await serve(ws);
    const own = (await call(c, ['printenv', 'HOME'])).stdout.trim();
    // Writable during the call that writes it (tools may keep what they need while they run) …
    expect((await call(c, ['touch', path.join(own, '.wgetrc'), path.join(own, '.gitconfig')])).outcome).toBe('ok');
    // … gone for the next one, and never on the host.
    expect((await call(c, ['ls', '-A', own])).stdout.split('\n')).not.toContain('.wgetrc');
    expect((await call(c, ['cat', path.join(own, '.gitconfig')])).outcome).toBe('failed');
    expect(fs.existsSync(path.join(own, '.wgetrc'))).toBe(false);
  });

  it('--no-toolchain-path takes the toolchain away, and the failure says which setting gives it back', async () => {
    const c = await serve(ws, ['--no-toolchain-path']);
    expect((await call(c, ['printenv', 'PATH'])).stdout.trim()).toBe('/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin');
    const r = await call(c, ['make', 'test']);
    expect(r.outcome).toBe('failed');
    expect(r.hint).toMatchObject({ cause: 'program-missing' });
    expect(r.text).toMatch(/Hint: "gs-py" is in .*\.pyenv\/shims on the server's PATH, but commands get only the system folders on PATH\. .*start the server without --no-toolchain-path/);
    expect((await call(c, ['ls', '-A', home])).stdout).toBe('');
  });

  it('tells npm and pip not to retry when commands have no network (an install fails at once, explained, instead of timing out)', async () => {
    // Bug: `npm install` in a sandbox without a network retried its lookups for over two minutes; the call timed
    // out saying nothing about the network. Real npm reads the value the server gives.
    const offline = await serve(ws, ['--allow', 'npm']);
    expect((await call(offline, ['npm', 'config', 'get', 'fetch-retries'])).stdout).toBe('0\n');
    expect((await call(offline, ['printenv', 'PIP_RETRIES'])).stdout).toBe('0\n');
    // With a network the package managers keep their own defaults.
    const online = await serve(ws, ['--allow', 'npm', '--network', 'allow']);
    expect((await call(online, ['npm', 'config', 'get', 'fetch-retries'])).stdout).toBe('2\n');
    expect((await call(online, ['printenv', 'PIP_RETRIES'])).exitCode).toBe(1);
  });

  it('explains a sandbox limit once per session per cause, and again in a new session', async () => {
    const c = await serve(ws);
    const remote = ['git', 'remote', 'add', 'origin', 'https://example.com/x.git'];
    const first = await call(c, remote);
    expect(first.outcome).toBe('failed');
    expect(first.text).toMatch(/Hint: The sandbox keeps \.git's configuration and hooks read-only.*start the server with --allow-git-writes/);
    const again = await call(c, remote);
    // Once per session per cause, in the text and in structuredContent alike (a model may read only the latter).
    expect(first.hint?.cause).toBe('git-read-only');
    expect(again.hint).toBeUndefined();
    expect(again.text).not.toContain('Hint:');
    // Another cause in the same session is explained on its own.
    const net = await call(c, ['git', 'ls-remote', 'https://example.com/x.git']);
    // With network fetch, the sandbox's only way out is the egress proxy, which refuses at once and names the setting.
    expect(net.text).toMatch(/\[network\] example\.com:443 \(CONNECT\) refused: .*use network: domains \(guardedShell\.network, --network domains\)/);
    // A new session hears it again.
    const c2 = await httpClient(servers[0]!.url);
    clients.push(c2);
    expect((await call(c2, remote)).text).toContain("Hint: The sandbox keeps .git's configuration and hooks read-only");
  });
});
