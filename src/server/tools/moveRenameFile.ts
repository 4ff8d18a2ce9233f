import { z } from 'zod';
import { moveRenameFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'moveRenameFile',
  title: 'Move or rename a file',
  description: `Move or rename a file (not a folder or link); replaces a destination only with overwrite. ${CHECKED}`,
  inputSchema: {
    source: z.string().describe('Relative to the workspace root.'),
    destination: z.string().describe('Relative to the workspace root.'),
    overwrite: z.boolean().default(false),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: moveRenameFileTool,
});
