import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../../core/approval';
import type { ServerContext } from '../context';
import { registerChangeTools } from './files/changeTools';
import { fileDeps } from './files/deps';
import { registerEditTools } from './files/editTools';
import { registerFetchTool } from './files/fetchTool';
import { registerReadTools } from './files/readTools';

/** The tool names, exactly as cmdshellmcp spells them (plus replaceInFile), for `disableTools`. */
export const FILE_TOOL_NAMES = [
  'readFile', 'writeFile', 'listFiles', 'copyFile', 'moveRenameFile', 'deleteFile', 'mkdir', 'rmdir',
  'editFile', 'applyPatch', 'replaceInFile', 'fetch',
] as const;

/**
 * Registers the file, edit, patch and fetch tools, each through the shared pipeline (src/core/files,
 * src/core/fetch). A name in `disabled` is never registered.
 */
export function registerFileTools(server: McpServer, ctx: ServerContext, approver: () => Approver, disabled: ReadonlySet<string>): void {
  const deps = fileDeps(ctx, approver);
  const enabled = (name: string) => !disabled.has(name);
  registerReadTools(server, deps, enabled);
  registerEditTools(server, deps, enabled);
  registerChangeTools(server, deps, enabled);
  if (enabled('fetch')) registerFetchTool(server, deps);
}
