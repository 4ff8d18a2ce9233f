import { z } from 'zod';
import { deleteFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'deleteFile',
  title: 'Delete a file',
  description: `Delete one file (not a folder or link). ${CHECKED}`,
  inputSchema: { file: z.string().describe('Relative to the workspace root.') },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: deleteFileTool,
});
