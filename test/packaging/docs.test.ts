import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAGS } from '../../src/cli/flags';
import { CONFIG_FILE_KEYS } from '../../src/core/config/configFile';
import { ENVIRONMENT_VARIABLES } from '../../src/core/config/environment';
import { anchors, code, generatedTable, relativeLinks } from './markdown';

/**
 * The documents as a reader meets them: the README is also the extension's Marketplace page, so it stays short and
 * starts with the two commands that work on a fresh machine; every relative link and image resolves on GitHub (a
 * file of the repository, a heading's anchor); the reference tables list exactly what the code has.
 */

const REPO = path.resolve(__dirname, '../..');
const read = (rel: string) => fs.readFileSync(path.join(REPO, rel), 'utf8');
const PAGES = ['cli', 'tools', 'security', 'approvals', 'settings', 'migrating', 'development', 'hardening', 'isolation', 'network'].map((p) => `docs/${p}.md`);
const DOCUMENTS = ['README.md', 'CHANGELOG.md', ...PAGES];

describe('README', () => {
  it('fits the Marketplace page budget (12 KB)', () => {
    expect(fs.statSync(path.join(REPO, 'README.md')).size).toBeLessThanOrEqual(12 * 1024);
  });

  it('starts with the command that runs the product, the one that runs the tests, and how to run one test file', () => {
    const first = /```sh\n([\s\S]*?)```/.exec(read('README.md'))!;
    expect(read('README.md').slice(0, first.index)).toMatch(/^# Guarded Shell\s*$/);
    const lines = first[1]!.trim().split('\n').map((l) => l.replace(/#.*$/, '').trim());
    expect(lines).toEqual(['npm ci && npm start', 'npm test', 'npx vitest run test/unit/core/output.test.ts']);
    expect(fs.existsSync(path.join(REPO, 'test/unit/core/output.test.ts'))).toBe(true);
  });

  it('names the Node that runs the product and the Node that packaging needs', () => {
    expect(read('README.md')).toMatch(/Node\.js 20 or later/);
    expect(read('README.md')).toMatch(/Node 22 or later/);
  });
});

describe('links', () => {
  for (const doc of DOCUMENTS) {
    it(`every relative link and image in ${doc} resolves in the repository`, () => {
      const broken: string[] = [];
      const text = read(doc);
      for (const { target, line } of relativeLinks(text)) {
        const [file, anchor] = decodeURI(target).split('#') as [string, string | undefined];
        const resolved = file ? path.resolve(path.dirname(path.join(REPO, doc)), file) : path.join(REPO, doc);
        if (!resolved.startsWith(REPO + path.sep) || !fs.existsSync(resolved)) {
          broken.push(`${doc}:${line}: ${target} (no such file)`);
        } else if (anchor && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
          broken.push(`${doc}:${line}: ${target} (no heading with that anchor)`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});

describe('generated reference tables match the code', () => {
  const firstWords = (doc: string, name: string) => generatedTable(read(doc), name).map((row) => code(row[0]!).split(' ')[0]!);

  it('docs/cli.md flags are exactly the CLI flags', () => {
    expect(firstWords('docs/cli.md', 'flags')).toEqual([...FLAGS.keys()]);
  });

  it('docs/cli.md environment variables are exactly the ones read', () => {
    expect(firstWords('docs/cli.md', 'environment').sort()).toEqual([...ENVIRONMENT_VARIABLES].sort());
  });

  it('docs/cli.md config-file keys are exactly the schema keys', () => {
    expect([...new Set(firstWords('docs/cli.md', 'config-file').map((k) => k.split('.')[0]!))].sort()).toEqual([...CONFIG_FILE_KEYS].sort());
  });

  it('docs/settings.md lists exactly the contributed VS Code settings', () => {
    const pkg = JSON.parse(read('package.json')) as { contributes: { configuration: { properties: Record<string, { default: unknown }> } } };
    expect(firstWords('docs/settings.md', 'vscode-settings').sort()).toEqual(Object.keys(pkg.contributes.configuration.properties).sort());
  });

  describe('docs/tools.md against the running server', () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: 'docs-test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(REPO, 'dist', 'cli.js'), '--stdio', '--quiet', '--isolation', 'none', '--cwd', REPO], stderr: 'ignore' }));
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists every tool the server offers, with its parameters and read-only hint', async () => {
      const { tools } = await client.listTools();
      const actual = tools.map((t) => {
        const required = new Set(t.inputSchema.required ?? []);
        const params = Object.keys(t.inputSchema.properties ?? {}).map((p) => (required.has(p) ? p : `${p}?`));
        return [t.name, params.join(', '), t.annotations?.readOnlyHint ? 'yes' : 'no'];
      });
      const documented = generatedTable(read('docs/tools.md'), 'tools').map((row) => [
        code(row[0]!),
        [...row[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]).join(', '),
        row[2] === 'yes' ? 'yes' : 'no', // "in mode `readOnly`": this server runs in auto
      ]);
      expect(documented).toEqual(actual);
    });
  });
});
