import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { httpClient, startServer, structured, TOKEN, type RunningServer } from '../helpers/serverProcess';
import { requires } from '../helpers/needs';
import { launch } from './harness';

// Globals of the page, for the callbacks that run inside Chromium (the project compiles without the DOM lib).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;

/**
 * The standalone approval page (`--approver web`) in real headless Chromium against the real server process
 * (dist/cli.js): the MCP client's call waits until a person decides on the page, which the client can neither
 * see nor answer. The page secret and the bearer token each open only their own door.
 */

const hasChromium = requires('chromium');
let browser: Browser;
let server: RunningServer;
let pageUrl: string;
let origin: string;
let secret: string;
let ws: string;
let serverCwd: string;
const pages: Page[] = [];

function workspace(): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-webappr-')));
}

/** The link the server printed for the person (stderr), with the secret in its fragment. */
function approvalLink(s: RunningServer): string {
  const m = /approvals: open (http:\/\/127\.0\.0\.1:\d+\/#s=[A-Za-z0-9_-]+) /.exec(s.stderr());
  if (!m) throw new Error(`no approval link printed: ${s.stderr()}`);
  return m[1]!;
}

beforeAll(async () => {
  if (!hasChromium) return;
  ws = workspace();
  fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  // The server's own folder: where "Always allow" creates guarded-shell.json (never the repository running the tests).
  serverCwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-page-cwd-')));
  server = await startServer(['--cwd', ws, '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'confirm', '--allow', 'echo', '--approver', 'web'], {}, { cwd: serverCwd });
  pageUrl = approvalLink(server);
  origin = new URL(pageUrl).origin;
  secret = new URL(pageUrl).hash.slice('#s='.length);
  browser = await launch();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});
afterEach(async () => {
  for (const p of pages.splice(0)) await p.context().close();
});

async function open(url: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  pages.push(page);
  const violations: string[] = [];
  await page.exposeFunction('__violation', (v: string) => violations.push(v));
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e: any) => window.__violation(`${e.violatedDirective} ${e.blockedURI}`)));
  await page.goto(url);
  (page as unknown as { violations: string[] }).violations = violations;
  return page;
}

/** A GET with a chosen Host header (fetch sends the URL's own). */
function statusWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { ...headers, Host: host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
}

/** Waits for the one card on the page and until it accepts clicks (cards arm for 500 ms after appearing). */
async function armedCard(page: Page) {
  const card = page.locator('li.card');
  await card.waitFor();
  await page.waitForFunction(() => !document.querySelector('li.card[aria-disabled="true"]'));
  return card;
}

describe('standalone approval page in Chromium (--approver web)', () => {
  it('shows the command the client asked for as argv chips; Approve runs it and the client gets the output', async () => {
    const page = await open(pageUrl);
    const client = await httpClient(server.url);
    const call = client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'from the page', '<b>x</b>'] } });
    const card = await armedCard(page);
    const chips = await card.locator('.argv li').evaluateAll((els) =>
      els.map((e: any) => {
        const c = e.cloneNode(true);
        c.querySelectorAll('.sr-only').forEach((x: any) => x.remove());
        return c.textContent;
      }),
    );
    expect(chips).toEqual(['echo', 'from·the·page', '<b>x</b>']);
    // Session and 15 minutes are remembered by the server; "Always" saves a rule to the config file.
    expect(await card.locator('.buttons button').allTextContents()).toEqual(['Approve', 'Deny', 'Allow for this session', 'Allow for 15 minutes', 'Always allow (rule below)']);
    expect(await page.locator('#keys-hint').textContent()).toBe('Keys inside a card: A approve, D deny, R reason, S this session, T 15 minutes, L always.');
    await card.getByRole('button', { name: 'Approve', exact: true }).click();
    const s = structured(await call);
    expect(s.outcome).toBe('ok');
    expect(s.stdout).toBe('from the page <b>x</b>\n');
    expect(s.approvedBy).toBe('web');
    await page.locator('li.card').waitFor({ state: 'detached' });
    // The history tab has it, with its outcome, from the server's own (redacted) audit.
    await page.getByRole('tab', { name: 'History' }).click();
    const row = page.locator('table.history tbody tr').filter({ hasText: 'from the page' });
    await expect.poll(() => row.locator('td.outcome').textContent()).toBe('Succeeded');
    expect((page as unknown as { violations: string[] }).violations).toEqual([]);
    await client.close();
  });

  it('a command not on the allowlist is a card; Always allow with an edited rule saves it, the next match runs without a card', async () => {
    const page = await open(pageUrl);
    const client = await httpClient(server.url);
    const call = client.callTool({ name: 'shell_execute', arguments: { command: ['wc', '-c', 'a.txt'] } });
    const card = await armedCard(page);
    expect(await card.locator('.notice.not-listed').textContent()).toContain('Not on your allowlist: "wc"');
    expect(await card.getByLabel('Rule for "Always allow"').inputValue()).toBe('wc -c a.txt');
    await card.getByLabel('Rule for "Always allow"').fill('wc -c *');
    await card.getByRole('button', { name: 'Always allow (rule below)' }).click();
    expect(structured(await call).stdout).toBe('2 a.txt\n');
    expect(JSON.parse(fs.readFileSync(path.join(serverCwd, 'guarded-shell.json'), 'utf8'))).toEqual({ autoApprove: ['wc -c *'] });
    // Covered by the rule: no card. Not covered: a card again.
    expect(structured(await client.callTool({ name: 'shell_execute', arguments: { command: ['wc', '-c', 'a.txt', 'a.txt'] } })).outcome).toBe('ok');
    const other = client.callTool({ name: 'shell_execute', arguments: { command: ['wc', '-l', 'a.txt'] } });
    const again = await armedCard(page);
    expect(await again.locator('.argv li').first().textContent()).toContain('wc');
    await again.getByRole('button', { name: 'Deny' }).click();
    expect(structured(await other).denial.code).toBe('APPROVAL_DENIED');
    // The history lists the rule; Revoke removes it from the file.
    await page.getByRole('tab', { name: 'History' }).click();
    const revoke = page.locator('li', { hasText: 'wc -c *' }).getByRole('button', { name: /Revoke/ });
    await revoke.click();
    await expect.poll(() => JSON.parse(fs.readFileSync(path.join(serverCwd, 'guarded-shell.json'), 'utf8'))).toEqual({ autoApprove: [] });
    await client.close();
  });

  it('Deny with a reason reaches the client as APPROVAL_DENIED with that reason, and nothing runs', async () => {
    const page = await open(pageUrl);
    const client = await httpClient(server.url);
    const call = client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'never'] } });
    const card = await armedCard(page);
    await card.locator('.reason-input').fill('not this one');
    await card.getByRole('button', { name: 'Deny' }).click();
    const s = structured(await call);
    expect(s.outcome).toBe('denied');
    expect(s.denial).toMatchObject({ code: 'APPROVAL_DENIED', message: 'not this one' });
    expect(s.stdout ?? '').toBe('');
    await client.close();
  });

  it('a page opened with a wrong or missing secret shows no card and cannot decide one', async () => {
    const client = await httpClient(server.url);
    const abort = new AbortController();
    const call = client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'secret'] } }, undefined, { signal: abort.signal }).catch((e: Error) => e);
    const good = await open(pageUrl);
    await armedCard(good); // the request is pending
    for (const url of [`${origin}/#s=${'A'.repeat(secret.length)}`, `${origin}/`, `${origin}/#s=`]) {
      const page = await open(url);
      await page.locator('#host-banner').waitFor();
      expect(await page.locator('#host-banner').textContent()).toContain('without its secret, or with a wrong one');
      expect(await page.locator('li.card').count()).toBe(0);
    }
    // And straight at the API: the right card id with a wrong secret decides nothing.
    const id = await good.locator('li.card').getAttribute('data-id');
    for (const headers of [{}, { 'X-Guarded-Shell-Page': 'wrong' }, { 'X-Guarded-Shell-Page': secret.slice(0, -1) }] as Record<string, string>[]) {
      const r = await fetch(`${origin}/api/message`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ type: 'decide', id, approved: true, option: 'once' }) });
      expect(r.status).toBe(401);
    }
    expect(await good.locator('li.card').count()).toBe(1);
    abort.abort();
    await call;
    await good.locator('li.card').waitFor({ state: 'detached' }); // withdrawn when the client cancelled
    await client.close();
  });

  it('an MCP client cannot reach the decision endpoint with the bearer token, and the page secret opens nothing at /mcp', async () => {
    const client = await httpClient(server.url);
    const abort = new AbortController();
    const call = client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'self-approve'] } }, undefined, { signal: abort.signal }).catch((e: Error) => e);
    const good = await open(pageUrl);
    const id = await (await armedCard(good)).getAttribute('data-id');
    const decide = JSON.stringify({ type: 'decide', id, approved: true, option: 'once' });
    const bearer = { Authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${origin}/api/message`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...bearer }, body: decide })).status).toBe(401);
    const events = await fetch(`${origin}/api/events`, { headers: bearer });
    expect(events.status).toBe(401);
    // The page's port serves nothing of MCP, with either credential.
    expect((await fetch(`${origin}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...bearer }, body: '{}' })).status).toBe(404);
    // The MCP port refuses the page secret, as a bearer token or in the page's header.
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    for (const headers of [{ Authorization: `Bearer ${secret}` }, { 'X-Guarded-Shell-Page': secret }] as Record<string, string>[]) {
      const r = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: init });
      expect(r.status).toBe(401);
    }
    // Another web page in the browser cannot call the API (its Origin is refused even with the secret).
    const cross = await fetch(`${origin}/api/message`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: 'http://evil.test', 'X-Guarded-Shell-Page': secret }, body: decide });
    expect(cross.status).toBe(403);
    // A name that resolves to 127.0.0.1 (DNS rebinding) is refused by its Host header.
    expect(await statusWithHost(`${origin}/`, 'evil.test')).toBe(403);
    expect(await statusWithHost(`${origin}/api/events`, 'evil.test', { 'X-Guarded-Shell-Page': secret })).toBe(403);
    expect(await good.locator('li.card').count()).toBe(1); // still undecided
    abort.abort();
    await call;
    await client.close();
  });

  it('a batch on the page approves exactly the listed commands of the real server, and leaves a file change pending', async () => {
    const page = await open(pageUrl);
    const client = await httpClient(server.url);
    const abort = new AbortController();
    const a = client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'one'] } });
    const b = client.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'two'] } });
    const w = client.callTool({ name: 'writeFile', arguments: { file: 'batch.txt', text: 'x' } }, undefined, { signal: abort.signal }).catch((e: Error) => e);
    await page.locator('li.card').nth(2).waitFor();
    await page.waitForFunction(() => !document.querySelector('[aria-disabled="true"]') && !document.getElementById('approve-commands').dataset.armTimer);
    await page.getByRole('button', { name: 'Approve all 2 commands…' }).click();
    const region = page.getByRole('region', { name: 'Approve these 2 commands?' });
    expect(await region.locator('li').allTextContents()).toEqual(['"echo" "one"', '"echo" "two"']);
    await page.waitForFunction(() => !document.getElementById('batch-go').dataset.armTimer);
    await region.getByRole('button', { name: 'Approve these 2' }).click();
    expect([structured(await a).stdout, structured(await b).stdout]).toEqual(['one\n', 'two\n']);
    expect(structured(await a).approvedBy).toBe('web');
    expect(await page.locator('li.card').count()).toBe(1);
    expect(await page.locator('li.card .change').count()).toBe(1);
    abort.abort();
    await w;
    await client.close();
  });

  it('ignores a card forged through window.postMessage (only the server\'s stream draws cards)', async () => {
    const page = await open(pageUrl);
    await page.locator('#empty').waitFor();
    await page.evaluate(() =>
      window.postMessage({ type: 'show', cards: [{ id: 'forged', tool: 'shell_execute', folder: 'ws', rule: 'r', reason: '', since: 0, options: ['once'], command: { stages: [['ls']], cwd: '.', isolation: 'none' } }] }, '*'),
    );
    await page.waitForTimeout(200);
    expect(await page.locator('li.card').count()).toBe(0);
  });
});

describe('standalone approver selection', () => {
  it('--approver auto asks a client that offers elicitation through it, and shows the page for one that does not', async () => {
    const s = await startServer(['--cwd', workspace(), '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'confirm', '--allow', 'echo', '--approver', 'auto']);
    try {
      const elicit = await httpClient(s.url, TOKEN, { elicitation: {} });
      elicit.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
      expect(structured(await elicit.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'a'] } })).approvedBy).toBe('elicitation');
      await elicit.close();
      const plain = await httpClient(s.url);
      const call = plain.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'b'] } });
      const page = await open(approvalLink(s));
      await (await armedCard(page)).getByRole('button', { name: 'Approve', exact: true }).click();
      expect(structured(await call).approvedBy).toBe('web');
      await plain.close();
    } finally {
      await s.stop();
    }
  });

  it('the default (elicitation) starts no page: a client without elicitation is told no approver is connected', async () => {
    const s = await startServer(['--cwd', workspace(), '--auth', TOKEN, '--quiet', '--isolation', 'none', '--mode', 'confirm', '--allow', 'echo']);
    try {
      expect(s.stderr()).not.toContain('approvals: open');
      const c = await httpClient(s.url);
      expect(structured(await c.callTool({ name: 'shell_execute', arguments: { command: ['echo', 'c'] } })).denial.code).toBe('APPROVAL_UNAVAILABLE');
      await c.close();
    } finally {
      await s.stop();
    }
  });
});
