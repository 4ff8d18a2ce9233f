import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

/**
 * The layering rules in eslint.config.mjs are not hollow: each one fires on a violating file at the place it
 * forbids, and stays quiet where the import belongs. (`npm test` lints the real tree with the same config.)
 */
const eslint = new ESLint({ cwd: path.resolve(__dirname, '../../..') });
const ruleIds = async (filePath: string, code: string) => (await eslint.lintText(code, { filePath }))[0]!.messages.map((m) => m.ruleId);

describe('layering rules', () => {
  it.each([
    ['vscode outside src/extension', 'src/core/policy.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n", 'no-restricted-imports'],
    ['the MCP SDK in src/core', 'src/core/policy.ts', "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const x = McpServer;\n", 'no-restricted-imports'],
    ['the MCP SDK in src/extension', 'src/extension/settings.ts', "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';\nexport const x = McpServer;\n", 'no-restricted-imports'],
    ['child_process outside the launchers', 'src/server/createServer.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n", 'no-restricted-imports'],
    ['child_process in the executor beside the launchers', 'src/core/exec/command.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n", 'no-restricted-imports'],
    ['child_process in src/core/files', 'src/core/files/sed.ts', "import { execFile } from 'child_process';\nexport const x = execFile;\n", 'no-restricted-imports'],
    ['src/server depending on src/extension', 'src/server/createServer.ts', "import { activate } from '../extension/extension';\nexport const x = activate;\n", 'no-restricted-imports'],
    ['a floating promise', 'src/server/createServer.ts', 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n', '@typescript-eslint/no-floating-promises'],
  ])('denies %s', async (_what, file, code, rule) => {
    expect(await ruleIds(file, code)).toContain(rule);
  }, 60_000);

  it('allows child_process in the launchers (src/core/exec/launch) and vscode in src/extension', async () => {
    expect(await ruleIds('src/core/exec/launch/spawn.ts', "import { spawn } from 'node:child_process';\nexport const x = spawn;\n")).toEqual([]);
    expect(await ruleIds('src/extension/settings.ts', "import * as vscode from 'vscode';\nexport const x = vscode;\n")).toEqual([]);
  }, 60_000);
});
