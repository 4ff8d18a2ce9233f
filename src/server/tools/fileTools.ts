import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Approver } from '../../core/approval';
import type { ServerContext } from '../context';

/**
 * Registers the file, edit, patch and fetch tools (readFile, writeFile, listFiles, editFile, applyPatch,
 * replaceInFile, copyFile, moveRenameFile, deleteFile, mkdir, rmdir, fetch), each through the shared pipeline.
 */
export function registerFileTools(_server: McpServer, _ctx: ServerContext, _approver: () => Approver, _disabled: ReadonlySet<string>): void {
  // Filled by the file tools (issue 4).
}
