import * as vscode from 'vscode';
import { settingsFromVscode, VSCODE_SETTING_KEYS, type InspectedSettings, type VscodeSettingsResult } from '../core/config/vscodeSettings';

export const SECTION = 'guardedShell';

/**
 * Reads every `guardedShell.*` setting for one folder, scope by scope (inspect), and turns it into the settings
 * layer the server runs with. Which scope may set what is decided in the pure vscodeSettings.ts.
 */
export function readFolderSettings(folder: vscode.WorkspaceFolder): VscodeSettingsResult {
  const config = vscode.workspace.getConfiguration(SECTION, folder.uri);
  const inspected: InspectedSettings = {};
  for (const key of VSCODE_SETTING_KEYS) {
    const i = config.inspect(key);
    if (i) inspected[key] = { defaultValue: i.defaultValue, globalValue: i.globalValue, workspaceValue: i.workspaceValue, workspaceFolderValue: i.workspaceFolderValue };
  }
  return settingsFromVscode(inspected);
}
