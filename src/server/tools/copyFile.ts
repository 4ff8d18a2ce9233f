import { z } from 'zod';
import { copyFileTool } from '../../core/files/manage';
import { CHANGES, CHECKED, fileTool } from './define';

export default fileTool({
  name: 'copyFile',
  title: 'Copy a file',
  description: `Copy a file; replaces a destination only with overwrite. ${CHECKED}`,
  inputSchema: {
    source: z.string().describe('Relative to the workspace root.'),
    destination: z.string().describe('Relative to the workspace root.'),
    overwrite: z.boolean().default(false),
  },
  annotations: CHANGES,
  actions: ['fileChange'],
  view: 'change',
  call: copyFileTool,
});
