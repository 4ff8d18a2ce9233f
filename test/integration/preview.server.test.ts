import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeWith } from '../helpers/needs';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';

/**
 * Command preview through the real server over the MCP SDK client (Streamable HTTP), real bubblewrap, real
 * overlayfs: in `confirm` the client's elicitation answers two questions per changing command, the command's own
 * and then its effect's; the effect's question carries the diff, and the folder is untouched while it is open.
 */

describeWith('bubblewrap', 'overlay')('command preview over MCP (real server, real sandbox)', () => {
  let base: string;
  let root: string;
  let server: RunningServer;
  let client: Client;
  /** The effect questions seen, and what the folder held while each was open. */
  const seen: { message: string; files: string[] }[] = [];
  let applyNext = true;

  beforeAll(async () => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-preview-mcp-')));
    root = path.join(base, 'ws');
    fs.mkdirSync(root);
    server = await startServer(
      ['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--mode', 'confirm', '--allow', 'touch', 'sh', '--command-preview', 'asked', '--edit-backup', 'storage', '--approver', 'elicitation'],
      { XDG_STATE_HOME: path.join(base, 'state') },
    );
    client = await httpClient(server.url, TOKEN, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      const message = req.params.message;
      if (/apply the changes/.test(message)) {
        seen.push({ message, files: fs.readdirSync(root).sort() });
        return { action: 'accept', content: { approve: applyNext, ...(!applyNext && { reason: 'keep it as it is' }) } };
      }
      return { action: 'accept', content: { approve: true } };
    });
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen.length = 0;
    for (const e of fs.readdirSync(root)) fs.rmSync(path.join(root, e), { recursive: true, force: true });
    fs.writeFileSync(path.join(root, 'tracked.txt'), 'one\n');
  });

  const call = async (command: string[]) => structured(await client.callTool({ name: 'shell_execute', arguments: { command } }, undefined, { timeout: 60_000 }));

  it('asks to apply the effect with its diff while the folder is untouched; Apply lands exactly those bytes', async () => {
    applyNext = true;
    const touched = await call(['touch', 'new.txt']);
    expect(touched.outcome).toBe('ok');
    expect(seen[0]!.files).toEqual(['tracked.txt']);
    expect(seen[0]!.message).toContain('created: new.txt');
    expect(touched.effect).toMatchObject({ via: 'preview', outcome: 'applied', undoable: true });
    expect(fs.readFileSync(path.join(root, 'new.txt')).length).toBe(0);

    const rewritten = await call(['sh', '-c', 'echo two >> tracked.txt']);
    expect(seen[1]!.files).toEqual(['new.txt', 'tracked.txt']);
    expect(seen[1]!.message).toContain('--- a/tracked.txt\n+++ b/tracked.txt\n@@ -1,1 +1,2 @@\n one\n+two');
    expect(rewritten.effect.outcome).toBe('applied');
    expect(fs.readFileSync(path.join(root, 'tracked.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('Discard: the folder stays as it was, and the agent hears the reason', async () => {
    applyNext = false;
    const r = await call(['sh', '-c', 'echo two >> tracked.txt; touch other.txt']);
    expect(r.outcome).toBe('ok');
    expect(r.effect).toMatchObject({ outcome: 'discarded', undoable: false });
    expect(r.effect.message).toContain('keep it as it is');
    expect(fs.readdirSync(root)).toEqual(['tracked.txt']);
    expect(fs.readFileSync(path.join(root, 'tracked.txt'), 'utf8')).toBe('one\n');
  });
});

/**
 * The server as a normal user (root runs this suite: it starts the server as nobody): the mount step makes the view
 * in a user namespace of its own (overlayfs with `userxattr`), bubblewrap inside it keeps the server's uid, and
 * the effect is applied as that user.
 */
describeWith('bubblewrap', 'overlay')('command preview as a normal user (user namespace, userxattr)', () => {
  const nobody = { uid: 65534, gid: 65534 };
  let base: string;
  let root: string;
  let server: RunningServer | undefined;
  let client: Client | undefined;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) return;
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-preview-nobody-')));
    fs.chmodSync(base, 0o755);
    root = path.join(base, 'ws');
    fs.mkdirSync(root);
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src', 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(root, 'src', 'b.txt'), 'b\n');
    fs.mkdirSync(path.join(base, 'state'));
    for (const p of [root, path.join(root, 'src'), path.join(root, 'src', 'a.txt'), path.join(root, 'src', 'b.txt'), path.join(base, 'state')]) fs.chownSync(p, nobody.uid, nobody.gid);
    server = await startServer(
      ['--cwd', root, '--auth', TOKEN, '--quiet', '--isolation', 'required', '--mode', 'confirm', '--allow', 'sh', '--command-preview', 'asked', '--edit-backup', 'storage', '--approver', 'elicitation'],
      { XDG_STATE_HOME: path.join(base, 'state'), HOME: path.join(base, 'state'), TMPDIR: '/tmp' },
      { user: nobody },
    );
    client = await httpClient(server.url, TOKEN, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it('previews and applies as that user: a folder removed and made again (opaque, user.overlay.opaque), files owned by it', async (ctx) => {
    if (process.getuid?.() !== 0) return ctx.skip('needs root to start the server as another user'); // skipped: only root can start a server as another user (CI runs as root)
    const r = structured(await client!.callTool({ name: 'shell_execute', arguments: { command: ['sh', '-c', 'id -u > uid.txt; rm -rf src && mkdir src && echo c > src/c.txt'] } }, undefined, { timeout: 60_000 }));
    expect(r.outcome).toBe('ok');
    expect(r.effect).toMatchObject({ via: 'preview', outcome: 'applied' });
    expect(Object.fromEntries(r.effect.files.map((f: { path: string; change: string }) => [f.path, f.change]))).toEqual({ 'uid.txt': 'created', 'src/a.txt': 'deleted', 'src/b.txt': 'deleted', 'src/c.txt': 'created' });
    expect(fs.readFileSync(path.join(root, 'uid.txt'), 'utf8')).toBe('65534\n');
    expect(fs.readdirSync(path.join(root, 'src'))).toEqual(['c.txt']);
    expect(fs.statSync(path.join(root, 'src', 'c.txt')).uid).toBe(nobody.uid);
  });
});
