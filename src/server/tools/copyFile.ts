import { z } from 'zod';
import { copyFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'copyFile',
  title: 'Copy a file',
  description: `Copy a regular file to a new path (the folder must exist). An existing destination is replaced only with overwrite: true. ${CHECKED}`,
  inputSchema: {
    source: z.string().describe('Existing file, relative to the workspace root.'),
    destination: z.string().describe('New file path, relative to the workspace root.'),
    overwrite: z.boolean().default(false).describe('Replace an existing destination file.'),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: copyFileTool,
});
