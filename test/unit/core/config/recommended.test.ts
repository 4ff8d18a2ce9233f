import { describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../../../src/core/config/configFile';
import { RECOMMENDED_SETUP, recommendedConfigFile, recommendedVscodeSettings } from '../../../../src/core/config/recommended';
import { settingsFromVscode } from '../../../../src/core/config/vscodeSettings';

/**
 * The five-minute setup is shown twice in the docs (VS Code user settings, guarded-shell.json) and measured once
 * (test/integration/agentJob.test.ts, through the config file): both forms must mean exactly the same settings.
 */
describe('the recommended five-minute setup', () => {
  it('as VS Code user settings, read by the extension, is the setup (nothing ignored)', () => {
    const inspected = Object.fromEntries(Object.entries(recommendedVscodeSettings()).map(([k, v]) => [k.replace(/^guardedShell\./, ''), { globalValue: v }]));
    const { layer, ignored } = settingsFromVscode(inspected);
    expect(ignored).toEqual([]);
    expect(layer).toMatchObject(RECOMMENDED_SETUP);
  });

  it('as a config file, read by the standalone server, is the setup', () => {
    const { configFile: _, ...layer } = parseConfigFile(JSON.stringify(recommendedConfigFile()), '/tmp/guarded-shell.json');
    expect(layer).toEqual(RECOMMENDED_SETUP);
  });
});
