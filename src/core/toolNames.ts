/**
 * Every tool the server can offer, exactly as the origins spell them (mcp-shell-server's `shell_execute`,
 * cmdshellmcp's `cmdshell` and file tools, plus `replaceInFile`). `disableTools` is checked against this list; the
 * tool registry in src/server/tools is tested to register exactly these.
 */
export const TOOL_NAMES = [
  'shell_execute', 'cmdshell', 'readFile', 'listFiles', 'writeFile', 'copyFile', 'moveRenameFile', 'deleteFile',
  'mkdir', 'rmdir', 'editFile', 'applyPatch', 'replaceInFile', 'fetch',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
