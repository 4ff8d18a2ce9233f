import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { applyPatchTool, editFileTool, replaceInFileTool } from '../../../core/files/editTools';
import type { FileDeps } from '../../../core/files/types';
import { fileCall } from './deps';
import { fileOutputShape, toFileToolResult } from './result';

const EDIT = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } as const;
const TRANSACTION =
  'The new content is shown as a unified diff before anything is written (and may need approval); then the old content is saved as the next numbered backup (file.bk1, file.bk2 …, never overwritten) and the file is replaced atomically. CRLF line endings and a missing final newline are kept. Nothing is written when the edit fails.';

export function registerEditTools(server: McpServer, deps: FileDeps, enabled: (name: string) => boolean): void {
  if (enabled('replaceInFile')) {
    server.registerTool(
      'replaceInFile',
      {
        title: 'Replace text in a file',
        description: `Replace an exact piece of text (not a regex) in a text file. The number of occurrences must equal expectedReplacements (default 1), otherwise nothing changes and the error says how many there were. ${TRANSACTION}`,
        inputSchema: {
          file: z.string().describe('Existing text file, relative to the workspace root.'),
          oldText: z.string().min(1).describe('The exact text to find, including white space and line breaks.'),
          newText: z.string().describe('The replacement text.'),
          expectedReplacements: z.number().int().min(1).default(1).describe('How many occurrences must be replaced.'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Replace text in a file', ...EDIT },
      },
      async (args, extra) => toFileToolResult(await replaceInFileTool(deps, fileCall('replaceInFile', extra), args), 'change'),
    );
  }
  if (enabled('editFile')) {
    server.registerTool(
      'editFile',
      {
        title: 'Edit a file with sed',
        description: `Edit a text file with a GNU sed script (run by the server with --sandbox: no r/w/e commands). The script is the only program; args may hold only -n -E -r -s -u --posix --quiet --silent --regexp-extended (-i, -e, -f, -z, --follow-symlinks … are refused). ${TRANSACTION}`,
        inputSchema: {
          file: z.string().describe('Existing text file, relative to the workspace root.'),
          script: z.string().describe('The sed program, e.g. "s/old_name/new_name/g" or "/pattern/d".'),
          args: z.array(z.string()).optional().describe('Safe sed options, e.g. ["-E"].'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Edit a file with sed', ...EDIT },
      },
      async (args, extra) => toFileToolResult(await editFileTool(deps, fileCall('editFile', extra), { file: args.file, script: args.script, ...(args.args && { args: args.args }) }), 'change'),
    );
  }
  if (enabled('applyPatch')) {
    server.registerTool(
      'applyPatch',
      {
        title: 'Apply a unified diff to a file',
        description: `Apply a unified diff to the file named by "file" (file names inside the diff are ignored; one file per call). args may hold -R/--reverse, -l/--ignore-whitespace, -F N/--fuzz=N; other patch options are refused. A hunk that does not apply is reported by number. ${TRANSACTION}`,
        inputSchema: {
          file: z.string().describe('Existing text file, relative to the workspace root.'),
          diff: z.string().describe('The unified diff ("--- a/x", "+++ b/x", "@@ -1 +1 @@" …).'),
          pnum: z.number().int().min(0).default(2).describe('Accepted for compatibility (patch -pNUM); the explicit file is the target, so nothing is stripped.'),
          args: z.array(z.string()).optional().describe('Safe patch options, e.g. ["-R"] or ["--fuzz=2"].'),
        },
        outputSchema: fileOutputShape,
        annotations: { title: 'Apply a unified diff', ...EDIT },
      },
      async (args, extra) =>
        toFileToolResult(await applyPatchTool(deps, fileCall('applyPatch', extra), { file: args.file, diff: args.diff, pnum: args.pnum, ...(args.args && { args: args.args }) }), 'change'),
    );
  }
}
