import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { copyFileTool, deleteFileTool, mkdirTool, moveRenameFileTool, rmdirTool } from '../../../core/files/manage';
import type { FileDeps } from '../../../core/files/types';
import { writeFileTool } from '../../../core/files/write';
import { fileCall } from './deps';
import { fileOutputShape, toFileToolResult } from './result';

const CHANGE = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } as const;
const CHECKED = 'Paths stay inside the workspace (symbolic links are judged by where they lead); .git internals, the server\'s own files and protected globs cannot be changed; the change may need approval.';

export function registerChangeTools(server: McpServer, deps: FileDeps, enabled: (name: string) => boolean): void {
  if (enabled('writeFile')) {
    server.registerTool(
      'writeFile',
      {
        title: 'Write a file',
        description: `Write (or append) text to a file inside the workspace, atomically. The parent folder must exist unless mkdirs is true. The result includes the diff of what was written. ${CHECKED}`,
        inputSchema: {
          file: z.string().describe('Path relative to the workspace root.'),
          text: z.string().describe('The text to write.'),
          append: z.boolean().default(false).describe('Append instead of replacing the file.'),
          newline: z.boolean().default(true).describe('End the text with a line break if it does not end with one.'),
          mkdirs: z.boolean().default(false).describe('Create missing parent folders.'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Write a file', ...CHANGE },
      },
      async (args, extra) => toFileToolResult(await writeFileTool(deps, fileCall('writeFile', extra), args), 'change'),
    );
  }
  if (enabled('copyFile')) {
    server.registerTool(
      'copyFile',
      {
        title: 'Copy a file',
        description: `Copy a regular file to a new path (the folder must exist). An existing destination is replaced only with overwrite: true. ${CHECKED}`,
        inputSchema: {
          source: z.string().describe('Existing file, relative to the workspace root.'),
          destination: z.string().describe('New file path, relative to the workspace root.'),
          overwrite: z.boolean().default(false).describe('Replace an existing destination file.'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Copy a file', ...CHANGE },
      },
      async (args, extra) => toFileToolResult(await copyFileTool(deps, fileCall('copyFile', extra), args), 'change'),
    );
  }
  if (enabled('moveRenameFile')) {
    server.registerTool(
      'moveRenameFile',
      {
        title: 'Move or rename a file',
        description: `Move or rename a regular file (not a folder, not a symbolic link). An existing destination is replaced only with overwrite: true. ${CHECKED}`,
        inputSchema: {
          source: z.string().describe('Existing file, relative to the workspace root.'),
          destination: z.string().describe('New path, relative to the workspace root.'),
          overwrite: z.boolean().default(false).describe('Replace an existing destination file.'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Move or rename a file', ...CHANGE },
      },
      async (args, extra) => toFileToolResult(await moveRenameFileTool(deps, fileCall('moveRenameFile', extra), args), 'change'),
    );
  }
  if (enabled('deleteFile')) {
    server.registerTool(
      'deleteFile',
      {
        title: 'Delete a file',
        description: `Delete one regular file (not a folder, not a symbolic link). ${CHECKED}`,
        inputSchema: { file: z.string().describe('File relative to the workspace root.') },
        outputSchema: fileOutputShape,
        annotations: { title: 'Delete a file', ...CHANGE },
      },
      async (args, extra) => toFileToolResult(await deleteFileTool(deps, fileCall('deleteFile', extra), args), 'change'),
    );
  }
  if (enabled('mkdir')) {
    server.registerTool(
      'mkdir',
      {
        title: 'Create a folder',
        description: `Create a folder; with parents: true, missing parent folders too (and an existing folder is fine). ${CHECKED}`,
        inputSchema: {
          path: z.string().describe('Folder relative to the workspace root.'),
          parents: z.boolean().default(false).describe('Create missing parents; succeed if the folder exists.'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Create a folder', ...CHANGE, destructiveHint: false },
      },
      async (args, extra) => toFileToolResult(await mkdirTool(deps, fileCall('mkdir', extra), args), 'change'),
    );
  }
  if (enabled('rmdir')) {
    server.registerTool(
      'rmdir',
      {
        title: 'Remove an empty folder',
        description: `Remove an EMPTY folder (never recursive). ${CHECKED}`,
        inputSchema: { path: z.string().describe('Folder relative to the workspace root.') },
        outputSchema: fileOutputShape,
        annotations: { title: 'Remove an empty folder', ...CHANGE },
      },
      async (args, extra) => toFileToolResult(await rmdirTool(deps, fileCall('rmdir', extra), args), 'change'),
    );
  }
}
