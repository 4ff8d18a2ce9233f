import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAdvice } from '../../src/core/advice';
import type { Approver } from '../../src/core/approval';
import { AuditLog } from '../../src/core/audit';
import { judgeCommand } from '../../src/core/commands/rules';
import { createExecutor } from '../../src/core/exec/executor';
import { NO_ISOLATION, type IsolationState } from '../../src/core/isolationState';
import { offers } from '../../src/core/offers';
import { parsePolicy, type Policy, type PolicyInput } from '../../src/core/policy';
import { ServerContext } from '../../src/server/context';
import { createServer, instructions } from '../../src/server/createServer';
import { TOOLS } from '../../src/server/tools';
import { toolDescription } from '../../src/server/toolCatalog';
import { adviceProblems, PROGRAMS } from '../helpers/adviceCheck';
import { REPO } from '../helpers/serverProcess';

/**
 * Every message true in the current policy (issue 29): every tool description, the server instructions, every
 * refusal the argument rules can give and the answers of a corpus of calls through the real server are walked
 * under several policies, and none may advise what the policy refuses — a tool it does not offer, a program the
 * allowlist does not let run, a redirect where none can run, a backup the setting does not keep
 * (test/helpers/adviceCheck.ts). The rule refusals are generated from the rules' own source (every option token
 * they name, for every program family, and every never-runnable name), so a new rule is walked without an edit here.
 */

const FAMILIES = ['find', 'awk', 'tar', 'sort', 'sed', 'git', 'zip', 'wget', 'gcc', 'openssl', 'curl'];
const GIT_SUBCOMMANDS = ['log', 'diff', 'show', 'format-patch', 'grep', 'archive', 'clone', 'fetch', 'config', 'help', 'blame'];

let root: string;
const POLICIES: Record<string, Omit<PolicyInput, 'root'>> = {
  'the standalone defaults': {},
  'mode readOnly, backups in the store': { mode: 'readOnly', editBackup: 'storage' },
  'confirm, only applyPatch changes files, the rule families allowlisted': {
    mode: 'confirm', disableTools: ['editFile', 'writeFile'],
    allowCommands: ['ls', 'cat', 'grep', 'find', 'sed', 'sort', 'awk', 'git', 'tar', 'zip', 'wget', 'curl', 'openssl', 'gcc', 'head', 'wc', 'echo', 'seq'],
  },
  'confirmChanges, cmdshell alone, no backups, no readOutput': {
    mode: 'confirmChanges', editBackup: 'none', disableTools: ['shell_execute', 'readOutput', 'fetch', 'applyPatch'], allowCommands: ['ls', 'git', 'seq', 'sed'],
  },
  'auto, ls alone, network off, backups in the store, no cmdshell': { mode: 'auto', allowCommands: ['ls'], network: 'deny', editBackup: 'storage', disableTools: ['cmdshell'] },
};
const policies = (): [string, Policy][] => Object.entries(POLICIES).map(([name, p]) => [name, parsePolicy({ root, ...p } as PolicyInput)]);


beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gs-messages-')));
  const seed = path.join(root, 'seed');
  fs.mkdirSync(path.join(seed, '.git'), { recursive: true });
  fs.writeFileSync(path.join(seed, 'f.txt'), 'alpha\nbeta\n');
  fs.writeFileSync(path.join(seed, 'bin.dat'), Buffer.from([0, 1, 2, 3]));
  fs.writeFileSync(path.join(seed, 'big.txt'), 'a line of a long file\n'.repeat(5000));
  fs.mkdirSync(path.join(seed, 'dir'));
  fs.mkdirSync(path.join(seed, 'full'));
  fs.writeFileSync(path.join(seed, 'full', 'x'), 'x');
  fs.writeFileSync(path.join(seed, '.git', 'config'), '[core]\n');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('the advice check itself', () => {
  it("catches the messages this issue found untrue (so the walk below can fail)", () => {
    const p = (input: Omit<PolicyInput, 'root'>) => parsePolicy({ root, ...input } as PolicyInput);
    expect(adviceProblems('sed -i is not allowed: it edits files in place; use the edit tool, which shows a diff first.', p({ disableTools: ['editFile'] }))).toHaveLength(1);
    expect(adviceProblems('Run a command known to only read (ls, cat, grep, find, git log …) without any approval.', p({}))).toEqual([expect.stringMatching(/git/)]);
    expect(adviceProblems('the old content is kept as the next numbered backup (file.bk1, file.bk2 …)', p({ editBackup: 'storage' }))).toHaveLength(1);
    expect(adviceProblems('Pipes and redirects are separate elements: ["sort","a",">","b"].', p({ mode: 'readOnly' }))).toHaveLength(1);
    expect(adviceProblems('Anything else is refused: use shell_execute.', p({ disableTools: ['shell_execute'] }))).toHaveLength(1);
    expect(adviceProblems('readOutput {"id":"o1"} reads it', p({ disableTools: ['readOutput'] }))).toHaveLength(1);
    expect(adviceProblems('Run it: command "make", args ["test"]', p({}))).toHaveLength(1);
    // What it must not flag: the subject of a refusal, a program the allowlist lets run, plain words.
    expect(adviceProblems('git log --output=x is not allowed.', p({ allowCommands: ['ls'] }), { programs: ['git'] })).toEqual([]);
    expect(adviceProblems('Run ["ls","-la","|","wc","-l"] (ls, cat …).', p({}))).toEqual([]);
    expect(PROGRAMS.has('bash') && PROGRAMS.has('python')).toBe(true);
  });
});

describe('the advice a refusal gives is the route the policy offers', () => {
  const advised = (argv: string[], input: Omit<PolicyInput, 'root'>) => {
    const v = judgeCommand(argv);
    if (v.kind !== 'deny') throw new Error(`${argv.join(' ')} was not refused`);
    return withAdvice(v.reason, v.rule, parsePolicy({ root, ...input } as PolicyInput));
  };
  it('sed -i names the edit tool that is offered, or says none is', () => {
    expect(advised(['sed', '-i', 's/a/b/', 'f'], {})).toMatch(/Use replaceInFile to change the file: it shows a diff first\.$/);
    expect(advised(['sed', '-i', 's/a/b/', 'f'], { disableTools: ['editFile'] })).toMatch(/Use applyPatch to change the file/);
    expect(advised(['sed', '-i', 's/a/b/', 'f'], { mode: 'readOnly' })).toMatch(/File changes are not offered here\.$/);
  });
  it('sort -o and git --output name a redirect only where one can run', () => {
    expect(advised(['sort', '-o', 'out', 'f'], {})).toMatch(/add a redirect instead \(in shell_execute: ">", "out\.txt"/);
    expect(advised(['sort', '-o', 'out', 'f'], { mode: 'readOnly' })).toMatch(/Write to standard output instead\.$/);
    expect(advised(['git', 'log', '--output=x'], { disableTools: ['shell_execute'] })).toMatch(/Write to standard output instead\.$/);
  });
});

describe('every description and the instructions, under each policy', () => {
  it.each(Object.keys(POLICIES))('%s', (name) => {
    const policy = policies().find(([n]) => n === name)![1];
    const problems: string[] = [];
    for (const def of TOOLS) {
      if (!offers(policy, def.name)) continue;
      for (const p of adviceProblems(toolDescription(def, policy), policy, { tool: def.name })) problems.push(`${def.name}: ${p}`);
    }
    const warned: IsolationState = { kind: 'none', warning: 'No sandbox here: commands run with the server\'s permissions.' };
    for (const isolation of [NO_ISOLATION, warned]) for (const p of adviceProblems(instructions({ isolation, policy }), policy)) problems.push(`instructions: ${p}`);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});

/** Every option token the rules name, read from their source. */
function ruleTokens(): string[] {
  const dir = path.join(REPO, 'src/core/commands/rules');
  const tokens = new Set<string>();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const src = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of src.matchAll(/['"`](--?[A-Za-z0-9][\w-]*=?)['"`]/g)) tokens.add(m[1]!);
    // The option tables written as words (`in-place:o line-length:r …`, `{ short: 'o' }`).
    for (const m of src.matchAll(/(?:^|\s)([a-z][a-z0-9-]+):[nroa]\b/g)) tokens.add(`--${m[1]}`);
    for (const m of src.matchAll(/short: '([A-Za-z])'/g)) tokens.add(`-${m[1]}`);
  }
  return [...tokens];
}

describe('every refusal of the argument rules, with the advice the pipeline adds, under each policy', () => {
  const refusals = new Map<string, { message: string; rule: string; programs: string[] }>();
  beforeAll(() => {
    const tokens = ruleTokens();
    const requests: string[][] = [...PROGRAMS].map((p) => [p, '-c', 'x']);
    for (const program of FAMILIES) for (const t of tokens) requests.push([program, t, 'x', 'y']);
    for (const sub of GIT_SUBCOMMANDS) for (const t of tokens) requests.push(['git', sub, t, 'x']);
    requests.push(['awk', 'BEGIN { print "x" > "out" }'], ['awk', 'BEGIN { system("id") }'], ['sed', 's/a/b/w out', 'f'], ['sed', '1e id', 'f'], ['find', '.', '-exec', 'ls', ';']);
    for (const argv of requests) {
      const v = judgeCommand(argv);
      if (v.kind === 'deny') refusals.set(`${v.rule}\0${v.reason}`, { message: v.reason, rule: v.rule, programs: [argv[0]!] });
    }
  });

  it('produces refusals from every family (the walk reaches the rules)', () => {
    const rules = new Set([...refusals.values()].map((r) => r.rule.split('.')[0]));
    for (const family of ['find', 'awk', 'tar', 'sort', 'sed', 'git', 'zip', 'wget', 'curl']) expect(rules.has(family), family).toBe(true);
    console.log(`${refusals.size} distinct rule refusals walked`);
  });

  it.each(Object.keys(POLICIES))('%s', (name) => {
    const policy = policies().find(([n]) => n === name)![1];
    const problems: string[] = [];
    for (const r of refusals.values()) {
      for (const p of adviceProblems(withAdvice(r.message, r.rule, policy), policy, { programs: r.programs })) problems.push(`${r.rule}: ${p}`);
    }
    expect([...new Set(problems)], [...new Set(problems)].join("\n")).toEqual([]);
  });
});

/** Calls an agent makes, right and wrong: commands (through every command tool the policy offers) and file tools. */
const COMMANDS: string[][] = [
  ['sed', '-i', 's/a/b/', 'f.txt'], ['sort', '-o', 'out', 'f.txt'], ['find', '.', '-exec', 'ls', ';'], ['find', '.', '-delete'],
  ['awk', '{ print > "x" }', 'f.txt'], ['git', 'log', '--output=x'], ['git', 'format-patch', '-o', 'd'], ['bash', '-c', 'ls'],
  ['python3', '-c', '1'], ['./script.sh'], ['make'], ['npm', 'test'], ['ls', '&&', 'ls'], ['ls', '>', 'out.txt'], ['cat', '<', 'missing.txt'],
  ['ls', '-la', '|', 'wc', '-l'], ['cat', '../outside'], ['ls -la'], ['echo', 'x', '>', '.git/config'], ['touch', 'x'],
  ['tar', '-cf', 'a.tar', '--to-command=sh', '.'], ['curl', '-o', 'x', 'http://example.com'], ['seq', '1', '100000'], ['ls'],
];
const FILE_CALLS: [string, Record<string, unknown>][] = [
  ['readFile', { file: '../x' }], ['readFile', { file: 'bin.dat' }], ['readFile', { file: 'missing' }], ['readFile', { file: 'big.txt' }],
  ['readFile', { file: 'f.txt', byteOffset: 0, offset: 1 }], ['listFiles', { path: '../' }], ['listFiles', {}],
  ['writeFile', { file: '.git/config', text: 'x' }], ['writeFile', { file: 'w.txt', text: 'y' }],
  ['editFile', { file: 'f.txt', script: 'w /tmp/x' }], ['editFile', { file: 'f.txt', script: 's/alpha/ALPHA/' }],
  ['replaceInFile', { file: 'f.txt', oldText: '', newText: 'x' }], ['replaceInFile', { file: 'f.txt', oldText: 'zzz', newText: 'x' }],
  ['applyPatch', { file: 'f.txt', diff: '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-a\n+b\n' }],
  ['deleteFile', { file: 'dir' }], ['rmdir', { path: 'full' }], ['mkdir', { path: 'f.txt' }],
  ['copyFile', { source: 'f.txt', destination: 'big.txt' }], ['moveRenameFile', { source: 'f.txt', destination: '.git/f.txt' }],
  ['fetch', { url: 'http://127.0.0.1:1/' }], ['fetch', { url: 'file:///etc/passwd' }], ['readOutput', { id: 'o99' }],
];
/** Fields of a result that hold data (output, file content), not messages. */
const DATA = new Set(['stdout', 'stderr', 'content', 'body', 'entries', 'diff']);

function messagesOf(value: unknown, out: string[] = [], key = ''): string[] {
  if (typeof value === 'string' && !DATA.has(key)) out.push(value);
  else if (Array.isArray(value) && !DATA.has(key)) for (const v of value) messagesOf(v, out, key);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) messagesOf(v, out, k);
  return out;
}

describe('the answers of the real server to a corpus of calls, under each policy', () => {
  const approveAll: Approver = { kind: 'test', approve: async () => ({ approved: true, by: 'test' }) };

  it.each(Object.keys(POLICIES))('%s', async (name) => {
    // A workspace of its own: one policy's edits (a numbered backup) are not another's listing.
    const ws = path.join(root, 'ws-' + Object.keys(POLICIES).indexOf(name));
    fs.cpSync(path.join(root, 'seed'), ws, { recursive: true });
    const policy = parsePolicy({ ...POLICIES[name], root: ws } as PolicyInput);
    const executor = createExecutor({ concurrency: 2 });
    const ctx = new ServerContext(policy, executor, new AuditLog(), NO_ISOLATION, approveAll, 'test');
    const { server, dispose } = createServer(ctx);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'walk', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    const problems: string[] = [];
    const check = (tool: string, args: Record<string, unknown>, r: Record<string, unknown>, programs: string[]) => {
      // Output, file content and listings are data, in structuredContent and repeated in the text: only what the
      // server itself wrote around them (status, references, notes, refusals) is a message.
      const sc = (r.structuredContent ?? {}) as Record<string, unknown>;
      const data = [...DATA].map((k) => (Array.isArray(sc[k]) ? (sc[k] as string[]).join('\n') : sc[k])).filter((d): d is string => typeof d === 'string' && d !== '');
      const strip = (t: string) => data.reduce((acc, d) => acc.split(d).join(''), t);
      const texts = [...((r.content as { text?: string }[] | undefined) ?? []).map((c) => strip(c.text ?? '')), ...messagesOf(r.structuredContent)];
      const own = tool === 'readOutput' ? texts.slice(1) : texts;
      for (const t of own) for (const p of adviceProblems(t, policy, { tool, programs })) problems.push(`${tool} ${JSON.stringify(args)}: ${p}`);
    };
    try {
      const offered = new Set((await client.listTools()).tools.map((t) => t.name));
      for (const tool of ['shell_execute', 'shell_readonly', 'cmdshell'].filter((t) => offered.has(t))) {
        for (const argv of COMMANDS) {
          if (tool === 'shell_readonly' && argv.some((a) => a === '>')) continue;
          const args = tool === 'cmdshell' ? { command: argv[0], args: argv.slice(1) } : { command: argv };
          const r = await client.callTool({ name: tool, arguments: args });
          const programs = argv.filter((_a, i) => i === 0 || argv[i - 1] === '|').map((p) => p.split(' ')[0]!);
          if (r.isError || (r.structuredContent as { stdoutId?: string } | undefined)?.stdoutId) check(tool, args, r, programs);
        }
      }
      for (const [tool, args] of FILE_CALLS) {
        if (!offered.has(tool)) continue;
        check(tool, args, await client.callTool({ name: tool, arguments: args }), []);
      }
    } finally {
      await client.close();
      dispose();
      await executor.shutdown();
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
