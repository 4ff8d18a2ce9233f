import { z } from 'zod';
import { moveRenameFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'moveRenameFile',
  title: 'Move or rename a file',
  description: `Move or rename a regular file (not a folder, not a symbolic link). An existing destination is replaced only with overwrite: true. ${CHECKED}`,
  inputSchema: {
    source: z.string().describe('Existing file, relative to the workspace root.'),
    destination: z.string().describe('New path, relative to the workspace root.'),
    overwrite: z.boolean().default(false).describe('Replace an existing destination file.'),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: moveRenameFileTool,
});
