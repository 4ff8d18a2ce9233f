/**
 * Every tool the server can offer, exactly as the origins spell them (mcp-shell-server's `shell_execute`,
 * cmdshellmcp's `cmdshell` and file tools, plus `replaceInFile` and `shell_readonly`). `disableTools` is checked
 * against this list; the tool registry in src/server/tools is tested to register exactly these.
 */
export const TOOL_NAMES = [
  'shell_execute', 'shell_readonly', 'cmdshell', 'readFile', 'listFiles', 'writeFile', 'copyFile', 'moveRenameFile',
  'deleteFile', 'mkdir', 'rmdir', 'editFile', 'applyPatch', 'replaceInFile', 'fetch', 'readOutput', 'shell_background',
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/**
 * cmdshellmcp's configurations name the change tools it had (writeFile, editFile, applyPatch). A configuration
 * written for it must not silently enable the change tools added since, so an old name covers the newer tools of
 * its kind:
 * - `writeFile` (creates, replaces or removes files) also disables copyFile, moveRenameFile, deleteFile, mkdir, rmdir;
 * - `editFile` (changes a file in place) also disables replaceInFile;
 * - `shell_execute` (mcp-shell-server's one command tool) also disables shell_readonly and shell_background (which
 *   controls what shell_execute started in the background): a configuration that turns it off expects no command
 *   tool of that shape at all.
 * cmdshellmcp's own example (`["writeFile", "editFile", "applyPatch"]`) therefore leaves no change tool enabled. Each
 * newer tool can still be disabled on its own.
 */
export const TOOL_COVERS: Readonly<Partial<Record<ToolName, readonly ToolName[]>>> = {
  shell_execute: ['shell_readonly', 'shell_background'],
  writeFile: ['copyFile', 'moveRenameFile', 'deleteFile', 'mkdir', 'rmdir'],
  editFile: ['replaceInFile'],
};

/** Every tool a disableTools list turns off: the names themselves and what they cover. */
export function disabledTools(list: readonly ToolName[]): ReadonlySet<ToolName> {
  return new Set(list.flatMap((name) => [name, ...(TOOL_COVERS[name] ?? [])]));
}
