import { z } from 'zod';
import { deleteFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'deleteFile',
  title: 'Delete a file',
  description: (policy) => `Delete one file (not a folder or link). ${CHECKED(policy)}`,
  inputSchema: { file: z.string().describe('Workspace-relative.') },
  annotations: CHANGES,
  view: 'change',
  call: deleteFileTool,
});
