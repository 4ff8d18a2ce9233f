// The layering rules, enforced (run by `npm test`):
//   - `vscode` only in src/extension (pure logic is tested without VS Code);
//   - the MCP SDK only in src/server (src/core decides everything and knows no protocol);
//   - `child_process` only in src/core/exec/launch (every process, the sed editor and the sandbox probe included, is
//     started by the launcher of the platform or its helper runner: no other path can start one uncontained);
//   - nothing outside src/extension imports from it;
//   - no floating promises (an unhandled rejection in a guard is a silent failure).
import tseslint from 'typescript-eslint';

const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const VSCODE = { group: ['vscode'], message: 'vscode may only be imported in src/extension.' };
const SDK = { group: ['@modelcontextprotocol/sdk', '@modelcontextprotocol/sdk/*'], message: 'The MCP SDK may only be imported in src/server.' };
const CHILD = { group: ['child_process', 'node:child_process'], message: 'Processes are started only by the launchers, src/core/exec/launch.' };
const EXT = { group: ['**/extension/**', '../extension', '../../extension'], message: 'Nothing outside src/extension depends on it (shared view code lives in src/shared).' };

export default tseslint.config(
  { ignores: ['dist/**', '.bench/**', 'node_modules/**', 'media/**', 'test/**', 'bench/**', 'scripts/**', '*.mjs', '*.ts'] },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: { '@typescript-eslint/no-floating-promises': 'error', ...restrict(VSCODE, SDK, CHILD, EXT) },
  },
  { files: ['src/extension/**/*.ts'], rules: restrict(SDK, CHILD) },
  { files: ['src/server/**/*.ts'], rules: restrict(VSCODE, CHILD, EXT) },
  { files: ['src/core/exec/launch/**/*.ts'], rules: restrict(VSCODE, SDK, EXT) },
);
