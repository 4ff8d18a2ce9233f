import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listFilesTool } from '../../../core/files/list';
import { readFileTool } from '../../../core/files/read';
import type { FileDeps } from '../../../core/files/types';
import { fileCall } from './deps';
import { fileOutputShape, toFileToolResult } from './result';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export function registerReadTools(server: McpServer, deps: FileDeps, enabled: (name: string) => boolean): void {
  if (enabled('readFile')) {
    server.registerTool(
      'readFile',
      {
        title: 'Read a text file',
        description:
          'Read a UTF-8 text file inside the workspace. Binary files are refused. offset (first line, 1-based) and limit (number of lines) select a window; at most the server\'s output limit is returned per call (the result says where to continue).',
        inputSchema: {
          file: z.string().describe('Path relative to the workspace root.'),
          offset: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1).'),
          limit: z.number().int().min(1).optional().describe('Number of lines to return (default: to the end).'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Read a text file', ...READ_ONLY },
      },
      async (args, extra) =>
        toFileToolResult(
          await readFileTool(deps, fileCall('readFile', extra), { file: args.file, ...(args.offset !== undefined && { offset: args.offset }), ...(args.limit !== undefined && { limit: args.limit }) }),
          'content',
        ),
    );
  }
  if (enabled('listFiles')) {
    server.registerTool(
      'listFiles',
      {
        title: 'List a folder',
        description: 'List the entries of a folder inside the workspace, sorted, one per line; folders end with "/", symbolic links with "@".',
        inputSchema: { path: z.string().default('.').describe('Folder relative to the workspace root (default ".").') },
        outputSchema: fileOutputShape,
        annotations: { title: 'List a folder', ...READ_ONLY },
      },
      async (args, extra) => toFileToolResult(await listFilesTool(deps, fileCall('listFiles', extra), { path: args.path }), 'entries'),
    );
  }
}
