import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillRegions, tables, vscodeConfiguration } from '../../../../scripts/reference';
import { SETTING_IDS, SETTINGS } from '../../../../src/core/config/registry';
import { VSCODE_SETTING_KEYS } from '../../../../src/core/config/vscodeSettings';
import { TOOLS } from '../../../../src/server/tools';
import { TOOL_NAMES } from '../../../../src/core/toolNames';

/**
 * The settings registry, the mode table and the tool registry are the one source: package.json and the docs
 * tables must be exactly what they generate (run `npm run generate` after changing a setting, a mode or a tool).
 */
const ROOT = path.resolve(__dirname, '../../../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

describe('generated reference', () => {
  it("package.json's contributes.configuration is exactly the registry's VS Code settings", () => {
    const pkg = JSON.parse(read('package.json'));
    expect(pkg.contributes.configuration.properties).toEqual(vscodeConfiguration());
    expect(Object.keys(pkg.contributes.configuration.properties)).toEqual(VSCODE_SETTING_KEYS.map((k) => `guardedShell.${k}`));
  });

  it('every generated table is in the docs and up to date', () => {
    const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const seen: Record<string, string[]> = {};
    for (const f of files) {
      const text = read(f);
      const { text: filled, found } = fillRegions(text);
      expect(filled, `${f} is out of date: run npm run generate`).toBe(text);
      for (const name of found) (seen[name] ??= []).push(f);
    }
    for (const name of Object.keys(tables())) expect(seen[name]?.length ?? 0, `generated table "${name}"`).toBeGreaterThan(0);
  });

  it('the tool registry holds exactly the tool names the settings accept', () => {
    expect(TOOLS.map((t) => t.name)).toEqual([...TOOL_NAMES]);
  });

  it('every setting can be set somewhere and says what it is', () => {
    for (const id of SETTING_IDS) {
      const s = SETTINGS[id] as { summary: string; cli?: readonly unknown[]; env?: readonly unknown[]; config?: readonly unknown[]; vscode?: unknown };
      expect(s.summary.length, id).toBeGreaterThan(10);
      expect(Boolean(s.cli?.length || s.env?.length || s.config?.length || s.vscode), id).toBe(true);
    }
  });
});
